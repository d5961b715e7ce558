// The README's "Long waits" block, run as written against a running askgate with a token: a
// week-long async ask, then `npx askgate extend` moving it two weeks from now, recorded with who.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client } from '../helpers/http.js';
import { readmeBlocks, ROOT } from '../helpers/readme.js';

const exec = promisify(execFile);
const TOKEN = 'readme-long-waits-token-0123';
const [block] = readmeBlocks('### Long waits');
let app: RunningAskgate;
beforeAll(async () => {
  app = await startTestApp(testEnv({ ASKGATE_API_TOKEN: TOKEN }));
});
afterAll(async () => {
  await app?.close();
});

describe('README: Long waits', () => {
  it('the block runs as written: a 7-day async ask extended to 14 days from now, by alice', async () => {
    const before = Date.now();
    const { stdout } = await exec('bash', ['-euo', 'pipefail', '-c', block!], {
      cwd: ROOT,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ASKGATE_URL: app.url, ASKGATE_API_TOKEN: TOKEN },
      timeout: 60_000,
    });
    const printed = Date.parse(stdout.trim());
    const fortnight = 1_209_600_000;
    expect(printed).toBeGreaterThanOrEqual(before + fortnight - 1000);
    expect(printed).toBeLessThanOrEqual(Date.now() + fortnight + 1000);
    const { body } = await client(app.url, TOKEN).get('/v1/runs/quarter-close');
    expect(body.current).toMatchObject({ status: 'pending', async: true, expiresAt: stdout.trim() });
    const events = (await client(app.url, TOKEN).get(`/v1/asks/${body.current.id}/events`)).body.events;
    const extended = events.filter((e: { type: string }) => e.type === 'extended');
    expect(extended).toEqual([expect.objectContaining({ type: 'extended', userId: 'alice', to: stdout.trim() })]);
  }, 90_000);
});
