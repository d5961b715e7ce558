import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startAskgate, type RunningAskgate } from '../../src/main.js';
import { testEnv } from '../helpers/app.js';
import { raw } from './raw-http.js';

// Console sign-in is throttled by client address (issue 33: ~1,400 guesses/s went unnoticed):
// 5 free failures, then a wait that doubles; refused attempts are not compared; failures are
// logged with the address, never with what was typed.

const TOKEN = 'console-sign-in-token-0123456789';
let app: RunningAskgate;
let now = Date.parse('2026-03-01T12:00:00Z');
const lines: string[] = [];

beforeAll(async () => {
  const logger = createLogger('info', (line) => void lines.push(line));
  app = await startAskgate(loadConfig(testEnv({ ASKGATE_API_TOKEN: TOKEN })), {
    channels: [],
    logger,
    clock: { now: () => now },
  });
});

afterAll(async () => {
  await app?.close();
});

const login = (token: string) =>
  raw(app.url, 'POST', '/console/login', { origin: app.url, host: new URL(app.url).host }, { token });
const logged = (msg: string) => lines.map((l) => JSON.parse(l)).filter((l) => l.msg === msg);

describe('console sign-in throttle', () => {
  it('refuses an address after 5 failures with 429, Retry-After and a JSON error, even the right token, and logs no guess', async () => {
    for (let i = 1; i <= 5; i++) expect((await login(`guess-${i}-of-the-attacker`)).status).toBe(401);
    const refused = await login('guess-6-of-the-attacker');
    expect([refused.status, refused.headers['retry-after'], refused.json().error]).toEqual([
      429,
      '1',
      { code: 'too_many_attempts', message: 'too many failed sign-ins; try again in 1 s' },
    ]);
    expect(refused.headers['set-cookie']).toBeUndefined();
    // While the address waits the token is not even compared: the right one gets the same answer.
    expect((await login(TOKEN)).status).toBe(429);

    expect(logged('console sign-in failed').map((l) => [l.level, l.ip, l.failures])).toEqual([
      ['warn', '127.0.0.1', 1],
      ['warn', '127.0.0.1', 2],
      ['warn', '127.0.0.1', 3],
      ['warn', '127.0.0.1', 4],
      ['warn', '127.0.0.1', 5],
    ]);
    // One line per wait, not one per refused attempt.
    expect(logged('console sign-in throttled')).toMatchObject([{ level: 'info', ip: '127.0.0.1', failures: 5 }]);
    expect(lines.join('\n')).not.toMatch(/guess-|console-sign-in-token/);

    // Once the wait is over the address may try again; the next failure waits twice as long.
    now += 1_000;
    expect((await login(TOKEN)).status).toBe(200);
    expect((await login('guess-7-of-the-attacker')).status).toBe(401);
    expect((await login(TOKEN)).headers['retry-after']).toBe('2');
    now += 2_000;
    expect((await login(TOKEN)).status).toBe(200);
  });
});
