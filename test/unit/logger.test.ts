import { describe, expect, it } from 'vitest';
import { createLogger, forComponent, isPino } from '../../src/logger.js';
import { captureLogger } from '../helpers/logs.js';

function capture(level: Parameters<typeof createLogger>[0] = 'info') {
  const lines: string[] = [];
  const logger = createLogger(level, (line) => void lines.push(line));
  return { logger, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('logger', () => {
  it('writes one JSON line per call: level label, ISO time, fields, msg', () => {
    const { logger, parsed, lines } = capture();
    logger.warn({ askId: 'a1' }, 'something');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(true);
    const [line] = parsed();
    expect(line).toEqual({
      level: 'warn',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      askId: 'a1',
      msg: 'something',
    });
  });

  it('honours the level, debug and trace included', () => {
    const info = capture('info');
    info.logger.debug({}, 'hidden');
    info.logger.info({}, 'shown');
    expect(info.parsed().map((l) => l.msg)).toEqual(['shown']);
    const debug = capture('debug');
    debug.logger.debug({}, 'now shown');
    debug.logger.trace({}, 'still hidden');
    expect(debug.parsed().map((l) => [l.level, l.msg])).toEqual([['debug', 'now shown']]);
    const silent = capture('silent');
    silent.logger.error({}, 'nothing');
    expect(silent.lines).toEqual([]);
  });

  it('redacts tokens, secrets and free-text answers by field name, top level and nested', () => {
    const { logger, lines } = capture();
    const TOKEN = 'SENTINEL-TOKEN-1234';
    const ANSWER = 'SENTINEL-free-text-answer';
    logger.info({ token: TOKEN, apiToken: TOKEN, secret: TOKEN, text: ANSWER, answers: [{ text: ANSWER }] }, 'top');
    logger.info(
      {
        req: { headers: { authorization: `Bearer ${TOKEN}` } },
        reply: { text: ANSWER, answer: ANSWER },
        cfg: { botToken: TOKEN, signingSecret: TOKEN },
      },
      'nested',
    );
    logger.info({ headers: { authorization: `Bearer ${TOKEN}`, cookie: `s=${TOKEN}` } }, 'headers');
    const log = lines.join('');
    expect(log).not.toContain(TOKEN);
    expect(log).not.toContain(ANSWER);
    expect(log.match(/\[redacted\]/g)!.length).toBeGreaterThanOrEqual(12);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      token: '[redacted]',
      text: '[redacted]',
      answers: '[redacted]',
      msg: 'top',
    });
  });

  it('serializes errors (type, message, stack, code) and leaves out fields that may carry data', () => {
    const { logger, parsed } = capture();
    const err = Object.assign(new TypeError('boom'), {
      code: 'E_BOOM',
      command: { name: 'hset', args: ['k', 'doc', 'SENTINEL-doc'] },
      requestBody: { json: 'SENTINEL-body' },
    });
    logger.error({ err }, 'failed');
    logger.error({ err: 'just a message' }, 'failed as text');
    const [withError, withText] = parsed();
    expect(withError!.err).toEqual({
      type: 'TypeError',
      message: 'boom',
      stack: expect.stringContaining('TypeError: boom'),
      code: 'E_BOOM',
    });
    expect(JSON.stringify(withError)).not.toContain('SENTINEL');
    expect(withText!.err).toBe('just a message');
  });

  it('child loggers per component carry `component` on every line; plain loggers pass through', () => {
    const { logger, parsed } = capture();
    forComponent(logger, 'queue').error({ jobId: 'j1' }, 'queued');
    expect(parsed()[0]).toMatchObject({ level: 'error', component: 'queue', jobId: 'j1', msg: 'queued' });
    const plain = captureLogger();
    expect(isPino(plain)).toBe(false);
    expect(forComponent(plain, 'queue')).toBe(plain);
    expect(isPino(logger)).toBe(true);
  });
});
