import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { WebhookPayloadSchema, signWebhook, verifyWebhook } from '../../src/client/index.js';
import { HttpWebhookSender } from '../../src/webhooks/http-sender.js';
import { HostAllowList } from '../../src/webhooks/allowed-hosts.js';
import { assemble } from '../../src/app/assemble.js';
import type { RunningAskgate } from '../../src/main.js';

const SECRET = 'whsec-test-0123456789abcdef';

/** One POST the receiver got: headers and the exact raw body. */
interface Received {
  path: string;
  timestamp: string;
  signature: string;
  raw: Buffer;
  status: number;
}

/** A webhook receiver: answers each path with scripted statuses (then 200) and records every attempt. */
class Receiver {
  readonly received: Received[] = [];
  private readonly scripts = new Map<string, (number | 'hang')[]>();
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.onRequest(req, res));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The next requests to `path` get these statuses ('hang' never answers). */
  script(path: string, ...statuses: (number | 'hang')[]): string {
    this.scripts.set(path, statuses);
    return `${this.url}${path}`;
  }

  /** Attempts that verify with the secret and were answered 2xx. */
  verified(path: string): Received[] {
    return this.received.filter(
      (r) => r.path === path && r.status < 300 && verifyWebhook(SECRET, r.timestamp, r.raw, r.signature),
    );
  }

  private async onRequest(req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = req.url ?? '/';
    const next = this.scripts.get(path)?.shift() ?? 200;
    if (next === 'hang') return;
    this.received.push({
      path,
      timestamp: String(req.headers['x-askgate-timestamp']),
      signature: String(req.headers['x-askgate-signature']),
      raw: Buffer.concat(chunks),
      status: next,
    });
    res.writeHead(next, { 'content-type': 'text/plain', ...(path === '/s-busy' && { 'retry-after': '7' }) }).end('ok');
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

let redis: TestRedis;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let receiver: Receiver;
let run = 0;

beforeAll(async () => {
  redis = await startRedis();
  receiver = await new Receiver().start();
  app = await startTestApp(
    testEnv({
      REDIS_URL: redis.url,
      ASKGATE_WEBHOOK_SECRET: SECRET,
      ASKGATE_WEBHOOK_TIMEOUT_MS: '300',
      ASKGATE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
    }),
  );
  api = client(app.url);
});

afterAll(async () => {
  await app?.close();
  await receiver?.close();
  await redis?.dispose();
});

const history = async (id: string) =>
  (await api.get(`/v1/asks/${id}/events`)).body.events as { type: string; detail?: string }[];

describe('signed webhooks', () => {
  it('exactly one verified delivery per ask, even when the first attempts fail with 500s', async () => {
    const url = receiver.script('/answered', 500, 500, 503);
    const { body: ask } = await api.post('/v1/asks', askBody(`wh-${++run}`, { callbackUrl: url }));
    expect(ask.callbackUrl).toBe(url);
    await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Production'] }, by: 'carol' });
    await eventually(async () => (await history(ask.id)).some((h) => h.type === 'webhook_delivered'));
    await new Promise((r) => setTimeout(r, 1000)); // the reconciler sweeps every 100 ms: no second delivery
    const attempts = receiver.received.filter((r) => r.path === '/answered');
    expect(attempts.map((a) => a.status)).toEqual([500, 500, 503, 200]);
    const [delivery] = receiver.verified('/answered');
    expect(receiver.verified('/answered')).toHaveLength(1);
    const payload = WebhookPayloadSchema.parse(JSON.parse(delivery!.raw.toString()));
    expect(payload).toEqual({
      askId: ask.id,
      runId: ask.runId,
      version: 1,
      result: (await api.get(`/v1/asks/${ask.id}`)).body.result,
    });
    expect(payload.result).toMatchObject({
      status: 'answered',
      answers: { env: ['Production'] },
      answeredBy: { userId: 'carol' },
    });
    expect((await history(ask.id)).filter((h) => h.type.startsWith('webhook_'))).toEqual([
      expect.objectContaining({ type: 'webhook_delivered', detail: 'HTTP 200' }),
    ]);
  });

  it('every terminal outcome is delivered once: cancelled, timeout, superseded; a hung receiver is retried after the timeout', async () => {
    const cancelled = await api.post(
      '/v1/asks',
      askBody(`wh-${++run}`, { callbackUrl: receiver.script('/cancelled', 'hang') }),
    );
    await api.post(`/v1/asks/${cancelled.body.id}/cancel`);
    const timedOut = await api.post(
      '/v1/asks',
      askBody(`wh-${++run}`, { timeoutSeconds: 1, callbackUrl: receiver.script('/timeout') }),
    );
    const runId = `wh-${++run}`;
    const first = await api.post('/v1/asks', askBody(runId, { callbackUrl: receiver.script('/superseded') }));
    await api.post('/v1/asks', askBody(runId));
    const expected: [string, string, unknown][] = [
      ['/cancelled', cancelled.body.id, { status: 'no_answer', reason: 'cancelled' }],
      ['/timeout', timedOut.body.id, { status: 'no_answer', reason: 'timeout' }],
      ['/superseded', first.body.id, { status: 'no_answer', reason: 'superseded' }],
    ];
    for (const [path, askId, result] of expected) {
      await eventually(async () => receiver.verified(path).length === 1, 10_000);
      expect(JSON.parse(receiver.verified(path)[0]!.raw.toString())).toMatchObject({ askId, result });
    }
    await new Promise((r) => setTimeout(r, 600));
    for (const [path] of expected) expect(receiver.verified(path)).toHaveLength(1);
  });

  it('a webhook lost between the commit and its enqueue (a crash) is sent by the reconciler', async () => {
    const url = receiver.script('/crash');
    const { body: ask } = await api.post('/v1/asks', askBody(`wh-${++run}`, { callbackUrl: url }));
    // This gateway commits the answer but "crashes" before its outbox work reaches the queue.
    const lost = assemble({
      ...app.ports,
      outbox: { enqueue: async () => {}, start: async () => {}, close: async () => {} },
    }).gateway;
    await lost.answer(ask.id, { answers: { env: ['Staging'] }, by: 'ops' }, { channel: 'api', userId: 'ops' });
    await eventually(async () => receiver.verified('/crash').length === 1, 10_000);
    expect(JSON.parse(receiver.verified('/crash')[0]!.raw.toString())).toMatchObject({
      askId: ask.id,
      result: { status: 'answered' },
    });
  });

  it('a 4xx other than 408/429 is permanent: one attempt, webhook_failed in the history', async () => {
    const url = receiver.script('/gone', 410);
    const { body: ask } = await api.post('/v1/asks', askBody(`wh-${++run}`, { callbackUrl: url }));
    await api.post(`/v1/asks/${ask.id}/answer`, { skip: true });
    const failed = await eventually(async () => (await history(ask.id)).find((h) => h.type === 'webhook_failed'));
    expect(failed.detail).toBe('webhook answered HTTP 410');
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received.filter((r) => r.path === '/gone')).toHaveLength(1);
  });

  it('refuses asks with a callbackUrl when no secret is configured', async () => {
    const bare = await startTestApp(testEnv());
    try {
      const res = await client(bare.url).post(
        '/v1/asks',
        askBody('wh-nosecret', { callbackUrl: 'http://127.0.0.1:9/hook' }),
      );
      expect(res.status).toBe(400);
      expect(res.body.error.issues).toEqual([
        { path: ['callbackUrl'], message: expect.stringContaining('ASKGATE_WEBHOOK_SECRET') },
      ]);
    } finally {
      await bare.close();
    }
  });
});

