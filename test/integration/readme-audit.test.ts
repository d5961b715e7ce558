// The README's "Audit", run as written: the key made with openssl, its public key printed by
// `npx askgate audit public-key`, askgate started with it on a private redis-server, a range
// exported with curl and checked by `npx askgate audit verify`; the same file with one entry
// edited fails naming it.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { readmeBlocks, ROOT } from '../helpers/readme.js';
import { redisForFile } from '../helpers/redis-file.js';

const exec = promisify(execFile);
const TOKEN = 'readme-audit-token-0123456789';
const file = redisForFile();
const [makeKey, exportAndVerify] = readmeBlocks('## Audit');
let dir: string;
let app: RunningAskgate | undefined;

beforeAll(() => {
  // Inside the checkout, as a user's shell in it: `npx askgate` runs this checkout's askgate.
  dir = mkdtempSync(join(ROOT, 'test', '.readme-audit-'));
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a README block with bash in the scratch folder; exit code and output. */
async function run(block: string, env: Record<string, string> = {}) {
  try {
    const r = await exec('bash', ['-euo', 'pipefail', '-c', block], {
      cwd: dir,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
      timeout: 60_000,
    });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout, err: e.stderr };
  }
}

describe('README: Audit', () => {
  it('the blocks run as written: a signed export verifies, and one edited entry is named', async () => {
    const made = await run(makeKey!);
    expect(made.code, made.err).toBe(0);
    expect(readFileSync(join(dir, 'audit.pub'), 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----/);

    const key = readFileSync(join(dir, 'audit.key'), 'utf8');
    app = await startTestApp(
      testEnv({ REDIS_URL: file.redis.url, ASKGATE_API_TOKEN: TOKEN, ASKGATE_AUDIT_SIGNING_KEY: key }),
    );
    const api = client(app.url, TOKEN);
    const created = await api.post('/v1/asks', {
      runId: 'readme-audit',
      questions: [{ id: 'go', question: 'Ship it?', options: [{ label: 'Yes' }, { label: 'No' }] }],
    });
    expect(created.status).toBe(201);
    expect((await api.post(`/v1/asks/${created.body.id}/answer`, { answers: { go: ['Yes'] } })).status).toBe(200);

    const env = { ASKGATE_URL: app.url, ASKGATE_API_TOKEN: TOKEN };
    // The sequencer appends after the fact: export until the answer is in the trail.
    const verified = await eventually(async () => {
      const r = await run(exportAndVerify!, env);
      return r.code === 0 && readFileSync(join(dir, 'trail.jsonl'), 'utf8').includes('"answered"') ? r : undefined;
    }, 20_000);
    expect(verified.out).toMatch(/intact/i);
    const lines = readFileSync(join(dir, 'trail.jsonl'), 'utf8').trimEnd().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ type: 'checkpoint', signed: true });

    // One entry edited (its answer changed), the rest as exported: verify exits 1 naming it.
    const answered = lines.findIndex((l) => l.includes('"answered"'));
    lines[answered] = lines[answered]!.replace('"Yes"', '"No"');
    writeFileSync(join(dir, 'trail.jsonl'), `${lines.join('\n')}\n`);
    const verify = exportAndVerify!.split('\n').find((l) => l.includes('audit verify'))!;
    const tampered = await run(verify, env);
    expect(tampered.code).toBe(1);
    expect(tampered.err).toMatch(/NOT INTACT/);
    expect(tampered.err).toContain(JSON.parse(lines[answered]!.replace('"No"', '"Yes"')).id);
  }, 120_000);
});
