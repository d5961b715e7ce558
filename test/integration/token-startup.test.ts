import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** Runs the real `askgate serve` (bin/askgate.js) with `env`; it must exit on its own. */
async function serve(env: Record<string, string>): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/askgate.js', 'serve'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, PORT: '0', LOG_LEVEL: 'warn', ...env },
      timeout: 15_000,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

describe('askgate serve refuses a token that could never authenticate', () => {
  it.each([
    ['a space', 'correct horse battery staple'],
    ['a non-ASCII character', 'correct-hörse-battery-staple'],
  ])(
    'ASKGATE_API_TOKEN with %s: exits non-zero naming the setting, without echoing the token',
    async (_what, token) => {
      const r = await serve({ ASKGATE_API_TOKEN: token });
      expect(r.code).not.toBe(0);
      expect(r.output).toMatch(/ASKGATE_API_TOKEN: contains a (space|non-ASCII)/);
      expect(r.output).toMatch(/could never authenticate/);
      expect(r.output).not.toContain(token);
      expect(r.output).not.toMatch(/h[oö]rse/);
      expect(r.output).not.toContain('askgate listening');
    },
  );

  it('a Discord bot token with a space: the same', async () => {
    const r = await serve({ DISCORD_BOT_TOKEN: 'MTIz.abc def' });
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/DISCORD_BOT_TOKEN: contains a space/);
    expect(r.output).not.toContain('abc def');
  });
});
