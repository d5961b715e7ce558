import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import { createLogger } from '../../src/logger.js';
import { mintAnswerToken } from '../../src/links/answer-token.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { AskgateApiError, AskgateClient } from '../../src/client/index.js';

// The answer page (issue 38) against a real Redis: a GET never records (a scanner changes nothing),
// a POST needs the anti-forgery value, answers through the API's path (first valid answer wins,
// the ask's checks, the outcome edited on the chat message), and the token never reaches a log.

const TOKEN = 'answer-page-api-token-0123456789';
const SECRET = 'answer-page-link-secret-0123456789abcdef';
const PUBLIC = 'https://askgate.example.com';

let redis: TestRedis;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
const channel = new RecordingChannel('test');
const logLines: string[] = [];

beforeAll(async () => {
  redis = await startRedis();
  app = await startTestApp(
    testEnv({
      REDIS_URL: redis.url,
      ASKGATE_API_TOKEN: TOKEN,
      HOST: '127.0.0.1',
      ASKGATE_PUBLIC_URL: PUBLIC,
      ASKGATE_LINK_SECRET: SECRET,
    }),
    [channel],
    { logger: createLogger('debug', (line) => void logLines.push(line)) },
  );
  api = client(app.url, TOKEN);
}, 30_000);

afterAll(async () => {
  await app?.close();
  await redis?.dispose();
});

let runs = 0;
async function newAsk(extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api.post(
    '/v1/asks',
    askBody(`page-${++runs}`, { to: { channel: 'test', chat: 'c1' }, timeoutSeconds: 600, ...extra }),
  );
  expect(res.status).toBe(201);
  await eventually(async () => channel.delivered.some((d) => d.askId === res.body.id));
  return res.body.id as string;
}

async function linkFor(id: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await api.post(`/v1/asks/${id}/links`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.url.startsWith(`${PUBLIC}/a/`)).toBe(true);
  return res.body.url as string;
}

/** The link's path on the running server (the public URL is a proxy's). */
const local = (url: string) => app.url + url.slice(PUBLIC.length);

async function page(url: string, init: RequestInit = {}) {
  const res = await fetch(local(url), { redirect: 'manual', ...init });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

const guardOf = (html: string) => /name="guard" value="([^"]+)"/.exec(html)![1]!;

