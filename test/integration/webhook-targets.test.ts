import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { lookup } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startAskgate, type RunningAskgate } from '../../src/main.js';
import { AskgateApiError, AskgateClient } from '../../src/client/index.js';
import { HttpWebhookSender, type ResolveHost } from '../../src/webhooks/http-sender.js';
import { HostAllowList } from '../../src/webhooks/allowed-hosts.js';
import type { Logger } from '../../src/core/ports.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { sleep } from '../helpers/wait.js';

// Where result webhooks may go (ASKGATE_WEBHOOK_ALLOWED_HOSTS) and what a refused target reveals.

const SECRET = 'whsec-targets-0123456789';
const PASSWORD = 's3cr3t-Pa55word';
const LOGIN = 'agent-login';
const REFUSED = 'webhook refused by ASKGATE_WEBHOOK_ALLOWED_HOSTS';

/** A TCP listener that counts connections and keeps what arrived (plain HTTP or a TLS hello). */
class Listener {
  connections = 0;
  readonly data: Buffer[] = [];
  private server!: TcpServer;
  port = 0;

  async start(): Promise<this> {
    this.server = createTcpServer((socket) => {
      this.connections++;
      socket.on('data', (chunk) => {
        this.data.push(chunk);
        socket.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** An HTTP receiver: `/redirect-<status>` redirects to `location`, anything else answers 204. */
class Receiver {
  readonly paths: string[] = [];
  location = '';
  private server!: HttpServer;
  port = 0;

  async start(): Promise<this> {
    this.server = createHttpServer((req, res) => {
      this.paths.push(req.url ?? '');
      req.resume();
      const redirect = /^\/redirect-(\d{3})$/.exec(req.url ?? '');
      if (redirect) res.writeHead(Number(redirect[1]), { location: this.location }).end();
      else res.writeHead(204).end();
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** A resolver with fixed answers (a public name that rebinds to loopback, metadata, ...), else the system's; counts calls. */
function fixedResolver(answers: Record<string, string[]>): ResolveHost & { calls: string[] } {
  const table = new Map(Object.entries(answers));
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const addresses = table.get(hostname.toLowerCase());
    if (!addresses) return lookup(hostname, { all: true });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

/** Every log line, to check no password is ever written. */
function recordingLogger(lines: string[]): Logger {
  const log = (level: string) => (obj: object, msg?: string) =>
    void lines.push(`${level} ${msg ?? ''} ${JSON.stringify(obj)}`);
  return { info: log('info'), warn: log('warn'), error: log('error') };
}

let redis: TestRedis;
let listener: Listener;
let receiver: Receiver;
const logs: string[] = [];
const resolver = fixedResolver({
  'rebind.example': ['127.0.0.1'],
  'metadata.example': ['169.254.169.254'],
  'v6rebind.example': ['::ffff:127.0.0.1'],
  'hooks.test': ['127.0.0.1'],
});
const apps: RunningAskgate[] = [];
let run = 0;

async function start(extra: Record<string, string>): Promise<{ app: RunningAskgate; api: ReturnType<typeof client> }> {
  const env = testEnv({
    REDIS_URL: redis.url,
    ASKGATE_WEBHOOK_SECRET: SECRET,
    ASKGATE_WEBHOOK_TIMEOUT_MS: '1000',
    ...extra,
  });
  const app = await startAskgate(loadConfig(env), {
    channels: [],
    logger: recordingLogger(logs),
    resolveWebhookHost: resolver,
  });
  apps.push(app);
  return { app, api: client(app.url) };
}

let external: Awaited<ReturnType<typeof start>>;
let loopback: Awaited<ReturnType<typeof start>>;
let pattern: Awaited<ReturnType<typeof start>>;

beforeAll(async () => {
  redis = await startRedis();
  listener = await new Listener().start();
  receiver = await new Receiver().start();
  external = await start({}); // the default: external
  loopback = await start({ ASKGATE_WEBHOOK_ALLOWED_HOSTS: 'loopback' });
  pattern = await start({ ASKGATE_WEBHOOK_ALLOWED_HOSTS: 'hooks.test' });
});

afterAll(async () => {
  for (const app of apps) await app.close();
  await listener?.close();
  await receiver?.close();
  await redis?.dispose();
});

const events = async (api: ReturnType<typeof client>, id: string) =>
  (await api.get(`/v1/asks/${id}/events`)).body.events as { type: string; detail?: string }[];
const webhookOutcome = (api: ReturnType<typeof client>, id: string) =>
  eventually(async () => (await events(api, id)).find((e) => e.type.startsWith('webhook_')));

describe('callbackUrl at creation, default ASKGATE_WEBHOOK_ALLOWED_HOSTS (external)', () => {
  const spellings = [
    'http://127.0.0.1/hook',
    'http://127.1/hook',
    'http://0x7f000001/hook',
    'http://0x7f.0.0.1/hook',
    'http://2130706433/hook',
    'http://0177.0.0.1/hook',
    'http://017700000001/',
    'http://%31%32%37.0.0.1/',
    'http://127\u30020\u30020\u30021/',
    'http://127.0.0.1:6379/',
    'http://localhost/hook',
    'http://LOCALHOST./hook',
    'http://hooks.localhost/',
    'http://[::1]/hook',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:7f00:1]/',
    'http://0.0.0.0/hook',
    'http://0/',
    'http://[::]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://[fc00::1]/',
    'http://[fe80::1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::]/',
    'https://127.0.0.1:8443/hook',
  ];

  it.each(spellings)(
    '%s → 400 invalid_request naming callbackUrl and the setting; no ask is created',
    async (callbackUrl) => {
      const runId = `ssrf-${++run}`;
      const res = await external.api.post('/v1/asks', askBody(runId, { callbackUrl }));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.issues).toEqual([
        {
          path: ['callbackUrl'],
          message: expect.stringMatching(
            /is an? (loopback|private|link-local|unspecified|reserved)[\w -]* (address|name).*ASKGATE_WEBHOOK_ALLOWED_HOSTS does not allow/,
          ),
        },
      ]);
      expect((await external.api.get(`/v1/runs/${runId}`)).status).toBe(404);
    },
  );

  it('public names and public addresses are accepted (names are checked again at connect time)', async () => {
    for (const callbackUrl of [
      'https://hooks.example.com/askgate',
      'http://93.184.216.34/hook',
      'http://[2606:4700::1111]/hook',
      'http://rebind.example/hook',
    ]) {
      expect((await external.api.post('/v1/asks', askBody(`ssrf-${++run}`, { callbackUrl }))).status, callbackUrl).toBe(
        201,
      );
    }
  });

  it.each([
    `https://${LOGIN}:${PASSWORD}@hooks.example.com/askgate`,
    `https://:${PASSWORD}@hooks.example.com/askgate`,
    `https://${PASSWORD}@hooks.example.com/askgate`,
    `http://${LOGIN}:${encodeURIComponent(PASSWORD + '@/:')}@93.184.216.34/hook`,
    `http://${LOGIN}:${PASSWORD}@127.0.0.1/hook`,
  ])('credentials in %s → 400, and the password is in no response nor log line', async (callbackUrl) => {
    const runId = `cred-${++run}`;
    const res = await external.api.post('/v1/asks', askBody(runId, { callbackUrl }));
    expect(res.status).toBe(400);
    expect(res.body.error.issues).toEqual([
      { path: ['callbackUrl'], message: expect.stringContaining('must not contain credentials') },
    ]);
    expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    expect(JSON.stringify(res.body)).not.toContain(LOGIN);
    expect((await external.api.get(`/v1/runs/${runId}`)).status).toBe(404);
    const sdk = new AskgateClient({ url: external.app.url });
    const error = await sdk.create(askBody(`cred-${++run}`, { callbackUrl }) as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AskgateApiError);
    expect(`${(error as Error).message} ${JSON.stringify(error)}`).not.toMatch(new RegExp(`${PASSWORD}|${LOGIN}`));
    expect(logs.join('\n')).not.toMatch(new RegExp(`${PASSWORD}|${LOGIN}`));
  });
});

describe('at connect time: the resolved address, not the name', () => {
  it('DNS rebinding: a name resolving to 127.0.0.1 is never connected to; the event says refused and nothing else', async () => {
    const connections = listener.connections;
    const calls = resolver.calls.length;
    const { body: ask } = await external.api.post(
      '/v1/asks',
      askBody(`rebind-${++run}`, { callbackUrl: `http://rebind.example:${listener.port}/hook` }),
    );
    expect(ask.id).toBeDefined();
    await external.api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Staging'] } });
    expect(await webhookOutcome(external.api, ask.id)).toMatchObject({ type: 'webhook_failed', detail: REFUSED });
    await sleep(300);
    expect(listener.connections).toBe(connections);
    expect(resolver.calls.slice(calls)).toEqual(['rebind.example']); // permanent: no retries
  });

  it('the same refusal whether the port is open or closed, and for metadata, IPv4-mapped loopback and https (no port scan)', async () => {
    const closed = listener.port === 1 ? 2 : 1;
    const connections = listener.connections;
    const urls = [
      `http://rebind.example:${listener.port}/`,
      `http://rebind.example:${closed}/`,
      `http://rebind.example:${redis.port}/`,
      'http://metadata.example/latest/meta-data/',
      `http://v6rebind.example:${listener.port}/`,
      `https://rebind.example:${listener.port}/`,
    ];
    const asks = [];
    for (const callbackUrl of urls)
      asks.push((await external.api.post('/v1/asks', askBody(`rebind-${++run}`, { callbackUrl }))).body);
    for (const ask of asks) await external.api.post(`/v1/asks/${ask.id}/cancel`);
    for (const ask of asks)
      expect(await webhookOutcome(external.api, ask.id)).toEqual(
        expect.objectContaining({ type: 'webhook_failed', detail: REFUSED }),
      );
    expect(listener.connections).toBe(connections);
  });

  it('a name matching a host pattern is reached; a redirect (to a loopback URL) is not followed', async () => {
    const stolen = receiver.paths.length;
    receiver.location = `http://127.0.0.1:${listener.port}/stolen`;
    const connections = listener.connections;
    for (const status of [301, 302, 307, 308]) {
      const { body: ask } = await pattern.api.post(
        '/v1/asks',
        askBody(`redir-${++run}`, { callbackUrl: `http://hooks.test:${receiver.port}/redirect-${status}` }),
      );
      await pattern.api.post(`/v1/asks/${ask.id}/cancel`);
      expect(await webhookOutcome(pattern.api, ask.id)).toMatchObject({
        type: 'webhook_failed',
        detail: `webhook answered HTTP ${status}`,
      });
    }
    expect(receiver.paths.slice(stolen)).toEqual(['/redirect-301', '/redirect-302', '/redirect-307', '/redirect-308']);
    expect(listener.connections).toBe(connections);
    // The pattern names a host, not the addresses: a literal loopback URL stays refused.
    expect(
      (
        await pattern.api.post(
          '/v1/asks',
          askBody(`redir-${++run}`, { callbackUrl: `http://127.0.0.1:${receiver.port}/` }),
        )
      ).status,
    ).toBe(400);
  });
});

describe('ASKGATE_WEBHOOK_ALLOWED_HOSTS=loopback', () => {
  it('delivers to a local listener by address and by the name localhost', async () => {
    for (const host of ['127.0.0.1', '127.1', 'localhost']) {
      const path = `/lo-${++run}`;
      const { body: ask } = await loopback.api.post(
        '/v1/asks',
        askBody(`lo-${run}`, { callbackUrl: `http://${host}:${receiver.port}${path}` }),
      );
      await loopback.api.post(`/v1/asks/${ask.id}/answer`, { skip: true });
      expect(await webhookOutcome(loopback.api, ask.id)).toMatchObject({
        type: 'webhook_delivered',
        detail: 'HTTP 204',
      });
      expect(receiver.paths).toContain(path);
    }
  });

  it('still refuses private and link-local targets, literally and after resolution', async () => {
    for (const callbackUrl of ['http://10.0.0.1/', 'http://169.254.169.254/', 'http://0.0.0.0/', 'http://8.8.8.8/']) {
      expect((await loopback.api.post('/v1/asks', askBody(`lo-${++run}`, { callbackUrl }))).status, callbackUrl).toBe(
        400,
      );
    }
    const { body: ask } = await loopback.api.post(
      '/v1/asks',
      askBody(`lo-${++run}`, { callbackUrl: 'http://metadata.example/' }),
    );
    await loopback.api.post(`/v1/asks/${ask.id}/cancel`);
    expect(await webhookOutcome(loopback.api, ask.id)).toMatchObject({ type: 'webhook_failed', detail: REFUSED });
  });
});

describe('HttpWebhookSender refuses by itself (records written before the check)', () => {
  const payload = {
    askId: 'a',
    runId: 'r',
    version: 1,
    result: { status: 'no_answer' as const, reason: 'timeout' as const, at: 'x' },
  };

  it('credentials, non-http schemes and refused literals are permanent failures that echo nothing', async () => {
    const sender = new HttpWebhookSender({ secret: SECRET, timeoutMs: 500 });
    const connections = listener.connections;
    for (const url of [
      `http://${LOGIN}:${PASSWORD}@93.184.216.34/`,
      'ftp://93.184.216.34/',
      `http://127.0.0.1:${listener.port}/`,
      `http://[::ffff:127.0.0.1]:${listener.port}/`,
      `http://localhost:${listener.port}/`,
      'not a url',
    ]) {
      const error = await sender.send(url, payload).catch((e: unknown) => e as Error & { permanent: boolean });
      expect(error, url).toMatchObject({ name: 'ChannelError', permanent: true });
      expect((error as Error).message).not.toMatch(new RegExp(`${PASSWORD}|${LOGIN}|127\\.0\\.0\\.1|${listener.port}`));
    }
    expect(listener.connections).toBe(connections);
  });

  it('with loopback allowed, https goes through the same filtered lookup (a TLS hello reaches the listener)', async () => {
    const sender = new HttpWebhookSender({
      secret: SECRET,
      timeoutMs: 500,
      allowedHosts: HostAllowList.parse('loopback'),
      resolve: resolver,
    });
    const connections = listener.connections;
    await expect(sender.send(`https://rebind.example:${listener.port}/`, payload)).rejects.toMatchObject({
      permanent: false,
    });
    expect(listener.connections).toBe(connections + 1);
    const refusing = new HttpWebhookSender({ secret: SECRET, timeoutMs: 500, resolve: resolver });
    await expect(refusing.send(`https://rebind.example:${listener.port}/`, payload)).rejects.toMatchObject({
      permanent: true,
      message: REFUSED,
    });
    expect(listener.connections).toBe(connections + 1);
  });
});
