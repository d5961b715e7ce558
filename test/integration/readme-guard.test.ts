import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client } from '../helpers/http.js';
import { readmeBlocks, ROOT } from '../helpers/readme.js';

// The README's "Guarding tools": the plain-functions block run as written (its package imports
// pointed at the checkout's sources) against a running askgate with a token, before and after the
// run's ask is answered; the framework block's imports exist where it says.
const TOKEN = 'readme-guard-token-0123456789';
const exec = promisify(execFile);
const SOURCES: Record<string, string> = {
  'askgate/client': 'src/client/index.ts',
  'askgate/guard': 'src/guard/index.ts',
  'askgate/guard/openai-agents': 'src/guard/openai-agents.ts',
  'askgate/guard/langgraph': 'src/guard/langgraph.ts',
  'askgate/guard/ai-sdk': 'src/guard/ai-sdk.ts',
};

let app: RunningAskgate;
let dir: string;
beforeAll(async () => {
  app = await startTestApp(testEnv({ ASKGATE_API_TOKEN: TOKEN }));
  dir = mkdtempSync(join(ROOT, 'test', '.readme-guard-'));
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const [plain, frameworks] = readmeBlocks('## Guarding tools');

/** Runs the plain-functions block as a module of the checkout; its stdout lines. */
async function runBlock(): Promise<string[]> {
  const file = join(dir, 'guard-block.mts');
  writeFileSync(
    file,
    plain!.replace(/from '(askgate\/[a-z/-]+)'/g, (_, spec: string) => `from '${join(ROOT, SOURCES[spec]!)}'`),
  );
  const { stdout } = await exec(process.execPath, ['--import', 'tsx', file], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ASKGATE_URL: app.url, ASKGATE_API_TOKEN: TOKEN },
    timeout: 60_000,
  });
  return stdout.trim().split('\n');
}

describe('README: Guarding tools', () => {
  it('the block runs as written: deploy is refused while release-42 waits for a person, and runs after the answer', async () => {
    const api = client(app.url, TOKEN);
    const created = await api.post('/v1/asks', {
      runId: 'release-42',
      questions: [{ id: 'go', question: 'Ship v2.3?', options: [{ label: 'Yes' }, { label: 'No' }] }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;

    expect(await runBlock()).toEqual([
      `Not executed: deploy is blocked while the run waits for a person's answer (ask ${id}). Nothing was done. Try again after the answer.`,
      'production runs v2.2',
    ]);
    const events = await api.get(`/v1/asks/${id}/events`);
    expect(events.body.events.filter((e: { type: string }) => e.type === 'guard_blocked')).toEqual([
      expect.objectContaining({ type: 'guard_blocked', tool: 'deploy' }),
    ]);

    const answered = await api.post(`/v1/asks/${id}/answer`, { answers: { go: ['Yes'] } });
    expect(answered.status).toBe(200);
    expect(await runBlock()).toEqual(['deployed v2.3', 'production runs v2.2']);
  }, 120_000);

  it('the framework block imports names that exist where it says', async () => {
    const imports = [...frameworks!.matchAll(/import \{([^}]+)\} from '([^']+)'/g)];
    expect(imports.map((m) => m[2])).toEqual([
      'askgate/guard',
      'askgate/guard/openai-agents',
      'askgate/guard/langgraph',
      'askgate/guard/ai-sdk',
    ]);
    for (const [, names, spec] of imports) {
      const module = (await import(join(ROOT, SOURCES[spec!]!))) as Record<string, unknown>;
      for (const name of names!.split(',').map((n) => n.trim()))
        expect([spec, name, typeof module[name]]).toEqual([spec, name, 'function']);
    }
  });
});