async function post(url: string, fields: Record<string, string | string[]>) {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) form.append(k, one);
  return page(url, {
    method: 'POST',
    body: form.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

const stored = async (id: string) => (await app.store.get(id))!;

describe('links API', () => {
  it('mints a link for anyone ({}), expiring with the ask, and refuses without the bearer token', async () => {
    const id = await newAsk();
    const res = await api.post(`/v1/asks/${id}/links`, {});
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['expiresAt', 'url']);
    expect(Date.parse(res.body.expiresAt)).toBeLessThanOrEqual(Date.parse((await stored(id)).expiresAt));
    expect(Date.parse(res.body.expiresAt)).toBeGreaterThan(Date.parse((await stored(id)).expiresAt) - 1000);
    expect((await client(app.url).post(`/v1/asks/${id}/links`, {})).status).toBe(401);
    const option = await api.post(`/v1/asks/${id}/links`, { option: 2 });
    expect(option.body.url).toMatch(/\?option=2$/);
  });

  it('an ask that names users: {} is refused (409 link_needs_recipient); a named user gets one; another person does not', async () => {
    const id = await newAsk({ to: { channel: 'test', chat: 'c1', users: ['alice'] } });
    const anyone = await api.post(`/v1/asks/${id}/links`, {});
    expect(anyone.status).toBe(409);
    expect(anyone.body.error.code).toBe('link_needs_recipient');
    await linkFor(id, { to: { channel: 'test', chat: 'c1', users: ['alice'] } });
    const bob = await api.post(`/v1/asks/${id}/links`, { to: { channel: 'test', chat: 'c1', users: ['bob'] } });
    expect(bob.status).toBe(403);
    const two = await api.post(`/v1/asks/${id}/links`, { to: { channel: 'test', chat: 'c1', users: ['a', 'b'] } });
    expect(two.status).toBe(400);
  });

  it('a bad link request is a 400 naming the field, and gives no link', async () => {
    const id = await newAsk();
    for (const [body, field] of [
      [{ option: 9 }, 'option'],
      [{ option: 'two' }, 'option'],
      [{ to: 'alice' }, 'to'],
      [{ recipient: 'anyone' }, 'recipient'],
    ] as const) {
      const res = await api.post(`/v1/asks/${id}/links`, body);
      expect([field, res.status, res.body.url]).toEqual([field, 400, undefined]);
      expect(JSON.stringify(res.body.error)).toContain(field);
    }
  });

  it('the SDK asks for a link with client.answerLink, and gets the API refusals as AskgateApiError', async () => {
    const sdk = new AskgateClient({ url: app.url, token: TOKEN });
    const id = await newAsk({ to: { channel: 'test', chat: 'c1', users: ['alice'] } });
    const link = await sdk.answerLink(id, { to: { channel: 'test', chat: 'c1', users: ['alice'] }, option: 1 });
    expect(link.url).toMatch(new RegExp(`^${PUBLIC}/a/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\?option=1$`));
    expect(Date.parse(link.expiresAt)).toBeGreaterThan(Date.now());
    const refused = await sdk.answerLink(id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AskgateApiError);
    expect((refused as AskgateApiError).code).toBe('link_needs_recipient');
  });

  it('an ended ask: 409; an unknown ask: 404', async () => {
    const id = await newAsk();
    await api.post(`/v1/asks/${id}/cancel`);
    expect((await api.post(`/v1/asks/${id}/links`, {})).status).toBe(409);
    expect((await api.post('/v1/asks/AAAAAAAAAAAAAA/links', {})).status).toBe(404);
  });
});

describe('GET /a/:token shows and never records', () => {
  it('a scanner fetching every link (options included, HEAD too) leaves the ask pending with no history entry', async () => {
    const id = await newAsk();
    const url = await linkFor(id);
    const before = await stored(id);
    for (const u of [url, `${url}?option=1`, `${url}?option=2`, `${url}?option=4`, `${url}?option=x`]) {
      const res = await page(u);
      expect(res.status).toBe(200);
      expect(res.html).toContain('Where should I deploy?');
    }
    expect((await page(url, { method: 'HEAD' })).status).toBe(200);
    const after = await stored(id);
    expect(after.status).toBe('pending');
    expect(after.rev).toBe(before.rev);
    expect(after.history).toEqual(before.history);
  });

  it('sets the security headers and a strict CSP; ?option=N preselects that option', async () => {
    const url = await linkFor(await newAsk());
    const res = await page(`${url}?option=2`);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/form-action 'self'/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).toMatch(/base-uri 'none'/);
    expect(csp).not.toMatch(/script-src|unsafe-inline/);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.html).not.toMatch(/<script|https?:\/\/(?!askgate)/);
    expect(res.html).toMatch(/value="1" checked/);
    expect(res.html).not.toMatch(/value="0" checked/);
    expect(res.html).toContain('You chose an option from the link');
    // An option the question does not have preselects nothing and says nothing about it.
    const beyond = await page(`${url}?option=3`);
    expect(beyond.html).not.toMatch(/checked/);
    expect(beyond.html).not.toContain('You chose an option');
  });

  it('escapes everything an agent wrote', async () => {
    const id = await newAsk({
      questions: [
        {
          id: 'q',
          question: 'Pick <script>alert(1)</script> & "quote"',
          options: [{ label: '<b>bold</b>' }, { label: 'plain', description: '<img src=x onerror=alert(1)>' }],
        },
      ],
    });
    const { html } = await page(await linkFor(id));
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>bold');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quote&quot;');
  });

  it('a forged, altered or expired token gets the same plain "not valid" page', async () => {
    const id = await newAsk();
    const url = await linkFor(id);
    const expired = mintAnswerToken({ askId: id, recipient: 'anyone', expiresAt: new Date(Date.now() - 1000) }, SECRET);
    const forged = mintAnswerToken(
      { askId: id, recipient: 'anyone', expiresAt: new Date(Date.now() + 60_000) },
      'another-secret-0123456789abcdefghijklmn',
    );
    const altered = url.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    for (const u of [`${PUBLIC}/a/${expired}`, `${PUBLIC}/a/${forged}`, altered, `${PUBLIC}/a/nonsense`]) {
      const res = await page(u);
      expect(res.status).toBe(404);
      expect(res.html).toContain('This link is not valid');
      expect(res.html).not.toContain('Where should I deploy');
    }
  });
});

