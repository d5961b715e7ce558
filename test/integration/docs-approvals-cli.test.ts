import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client } from '../helpers/http.js';

// docs/integrations.md "Approvals": its shell block (askgate ask with approval flags, a rejection with
// a reason through the API, askgate wait printing the decision) run as written in bash against a
// running askgate (bash -e; without pipefail, the exit status of a pipeline is jq's); then `askgate wait` on the rejected ask exits 5, as the section says.
const ROOT = resolve(import.meta.dirname, '../..');
const DOC = readFileSync(join(ROOT, 'docs/integrations.md'), 'utf8');
const exec = promisify(execFile);

/** The blocks of language `lang` in the section `heading` (up to the next `## `). */
function blocks(heading: string, lang: string): string[] {
  const start = DOC.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const end = DOC.indexOf('\n## ', start + heading.length + 2);
  return [...DOC.slice(start, end).matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

let app: RunningAskgate;

beforeAll(async () => {
  app = await startTestApp(testEnv({}));
});
afterAll(async () => {
  await app?.close();
});

describe('docs/integrations.md: Approvals', () => {
  it('the CLI block runs as written: an approval rejected with a reason, printed; wait then exits 5', async () => {
    const [script] = blocks('## Approvals', 'sh');
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, ASKGATE_URL: app.url };
    const { stdout } = await exec('bash', ['-e', '-c', script!], { cwd: ROOT, env, timeout: 60_000 });
    expect(stdout.trim()).toBe('{"decision":"reject","reason":"wrong quarter"}');
    expect(DOC).toContain('It prints `{"decision":"reject","reason":"wrong quarter"}`');
    const ask = (await client(app.url).get('/v1/runs/approval-demo')).body.history[0];
    expect(ask.approval).toMatchObject({
      action: 'send_email',
      arguments: { to: 'finance@example.com', subject: 'Q3 report' },
      summary: 'Send the Q3 report to finance',
      decisions: ['approve', 'reject'],
    });
    const waited = await exec(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'wait', ask.id], {
      cwd: ROOT,
      env,
      timeout: 60_000,
    }).then(
      () => 0,
      (error: { code: number }) => error.code,
    );
    expect(waited).toBe(5);
  }, 90_000);

  it('the TypeScript block uses only names the SDK exports', async () => {
    const [code] = blocks('## Approvals', 'ts');
    const imported = /import \{([^}]+)\} from 'askgate\/client'/
      .exec(code!)![1]!
      .split(',')
      .map((n) => n.trim());
    const sdk = await import('../../src/client/index.js');
    for (const name of imported) expect([name, Object.hasOwn(sdk, name)]).toEqual([name, true]);
  });
});
