// The audit trail on a real Redis: every transition of an ask becomes a chained entry, written by
// one sequencer at a time whichever replica holds the lease, exported as JSON Lines with a signed
// checkpoint and checked offline by `askgate audit verify`, run as a user runs it.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import type { AuditEntry } from '../../src/core/audit/chain.js';
import type { AuditCheckpoint } from '../../src/core/audit/verify.js';
import { RedisAuditChain } from '../../src/store/audit-chain.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { RecordingChannel } from '../helpers/test-channel.js';

const exec = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const TOKEN = 'audit-token-0123456789abcdef';
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const PRIVATE_PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const PUBLIC_PEM = publicKey.export({ type: 'spki', format: 'pem' }).toString();
const FROM = '2000-01-01T00:00:00Z';
const dir = mkdtempSync(join(tmpdir(), 'askgate-audit-'));

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.dispose();
});

type Api = ReturnType<typeof client>;
interface Export {
  text: string;
  entries: AuditEntry[];
  checkpoint: AuditCheckpoint;
}

async function exportAll(api: Api, query = `from=${FROM}`): Promise<Export> {
  const res = await api.call('GET', `/v1/audit?${query}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
  const text = typeof res.body === 'string' ? res.body : `${JSON.stringify(res.body)}\n`;
  const lines = text.split('\n').filter((l) => l !== '');
  return {
    text,
    entries: lines.slice(0, -1).map((l) => JSON.parse(l) as AuditEntry),
    checkpoint: JSON.parse(lines[lines.length - 1]!) as AuditCheckpoint,
  };
}

/** The export once it holds `n` entries for these asks. */
const exportWhen = (api: Api, done: (e: Export) => boolean) =>
  eventually(async () => {
    const e = await exportAll(api);
    return done(e) ? e : undefined;
  }, 20_000);

async function verifyCli(text: string, ...extra: string[]): Promise<{ code: number; out: string; err: string }> {
  const file = join(dir, `export-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, text);
  const keyFile = join(dir, 'audit-public.pem');
  writeFileSync(keyFile, PUBLIC_PEM);
  try {
    const r = await exec(
      process.execPath,
      ['bin/askgate.js', 'audit', 'verify', file, '--public-key', keyFile, ...extra],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH },
      },
    );
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout, err: e.stderr };
  }
}

/** The entries of one ask, in chain order. */
const ofAsk = (e: Export, id: string) => e.entries.filter((x) => x.ask === id);

function expectOneChain(e: Export): void {
  expect(e.entries.map((x) => x.seq)).toEqual(e.entries.map((_, i) => e.entries[0]!.seq + i));
  expect(new Set(e.entries.map((x) => x.id)).size).toBe(e.entries.length);
  e.entries.forEach((x, i) => i > 0 && expect(x.prev).toBe(e.entries[i - 1]!.hash));
}

