import Fastify, { LogController } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { createLogger, lazyChild } from '../../src/logger.js';

function capture(level: Parameters<typeof createLogger>[0] = 'info') {
  const lines: string[] = [];
  const logger = createLogger(level, (line) => void lines.push(line));
  return { logger, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('lazyChild (request.log)', () => {
  it('makes no pino child while nothing is logged, nor for lines below the level', () => {
    const { logger, lines } = capture('warn');
    const child = vi.spyOn(logger, 'child');
    const log = lazyChild(logger, { reqId: 'req-1' });
    log.info({ a: 1 }, 'below the level');
    log.debug('below the level');
    log.trace('below the level');
    log.silent('never');
    expect(log.level).toBe('warn');
    expect(log.isLevelEnabled('info')).toBe(false);
    expect(log.isLevelEnabled('error')).toBe(true);
    expect(child).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
  });

  it('logs through one real child: reqId on every line, secrets and free text redacted, errors serialized', () => {
    const { logger, parsed, lines } = capture('info');
    const http = logger.child({ component: 'http' });
    const child = vi.spyOn(http, 'child');
    const log = lazyChild(http, { reqId: 'req-2' });
    const TOKEN = 'SENTINEL-TOKEN-lazy';
    const ANSWER = 'SENTINEL-answer-lazy';
    log.warn({ token: TOKEN, req: { headers: { authorization: `Bearer ${TOKEN}` } }, text: ANSWER }, 'first');
    log.error({ err: Object.assign(new Error('boom'), { command: { args: [TOKEN] } }) }, 'second');
    log.info('third %s', 'formatted');
    expect(lines.join('')).not.toContain(TOKEN);
    expect(lines.join('')).not.toContain(ANSWER);
    const [first, second, third] = parsed();
    expect(first).toMatchObject({
      level: 'warn',
      component: 'http',
      reqId: 'req-2',
      token: '[redacted]',
      text: '[redacted]',
      req: { headers: { authorization: '[redacted]' } },
      msg: 'first',
    });
    expect(second).toMatchObject({ level: 'error', reqId: 'req-2', err: { type: 'Error', message: 'boom' } });
    expect(second!.err).not.toHaveProperty('command');
    expect(third).toMatchObject({ level: 'info', reqId: 'req-2', msg: 'third formatted' });
    // one pino child for the request, made at its first line
    expect(child).toHaveBeenCalledTimes(1);
  });

  it('its own children, level changes and child options use a real child', () => {
    const { logger, parsed } = capture('info');
    const log = lazyChild(logger, { reqId: 'req-3' });
    log.child({ sub: 'x' }).info({ secret: 'SENTINEL' }, 'from a child');
    expect(parsed()[0]).toMatchObject({ reqId: 'req-3', sub: 'x', secret: '[redacted]', msg: 'from a child' });
    const quiet = lazyChild(logger, { reqId: 'req-4' });
    quiet.level = 'error';
    quiet.warn('hidden');
    expect(logger.level).toBe('info');
    expect(parsed()).toHaveLength(1);
    const withOptions = lazyChild(logger, { reqId: 'req-5' }, { level: 'debug' });
    withOptions.debug('route level');
    expect(parsed()[1]).toMatchObject({ level: 'debug', reqId: 'req-5', msg: 'route level' });
  });

  it('as fastify childLoggerFactory: a request that logs gets its reqId; one that does not makes no child', async () => {
    const { logger, parsed } = capture('info');
    const app = Fastify({
      loggerInstance: logger,
      logController: new LogController({ disableRequestLogging: true }),
      childLoggerFactory: (parent, bindings, options) => lazyChild(parent, bindings, options),
    });
    app.get('/quiet', async () => ({ ok: true }));
    app.get('/loud', async (request) => {
      request.log.warn({ apiToken: 'SENTINEL-api' }, 'loud');
      return { ok: true };
    });
    await app.ready();
    const child = vi.spyOn(app.log, 'child');
    try {
      expect((await app.inject({ url: '/quiet' })).statusCode).toBe(200);
      expect(child).not.toHaveBeenCalled();
      expect((await app.inject({ url: '/loud' })).statusCode).toBe(200);
      expect(child).toHaveBeenCalledTimes(1);
    } finally {
      child.mockRestore();
      await app.close();
    }
    const lines = parsed();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', reqId: expect.any(String), apiToken: '[redacted]', msg: 'loud' });
  });
});