describe('verifyWebhook (the documented check)', () => {
  const body = JSON.stringify({
    askId: 'a',
    runId: 'r',
    version: 1,
    result: { status: 'no_answer', reason: 'timeout', at: '2026-01-01T00:00:00.000Z' },
  });
  const now = 1_800_000_000;
  const signature = signWebhook(SECRET, now, body);

  it('accepts the exact body, timestamp and signature', () => {
    expect(signature).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(verifyWebhook(SECRET, String(now), body, signature, 300, now + 10)).toBe(true);
    expect(verifyWebhook(SECRET, String(now), Buffer.from(body), `v1=${'0'.repeat(64)}, ${signature}`, 300, now)).toBe(
      true,
    );
  });

  it.each([
    ['a tampered body', SECRET, String(now), body.replace('timeout', 'skipped'), signature, now],
    [
      'a tampered signature',
      SECRET,
      String(now),
      body,
      signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0'),
      now,
    ],
    ['another secret', 'another-secret-0123456789', String(now), body, signature, now],
    ['a shifted timestamp', SECRET, String(now + 1), body, signature, now],
    ['an old timestamp (replay)', SECRET, String(now), body, signature, now + 301],
    ['a missing signature', SECRET, String(now), body, undefined, now],
    ['a malformed timestamp', SECRET, 'yesterday', body, signature, now],
  ])('rejects %s', (_what, secret, timestamp, raw, sig, at) => {
    expect(verifyWebhook(secret, timestamp, raw, sig, 300, at)).toBe(false);
  });
});

describe('HttpWebhookSender', () => {
  it('classifies statuses: 2xx ok, 408/429/5xx retried (Retry-After honoured), other 4xx permanent, network errors retried', async () => {
    const sender = new HttpWebhookSender({
      secret: SECRET,
      timeoutMs: 300,
      allowedHosts: HostAllowList.parse('loopback'),
    });
    const payload = {
      askId: 'a',
      runId: 'r',
      version: 1,
      result: { status: 'no_answer' as const, reason: 'timeout' as const, at: 'x' },
    };
    expect(await sender.send(receiver.script('/s-ok', 204), payload)).toEqual({ status: 204 });
    await expect(sender.send(receiver.script('/s-429', 429), payload)).rejects.toMatchObject({
      name: 'ChannelError',
      permanent: false,
    });
    await expect(sender.send(receiver.script('/s-408', 408), payload)).rejects.toMatchObject({ permanent: false });
    await expect(sender.send(receiver.script('/s-400', 400), payload)).rejects.toMatchObject({ permanent: true });
    await expect(sender.send(receiver.script('/s-hang', 'hang'), payload)).rejects.toMatchObject({
      permanent: false,
      message: expect.stringContaining('300 ms'),
    });
    await expect(sender.send('http://127.0.0.1:1/x', payload)).rejects.toMatchObject({
      permanent: false,
      message: expect.not.stringContaining('127.0.0.1'),
    });
    await expect(sender.send(receiver.script('/s-busy', 503), payload)).rejects.toMatchObject({
      permanent: false,
      retryAfterMs: 7000,
    });
  });
});