describe('one replica: the entries of a run, hashed text, export and verify', () => {
  let app: RunningAskgate;
  let api: Api;
  const channel = new RecordingChannel('test');
  const env = testEnv({ REDIS_URL: redis?.url, ASKGATE_API_TOKEN: TOKEN, ASKGATE_AUDIT_SIGNING_KEY: PRIVATE_PEM });
  const words = 'because the weekend is quiet, ask Rui first';

  beforeAll(async () => {
    env.REDIS_URL = redis.url;
    app = await startTestApp(env, [channel]);
    api = client(app.url, TOKEN);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('records created, delivered, answered and finalized in order, with the values and the person', async () => {
    const created = await api.post('/v1/asks', {
      runId: 'audit-run-1',
      agent: 'deploy-bot',
      to: { channel: 'test', chat: 'c1' },
      questions: [
        { id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] },
        { id: 'why', question: 'Why?', kind: 'text' },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    await eventually(async () => channel.delivered.length === 1);
    const answered = await api.post(`/v1/asks/${id}/answer`, {
      answers: { env: ['Staging'], why: [words] },
      by: 'ana',
    });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    const e = await exportWhen(api, (x) => ofAsk(x, id).some((y) => y.type === 'finalized'));
    const mine = ofAsk(e, id);
    expect(mine.map((x) => x.type)).toEqual(['created', 'delivered', 'answered', 'finalized']);
    expect(mine.map((x) => x.id)).toEqual([0, 1, 2, 3].map((n) => `${id}/${n}`));
    expect(mine[0]).toMatchObject({ run: 'audit-run-1', agent: 'deploy-bot', detail: { kind: 'questions' } });
    expect(mine[1]).toMatchObject({ actor: { channel: 'test' }, detail: { messageId: '1' } });
    const answer = mine[2]!;
    expect(answer.actor).toEqual({ channel: 'api', userId: 'ana' });
    const values = answer.detail!.values as Record<string, unknown>;
    expect(values.env).toEqual(['Staging']);
    // Their own words are kept as a SHA-256, never as the words.
    expect(values.why).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(e.text).not.toContain('weekend');
    expectOneChain(e);
    expect(e.checkpoint).toMatchObject({ type: 'checkpoint', signed: true, count: e.entries.length, complete: true });
  });

  it('records an approval decided with its action, both hashes and the reason as a hash; a cancel and a default', async () => {
    const approval = await api.post('/v1/asks', {
      runId: 'audit-run-2',
      approval: {
        action: 'send_email',
        arguments: { to: 'finance@example.com' },
        decisions: ['approve', 'reject', 'edit'],
      },
    });
    const decided = await api.post(`/v1/asks/${approval.body.id}/answer`, {
      decision: 'edit',
      arguments: { to: 'cfo@example.com' },
      reason: 'the CFO signs these off',
      by: 'rui',
    });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    const cancelled = await api.post('/v1/asks', {
      runId: 'audit-run-3',
      questions: [{ id: 'q', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }],
    });
    await api.post(`/v1/asks/${cancelled.body.id}/cancel`, {});
    const defaulted = await api.post('/v1/asks', {
      runId: 'audit-run-4',
      timeoutSeconds: 1,
      questions: [{ id: 'q', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }],
      onTimeout: { default: { q: ['No'] } },
    });
    expect(defaulted.status, JSON.stringify(defaulted.body)).toBe(201);
    const e = await exportWhen(api, (x) => ofAsk(x, defaulted.body.id).some((y) => y.type === 'defaulted'));
    const d = ofAsk(e, approval.body.id).find((x) => x.type === 'decided')!;
    expect(d.actor).toEqual({ channel: 'api', userId: 'rui' });
    expect(d.detail).toMatchObject({
      decision: 'edit',
      action: 'send_email',
      actionHash: approval.body.approval.actionHash,
      effectiveHash: decided.body.result.effectiveHash,
      reasonSha256: expect.stringMatching(/^sha256:/),
    });
    expect(d.detail!.effectiveHash).not.toBe(d.detail!.actionHash);
    expect(e.text).not.toContain('CFO signs');
    expect(ofAsk(e, cancelled.body.id).map((x) => x.type)).toEqual(['created', 'cancelled']);
    expect(ofAsk(e, defaulted.body.id).find((x) => x.type === 'defaulted')!.detail).toMatchObject({
      values: { q: ['No'] },
    });
  });

  it('askgate audit verify passes the export, and fails naming the entry edited, removed, swapped, inserted, or the checkpoint altered', async () => {
    const e = await exportAll(api);
    const ok = await verifyCli(e.text);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toMatch(new RegExp(`intact: ${e.entries.length} entries .* signature valid`));
    const lines = e.text.split('\n').filter((l) => l !== '');
    const edited = [...lines];
    edited[2] = edited[2]!.replace('"answered"', '"skipped"');
    const removed = [...lines.slice(0, 3), ...lines.slice(4)];
    const swapped = [...lines];
    [swapped[3], swapped[4]] = [swapped[4]!, swapped[3]!];
    const inserted = [...lines.slice(0, 3), lines[1]!, ...lines.slice(3)];
    const cp = JSON.parse(lines[lines.length - 1]!) as AuditCheckpoint;
    const altered = [...lines.slice(0, -1), JSON.stringify({ ...cp, count: cp.count + 1 })];
    const cases: [string[], RegExp][] = [
      [edited, new RegExp(`\\(changed\\): entry ${e.entries[2]!.seq} \\(${e.entries[2]!.id}, line 3\\)`)],
      [removed, new RegExp(`\\(removed\\): entry ${e.entries[3]!.seq} was removed`)],
      [swapped, new RegExp(`\\(reordered\\): entry ${e.entries[4]!.seq} .*line 4.* out of order`)],
      [inserted, /\(inserted\)/],
      [altered, /\(signature\): the checkpoint was altered/],
    ];
    for (const [file, message] of cases) {
      const r = await verifyCli(`${file.join('\n')}\n`);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(message);
    }
  });

  it('askgate audit public-key prints the key to publish; a bad signing key stops startup naming the variable only', async () => {
    const r = await exec(process.execPath, ['bin/askgate.js', 'audit', 'public-key'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ASKGATE_AUDIT_SIGNING_KEY: PRIVATE_PEM },
    });
    expect(r.stdout).toBe(PUBLIC_PEM);
    const bad = 'not-a-key-secret-value-1234';
    const failed = await exec(process.execPath, ['bin/askgate.js', 'serve'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, PORT: '0', ASKGATE_AUDIT_SIGNING_KEY: bad },
    }).catch((error: { code: number; stderr: string }) => error);
    expect((failed as { code: number }).code).toBe(2);
    expect((failed as { stderr: string }).stderr).toContain('ASKGATE_AUDIT_SIGNING_KEY');
    expect((failed as { stderr: string }).stderr).not.toContain(bad);
  });

  it('askgate audit export writes the range as askgate serves it; a bad --from exits 2 naming it', async () => {
    const env = { PATH: process.env.PATH, ASKGATE_URL: app.url, ASKGATE_API_TOKEN: TOKEN };
    const r = await exec(process.execPath, ['bin/askgate.js', 'audit', 'export', '--from', FROM], { cwd: ROOT, env });
    const served = await exportAll(api);
    expect(r.stdout.split('\n').slice(0, -2)).toEqual(served.text.split('\n').slice(0, -2));
    expect((await verifyCli(r.stdout)).code).toBe(0);
    const bad = await exec(process.execPath, ['bin/askgate.js', 'audit', 'export', '--from', 'monday'], {
      cwd: ROOT,
      env,
    }).catch((error: { code: number; stderr: string }) => error);
    expect((bad as { code: number }).code).toBe(2);
    expect((bad as { stderr: string }).stderr).toContain('query parameter from');
  });

  it('answers 400 naming the query parameter, and 401 without the token', async () => {
    for (const [query, field] of [
      ['', 'from'],
      ['from=yesterday', 'from'],
      [`from=${FROM}&to=1999-01-01T00:00:00Z`, 'to'],
      [`from=${FROM}&limit=0`, 'limit'],
      [`from=${FROM}&limit=100001`, 'limit'],
      [`from=${FROM}&after=x`, 'after'],
      [`from=${FROM}&color=red`, 'color'],
    ]) {
      const r = await api.get(`/v1/audit?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.error.message).toContain(`query parameter ${field}`);
    }
    expect((await client(app.url).get(`/v1/audit?from=${FROM}`)).status).toBe(401);
  });

  it('bounds a response by limit: the checkpoint says where the next one starts, and each part verifies', async () => {
    const all = await exportAll(api);
    const first = await exportAll(api, `from=${FROM}&limit=3`);
    expect(first.entries).toHaveLength(3);
    expect(first.checkpoint).toMatchObject({ complete: false, next: expect.any(String) });
    const second = await exportAll(api, `from=${FROM}&after=${first.checkpoint.next}&limit=100000`);
    expect([...first.entries, ...second.entries].map((x) => x.seq)).toEqual(all.entries.map((x) => x.seq));
    expect((await verifyCli(first.text)).code).toBe(0);
    expect((await verifyCli(second.text, '--anchor', first.checkpoint.lastHash)).code).toBe(0);
  });

  it('retention trims old entries; what remains verifies, anchored on the checkpoint kept before', async () => {
    const before = await exportAll(api);
    const cut = before.entries[4]!;
    const chain = new RedisAuditChain(new Redis(redis.url), env.ASKGATE_KEY_PREFIX!);
    // Everything recorded before the 5th entry's time goes (the sequencer does this for entries
    // older than ASKGATE_AUDIT_RETENTION_DAYS).
    await chain.trim(Date.parse(cut.recordedAt), 0);
    await chain.close();
    const after = await exportAll(api);
    expect(after.entries[0]!.seq).toBeGreaterThan(1);
    expect(after.checkpoint.anchor).toBe(after.entries[0]!.prev);
    const kept = before.entries.find((x) => x.seq === after.entries[0]!.seq - 1)!;
    const r = await verifyCli(after.text, '--anchor', kept.hash);
    expect(r.code, r.err).toBe(0);
    // A range whose entries were all trimmed is empty, anchored on the last entry trimmed.
    const gone = await exportAll(api, `from=${FROM}&to=${new Date(Date.parse(cut.recordedAt) - 1).toISOString()}`);
    expect(gone.entries).toEqual([]);
    expect(gone.checkpoint).toMatchObject({ count: 0, anchor: kept.hash, lastHash: kept.hash });
    expect((await verifyCli(gone.text, '--anchor', kept.hash)).code).toBe(0);
  });
});

describe('ASKGATE_AUDIT_TEXT=keep', () => {
  it('keeps the words people wrote and an approval’s reason', async () => {
    const app = await startTestApp(
      testEnv({ REDIS_URL: redis.url, ASKGATE_API_TOKEN: TOKEN, ASKGATE_AUDIT_TEXT: 'keep' }),
    );
    try {
      const api = client(app.url, TOKEN);
      const ask = await api.post('/v1/asks', {
        runId: 'keep-1',
        questions: [{ id: 'why', question: 'Why?', kind: 'text' }],
      });
      await api.post(`/v1/asks/${ask.body.id}/answer`, { answers: { why: ['the weekend is quiet'] } });
      const e = await exportWhen(api, (x) => ofAsk(x, ask.body.id).some((y) => y.type === 'answered'));
      expect(ofAsk(e, ask.body.id).find((y) => y.type === 'answered')!.detail).toEqual({
        values: { why: 'the weekend is quiet' },
      });
      expect(e.checkpoint.signed).toBe(false);
      expect((await verifyCli(e.text)).err).toMatch(/\(signature\): the checkpoint is not signed/);
    } finally {
      await app.close();
    }
  });
});

describe('ASKGATE_AUDIT=off', () => {
  it('keeps no trail: GET /v1/audit is not there', async () => {
    const app = await startTestApp(testEnv({ REDIS_URL: redis.url, ASKGATE_API_TOKEN: TOKEN, ASKGATE_AUDIT: 'off' }));
    try {
      expect((await client(app.url, TOKEN).get(`/v1/audit?from=${FROM}`)).status).toBe(404);
    } finally {
      await app.close();
    }
  });
});

describe('two replicas on one Redis', () => {
  const q = { questions: [{ id: 'q', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }] };

  it('write one chain at once: no gap, no duplicate, every transition of every ask', async () => {
    const env = testEnv({ REDIS_URL: redis.url, ASKGATE_API_TOKEN: TOKEN, ASKGATE_AUDIT_SIGNING_KEY: PRIVATE_PEM });
    const [a, b] = [await startTestApp(env), await startTestApp(env)];
    try {
      const apis = [client(a.url, TOKEN), client(b.url, TOKEN)];
      const ids = await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const api = apis[i % 2]!;
          const made = await api.post('/v1/asks', { runId: `pair-${i}`, ...q });
          // Answered through the other replica.
          await apis[(i + 1) % 2]!.post(`/v1/asks/${made.body.id}/answer`, { answers: { q: ['Yes'] } });
          return made.body.id as string;
        }),
      );
      const e = await exportWhen(apis[0]!, (x) => ids.every((id) => ofAsk(x, id).length === 2));
      expectOneChain(e);
      for (const id of ids) expect(ofAsk(e, id).map((x) => x.type)).toEqual(['created', 'answered']);
      const verified = await verifyCli((await exportAll(apis[1]!)).text);
      expect(verified.code, verified.err).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a sequencer stopped mid-way: the other takes over, nothing lost or doubled', async () => {
    const env = testEnv({ REDIS_URL: redis.url, ASKGATE_API_TOKEN: TOKEN });
    const a = await startTestApp(env);
    const api = client(a.url, TOKEN);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await api.post('/v1/asks', { runId: `stop-${i}`, ...q })).body.id);
    // Stopped right away, with announcements still unread.
    await a.close();
    const b = await startTestApp(env);
    try {
      const apiB = client(b.url, TOKEN);
      for (const id of ids) await apiB.post(`/v1/asks/${id}/answer`, { answers: { q: ['No'] } });
      const e = await exportWhen(apiB, (x) => ids.every((id) => ofAsk(x, id).length === 2));
      expectOneChain(e);
      for (const id of ids) expect(ofAsk(e, id).map((x) => x.type)).toEqual(['created', 'answered']);
    } finally {
      await b.close();
    }
  });
});
