import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client } from '../helpers/http.js';

// docs/integrations.md "Typed questions": its shell block (askgate ask with typed flags, an answer
// with values through the API, askgate wait printing `.values`) run as written in bash against a
// running askgate (ASKGATE_URL set, as the docs' block reads it).
const ROOT = resolve(import.meta.dirname, '../..');
const DOC = readFileSync(join(ROOT, 'docs/integrations.md'), 'utf8');
const exec = promisify(execFile);

/** The shell blocks of the section `heading` (up to the next `## `). */
function blocks(heading: string): string[] {
  const start = DOC.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const end = DOC.indexOf('\n## ', start + heading.length + 2);
  return [...DOC.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

let app: RunningAskgate;

beforeAll(async () => {
  app = await startTestApp(testEnv({}));
});
afterAll(async () => {
  await app?.close();
});

describe('docs/integrations.md: Typed questions', () => {
  it('the CLI block runs as written: a number and a date question, answered with values, printed as JSON values', async () => {
    const [script] = blocks('## Typed questions');
    expect(script).toContain('--kind number --min 1 --max 10 --integer');
    const { stdout } = await exec('bash', ['-e', '-o', 'pipefail', '-c', script!], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ASKGATE_URL: app.url },
      timeout: 60_000,
    });
    expect(stdout.trim()).toBe('{"q1":3,"q2":"2026-12-08"}');
    expect(DOC).toContain('It prints `{"q1":3,"q2":"2026-12-08"}`.');
    // The ask the block made, as stored: typed questions with their constraints.
    const run = (await client(app.url).get('/v1/runs/typed-demo')).body;
    expect(run.history[0].questions).toEqual([
      { id: 'q1', question: 'How many replicas?', kind: 'number', min: 1, max: 10, integer: true },
      { id: 'q2', question: 'Which day?', kind: 'date', min: '2026-12-01' },
    ]);
  }, 90_000);
});
