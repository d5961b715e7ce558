import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { tokenMatches } from '../../src/security/http.js';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { isAuditKey } from '../helpers/audit-keys.js';

// Hostile API input: oversized, malformed and out-of-range bodies get a 4xx with a JSON error and
// change nothing; a missing or wrong bearer token gets the same 401 whether the target exists or not.

const TOKEN = 'security-api-token-0123456789';
let redis: TestRedis;
let app: RunningAskgate;
let conn: Redis;
let env: Record<string, string>;
let existing: { id: string; runId: string };

/** A raw request (any bytes, any headers), so malformed input reaches the server as sent. */
function raw(
  method: string,
  path: string,
  body: Buffer | string | null,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string; text: string; headers: Record<string, unknown> }> {
  const url = new URL(path, app.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { authorization: `Bearer ${TOKEN}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          type: String(res.headers['content-type'] ?? ''),
          text: Buffer.concat(chunks).toString(),
          headers: res.headers,
        }),
      );
    });
    req.on('error', reject);
    if (body !== null) req.write(body);
    req.end();
  });
}

const json = (value: unknown) => ({ body: JSON.stringify(value), headers: { 'content-type': 'application/json' } });

/**
 * Every store key with a digest of its value, and the names of the queue keys (one per job), to
 * prove nothing changed. Left out: what the background loops rewrite on their own (the
 * reconciler's sweep schedule; BullMQ's counters, events and the jobs the reconciler re-adds; the
 * audit trail, which the sequencer appends after the requests that made the history it follows).
 */
async function stateDigest(): Promise<string[]> {
  const prefix = env.ASKGATE_KEY_PREFIX!;
  const keys = (await conn.keys(`${prefix}:*`)).filter((k) => !k.endsWith(':sweep') && !isAuditKey(k));
  const dumps = await Promise.all(keys.map((k) => conn.dumpBuffer(k)));
  const jobs = (await conn.keys(`{${prefix}}:*`)).filter((k) => /:(timeout|deliver|finalize|webhook)-[^:]+$/.test(k));
  return [
    ...keys.map(
      (k, i) =>
        `${k}=${createHash('sha1')
          .update(dumps[i] ?? '')
          .digest('hex')}`,
    ),
    ...jobs,
  ].sort();
}

beforeAll(async () => {
  redis = await startRedis();
  env = testEnv({ REDIS_URL: redis.url, ASKGATE_API_TOKEN: TOKEN });
  app = await startTestApp(env, [new RecordingChannel()]);
  conn = new Redis(redis.url);
  const res = await raw(
    'POST',
    '/v1/asks',
    json(askBody('sec-api-existing', { to: { channel: 'test', chat: 'c1' }, timeoutSeconds: 300 })).body,
    json(null).headers,
  );
  existing = JSON.parse(res.text);
  await new Promise((r) => setTimeout(r, 300));
});

afterAll(async () => {
  await app?.close();
  conn?.disconnect();
  await redis?.dispose();
});

const valid = askBody('sec-api-new');
const q = valid.questions[0]!;
const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const invalidUtf8 = Buffer.concat([
  Buffer.from('{"runId":"sec-api-utf8","questions":[{"question":"Q'),
  Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
  Buffer.from('?","options":[{"label":"a"},{"label":"b"}]}]}'),
]);

const bad: [
  name: string,
  method: string,
  path: string,
  body: Buffer | string | null,
  headers: Record<string, string>,
][] = [
  ['a 5 MB body', 'POST', '/v1/asks', JSON.stringify({ ...valid, pad: 'x'.repeat(5_000_000) }), json(null).headers],
  [
    'JSON nested 30,000 deep in questions',
    'POST',
    '/v1/asks',
    `{"runId":"sec-api-deep","questions":${deep(30_000)}}`,
    json(null).headers,
  ],
  [
    'JSON nested 30,000 deep in an unknown field',
    'POST',
    '/v1/asks',
    `{"runId":"sec-api-deep","x":${deep(30_000)},"questions":[]}`,
    json(null).headers,
  ],
  ['invalid UTF-8 inside a string', 'POST', '/v1/asks', invalidUtf8, json(null).headers],
  ['text/plain', 'POST', '/v1/asks', JSON.stringify(valid), { 'content-type': 'text/plain' }],
  ['form-urlencoded', 'POST', '/v1/asks', 'runId=x', { 'content-type': 'application/x-www-form-urlencoded' }],
  ['multipart', 'POST', '/v1/asks', '--b\r\n\r\nx\r\n--b--', { 'content-type': 'multipart/form-data; boundary=b' }],
  ['no content type', 'POST', '/v1/asks', JSON.stringify(valid), {}],
  ['an empty JSON body', 'POST', '/v1/asks', '', json(null).headers],
  ['truncated JSON', 'POST', '/v1/asks', JSON.stringify(valid).slice(0, -3), json(null).headers],
  ['a JSON array', 'POST', '/v1/asks', '[]', json(null).headers],
  [
    '__proto__ pollution',
    'POST',
    '/v1/asks',
    `{"__proto__":{"admin":true},${JSON.stringify(valid).slice(1)}`,
    json(null).headers,
  ],
  [
    'constructor.prototype pollution',
    'POST',
    '/v1/asks',
    `{"constructor":{"prototype":{"admin":true}},${JSON.stringify(valid).slice(1)}`,
    json(null).headers,
  ],
  [
    '4 questions',
    'POST',
    '/v1/asks',
    json({ ...valid, questions: [q, q, q, q].map((x, i) => ({ ...x, id: `q${i}` })) }).body,
    json(null).headers,
  ],
  [
    'a 10,000-character label',
    'POST',
    '/v1/asks',
    json({ ...valid, questions: [{ ...q, options: [{ label: 'L'.repeat(10_000) }, { label: 'b' }] }] }).body,
    json(null).headers,
  ],
  [
    'a 10,000-character question',
    'POST',
    '/v1/asks',
    json({ ...valid, questions: [{ ...q, question: 'Q'.repeat(10_000) }] }).body,
    json(null).headers,
  ],
  [
    'a 10,000-character description',
    'POST',
    '/v1/asks',
    json({
      ...valid,
      questions: [{ ...q, options: [{ label: 'a', description: 'd'.repeat(10_000) }, { label: 'b' }] }],
    }).body,
    json(null).headers,
  ],
  ['an unknown top-level field', 'POST', '/v1/asks', json({ ...valid, admin: true }).body, json(null).headers],
  [
    'an unknown question field',
    'POST',
    '/v1/asks',
    json({ ...valid, questions: [{ ...q, html: true }] }).body,
    json(null).headers,
  ],
  [
    'an unknown option field',
    'POST',
    '/v1/asks',
    json({ ...valid, questions: [{ ...q, options: [{ label: 'a', url: 'x' }, { label: 'b' }] }] }).body,
    json(null).headers,
  ],
  [
    'an unknown target field',
    'POST',
    '/v1/asks',
    json({ ...valid, to: { channel: 'test', chat: 'c', parse_mode: 'HTML' } }).body,
    json(null).headers,
  ],
  [
    'timeout NaN (bare)',
    'POST',
    '/v1/asks',
    JSON.stringify(valid).replace(/}$/, ',"timeoutSeconds":NaN}'),
    json(null).headers,
  ],
  ['timeout "NaN"', 'POST', '/v1/asks', json({ ...valid, timeoutSeconds: 'NaN' }).body, json(null).headers],
  ['timeout -60', 'POST', '/v1/asks', json({ ...valid, timeoutSeconds: -60 }).body, json(null).headers],
  ['timeout 0', 'POST', '/v1/asks', json({ ...valid, timeoutSeconds: 0 }).body, json(null).headers],
  ['timeout 90.5', 'POST', '/v1/asks', json({ ...valid, timeoutSeconds: 90.5 }).body, json(null).headers],
  [
    'timeout 1e309 (Infinity)',
    'POST',
    '/v1/asks',
    JSON.stringify(valid).replace(/}$/, ',"timeoutSeconds":1e309}'),
    json(null).headers,
  ],
  ['timeout "60"', 'POST', '/v1/asks', json({ ...valid, timeoutSeconds: '60' }).body, json(null).headers],
  ['wait=NaN', 'POST', '/v1/asks?wait=NaN', json(valid).body, json(null).headers],
  ['wait=-1', 'POST', '/v1/asks?wait=-1', json(valid).body, json(null).headers],
  ['wait beyond the maximum', 'POST', '/v1/asks?wait=100000', json(valid).body, json(null).headers],
  [
    'a 10,000-character Idempotency-Key',
    'POST',
    '/v1/asks',
    json(valid).body,
    { ...json(null).headers, 'idempotency-key': 'k'.repeat(10_000) },
  ],
  [
    'a channel that is not enabled',
    'POST',
    '/v1/asks',
    json({ ...valid, to: { channel: 'telegram', chat: '1' } }).body,
    json(null).headers,
  ],
  [
    'answer: 11 values',
    'POST',
    `/v1/asks/${'ANSWERID'}/answer`,
    json({ answers: { env: Array.from({ length: 11 }, (_, i) => `v${i}`) } }).body,
    json(null).headers,
  ],
  [
    'answer: a 4,001-character value',
    'POST',
    '/v1/asks/ANSWERID/answer',
    json({ answers: { env: ['x'.repeat(4001)] } }).body,
    json(null).headers,
  ],
  [
    'answer: answers and skip',
    'POST',
    '/v1/asks/ANSWERID/answer',
    json({ answers: { env: ['Staging'] }, skip: true }).body,
    json(null).headers,
  ],
  [
    'answer: an unknown field',
    'POST',
    '/v1/asks/ANSWERID/answer',
    json({ answers: { env: ['Staging'] }, by: 'me', as: 'admin' }).body,
    json(null).headers,
  ],
  [
    'answer: a label of no option for a question id that does not exist',
    'POST',
    '/v1/asks/ANSWERID/answer',
    json({ answers: { nope: ['Staging'] } }).body,
    json(null).headers,
  ],
  [
    'answer: invalid UTF-8',
    'POST',
    '/v1/asks/ANSWERID/answer',
    Buffer.concat([Buffer.from('{"answers":{"env":["'), Buffer.from([0xc3, 0x28]), Buffer.from('"]}}')]),
    json(null).headers,
  ],
  ['a 10,000-character ask id', 'GET', `/v1/asks/${'a'.repeat(10_000)}`, null, {}],
  ['a path-traversal ask id', 'GET', '/v1/asks/..%2F..%2Fetc%2Fpasswd', null, {}],
  ['a 200-character run id', 'GET', `/v1/runs/${'r'.repeat(200)}`, null, {}],
  ['a run id with a space', 'DELETE', '/v1/runs/a%20b', null, {}],
  ['a malformed percent-encoding', 'GET', '/v1/runs/%E0%A4%A', null, {}],
];

describe('oversized and malformed API input → 4xx with a JSON error, never 5xx, no state change', () => {
  it.each(bad)('%s', async (_name, method, path, body, headers) => {
    const before = await stateDigest();
    const res = await raw(method, path.replace('ANSWERID', existing.id), body, headers);
    expect(res.status, res.text.slice(0, 300)).toBeGreaterThanOrEqual(400);
    expect(res.status, res.text.slice(0, 300)).toBeLessThan(500);
    expect(res.type).toMatch(/^application\/json/);
    expect(JSON.parse(res.text)).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
    await new Promise((r) => setTimeout(r, 20));
    expect(await stateDigest()).toEqual(before);
  });

  it('a run id of the longest allowed length (128) works in the path as well as in the body', async () => {
    const runId = 'r'.repeat(128);
    expect((await raw('POST', '/v1/asks', json(askBody(runId)).body, json(null).headers)).status).toBe(201);
    const res = await raw('GET', `/v1/runs/${runId}`, null);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).current.runId).toBe(runId);
    expect((await raw('DELETE', `/v1/runs/${runId}`, null)).status).toBe(200);
  });

  it('the existing ask is still pending and answerable after all of it', async () => {
    const res = await raw(
      'POST',
      `/v1/asks/${existing.id}/answer`,
      json({ answers: { env: ['Staging'] } }).body,
      json(null).headers,
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).result).toMatchObject({ status: 'answered', answers: { env: ['Staging'] } });
  });
});

describe('bearer token: missing or invalid → the same 401 whether the ask or run exists or not', () => {
  const auths: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['a wrong token', { authorization: 'Bearer wrong-token-0123456789abc' }],
    ['the token in upper case', { authorization: `Bearer ${TOKEN.toUpperCase()}` }],
    ['the token with a suffix', { authorization: `Bearer ${TOKEN}x` }],
    ['a prefix of the token', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
    ['Basic auth with the token', { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` }],
    ['the token as a query parameter only', { 'x-query': '1' }],
  ];
  const targets = (id: string, run: string): [string, string, string | null][] => [
    ['GET', `/v1/asks/${id}`, null],
    ['GET', `/v1/asks/${id}?wait=1`, null],
    ['POST', `/v1/asks/${id}/answer`, JSON.stringify({ answers: { env: ['Production'] } })],
    ['POST', `/v1/asks/${id}/cancel`, '{}'],
    ['GET', `/v1/runs/${run}`, null],
    ['DELETE', `/v1/runs/${run}`, null],
  ];

  it.each(auths)('%s', async (_name, headers) => {
    const fresh = JSON.parse(
      (await raw('POST', '/v1/asks', json(askBody(`sec-auth-${Date.now()}`)).body, json(null).headers)).text,
    ) as { id: string; runId: string };
    const before = await stateDigest();
    const withAuth = (h: Record<string, string>) => ({
      ...h,
      ...(h.authorization === undefined ? { authorization: '' } : {}),
    });
    const seen = new Set<string>();
    const existingTargets = targets(fresh.id, fresh.runId);
    const unknownTargets = targets('Nx0000000000000', 'never-seen-run');
    const pairs = [
      ...existingTargets,
      ...unknownTargets,
      ['POST', '/v1/asks', json(valid).body] as const,
      ['GET', '/metrics', null] as const,
      ['GET', `/v1/asks?token=${TOKEN}`, null] as const,
    ];
    for (const [method, path, body] of pairs) {
      const url = headers['x-query'] ? `${path}${path.includes('?') ? '&' : '?'}token=${TOKEN}` : path;
      const res = await raw(method, url, body, { ...withAuth(headers), 'content-type': 'application/json' });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 401 });
      expect(res.headers['www-authenticate']).toBe('Bearer');
      seen.add(res.text);
    }
    // One body for all: nothing tells an existing ask or run from an unknown one.
    expect([...seen]).toEqual([
      JSON.stringify({ error: { code: 'unauthorized', message: 'missing or invalid bearer token' } }),
    ]);
    expect(await stateDigest()).toEqual(before);
  });

  it('the compare hashes first: tokens of any length are compared without throwing, only the exact one matches', () => {
    for (const presented of ['', 'x', TOKEN.slice(0, -1), `${TOKEN}x`, 'y'.repeat(10_000), TOKEN.toUpperCase()])
      expect(tokenMatches(presented, TOKEN)).toBe(false);
    expect(tokenMatches(undefined, TOKEN)).toBe(false);
    expect(tokenMatches(TOKEN, TOKEN)).toBe(true);
  });
});