describe('POST /a/:token answers through the API path', () => {
  it('without or with a wrong anti-forgery value: 403 and nothing recorded', async () => {
    const id = await newAsk();
    const url = await linkFor(id);
    const before = await stored(id);
    expect((await post(url, { c0: '0' })).status).toBe(403);
    expect((await post(url, { c0: '0', guard: 'x'.repeat(43) })).status).toBe(403);
    const other = await linkFor(await newAsk());
    expect((await post(url, { c0: '0', guard: guardOf((await page(other)).html) })).status).toBe(403);
    const after = await stored(id);
    expect(after.status).toBe('pending');
    expect(after.rev).toBe(before.rev);
  });

  it('answers, edits the chat message with the outcome, and a replayed POST gets the "already answered" page', async () => {
    const id = await newAsk();
    const url = await linkFor(id);
    const guard = guardOf((await page(url)).html);
    const answered = await post(url, { guard, c0: '1' });
    expect(answered.status).toBe(200);
    expect(answered.html).toContain('Production');
    const record = await stored(id);
    expect(record.result).toMatchObject({ status: 'answered', answers: { env: ['Production'] } });
    expect(record.result?.status === 'answered' && record.result.answeredBy).toEqual({
      channel: 'link',
      userId: 'link',
    });
    // The outcome names the page, not the recorded id ("by link").
    const sentRef = record.deliveries[0]!.message!;
    const final = await eventually(async () =>
      channel.finalized.find((f) => f.ref.chat === sentRef.chat && f.ref.messageId === sentRef.messageId),
    );
    expect(final.outcome.text).toBe('Answered: Production — on the answer page');
    const replay = await post(url, { guard, c0: '0' });
    expect(replay.status).toBe(409);
    expect(replay.html).toContain('already answered');
    expect((await stored(id)).result).toEqual(record.result);
    // After the ask ended the page shows the outcome, not an error.
    const after = await page(url);
    expect(after.status).toBe(200);
    expect(after.html).toContain('This question is closed');
    expect(after.html).toContain('Production');
  });

  it('a link for bob on an ask only alice may answer is refused; alice answers as herself', async () => {
    const id = await newAsk({ to: { channel: 'test', chat: 'c1', users: ['alice'] } });
    const bob = `${PUBLIC}/a/${mintAnswerToken(
      { askId: id, recipient: { channel: 'test', userId: 'bob' }, expiresAt: new Date(Date.now() + 60_000) },
      SECRET,
    )}`;
    const refused = await post(bob, { guard: guardOf((await page(bob)).html), c0: '0' });
    expect(refused.status).toBe(403);
    expect((await stored(id)).status).toBe('pending');
    const alice = await linkFor(id, { to: { channel: 'test', chat: 'c1', users: ['alice'] } });
    expect((await page(alice)).html).toContain('Answering as alice');
    expect((await post(alice, { guard: guardOf((await page(alice)).html), c0: '0' })).status).toBe(200);
    const result = (await stored(id)).result;
    expect(result?.status === 'answered' && result.answeredBy).toEqual({ channel: 'test', userId: 'alice' });
  });

  it('a refused typed value is shown beside its field with what was typed; then a fixed one answers', async () => {
    const id = await newAsk({
      questions: [{ id: 'n', question: 'How many replicas?', kind: 'number', min: 1, max: 9, integer: true }],
    });
    const url = await linkFor(id);
    const guard = guardOf((await page(url)).html);
    const refused = await post(url, { guard, o0: '42' });
    expect(refused.status).toBe(400);
    expect(refused.html).toMatch(/class="problem" id="p0"/);
    expect(refused.html).toContain('value="42"');
    expect((await stored(id)).status).toBe('pending');
    expect((await post(url, { guard, o0: '3' })).status).toBe(200);
    expect((await stored(id)).result).toMatchObject({ answers: { n: ['3'] } });
  });

  it('first valid answer wins against a concurrent API answer', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await newAsk();
      const url = await linkFor(id);
      const guard = guardOf((await page(url)).html);
      const [viaPage, viaApi] = await Promise.all([
        post(url, { guard, c0: '0' }),
        api.post(`/v1/asks/${id}/answer`, { answers: { env: ['Production'] } }),
      ]);
      const winners = [viaPage.status === 200, viaApi.status === 200].filter(Boolean).length;
      expect(winners).toBe(1);
      const result = (await stored(id)).result!;
      expect(result.status).toBe('answered');
      if (viaPage.status === 200) expect(viaApi.status).toBe(409);
      else expect(viaPage.html).toContain('already answered');
    }
  });

  it('an approval: reject without a reason is refused, with one it ends the ask', async () => {
    const res = await api.post('/v1/asks', {
      runId: `page-approval-${++runs}`,
      to: { channel: 'test', chat: 'c1' },
      timeoutSeconds: 600,
      approval: { action: 'deploy', arguments: { env: 'prod', replicas: 3 }, summary: 'Deploy to prod' },
    });
    expect(res.status).toBe(201);
    const id = res.body.id as string;
    const url = await linkFor(id);
    const { html } = await page(url);
    expect(html).toContain('Deploy to prod');
    expect(html).toContain('replicas: 3');
    expect(html).toContain((await stored(id)).approval!.actionHash);
    const guard = guardOf(html);
    const noReason = await post(url, { guard, decision: 'reject', reason: ' ' });
    expect(noReason.status).toBe(400);
    expect((await stored(id)).status).toBe('pending');
    const rejected = await post(url, { guard, decision: 'reject', reason: 'not today' });
    expect(rejected.status).toBe(200);
    expect((await stored(id)).result).toMatchObject({ status: 'answered', decision: 'reject' });
    expect(rejected.html).not.toContain('not today');
  });
});

describe('the token never reaches a log', () => {
  it('failing requests to /a/<token> log nothing that holds it', async () => {
    const id = await newAsk();
    const url = await linkFor(id);
    const token = url.slice(`${PUBLIC}/a/`.length);
    const from = logLines.length;
    const guard = guardOf((await page(url)).html);
    await post(url, { guard: 'wrong' });
    await page(url, {
      method: 'POST',
      body: 'x'.repeat(70_000),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    await page(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    await page(`${url}%`);
    await page(url, {
      method: 'POST',
      body: `guard=${guard}&c0=%E0%A4%A`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    // The store down: the page answers 503 and logs the failure, without the URL.
    await redis.stop();
    try {
      expect((await page(url)).status).toBe(503);
      expect((await post(url, { guard, c0: '0' })).status).toBe(503);
    } finally {
      await redis.restart();
    }
    await eventually(async () => (await page(url)).status !== 503, 15_000, 200);
    const lines = logLines.slice(from).join('\n');
    expect(lines).toContain('answer page failed');
    expect(lines).not.toContain(token);
    expect(lines).not.toContain(token.split('.')[1]!);
  });
});
