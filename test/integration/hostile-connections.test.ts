import { execSync } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { startAskgateProcess, type AskgateProcess } from '../helpers/askgate-process.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { sendRaw } from '../helpers/raw-target.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import type { InboundRoute } from '../../src/core/ports.js';

// Clients that hold connections: a request whose body never finishes is cut by the request
// timeout, a refused request loses its connection, and beyond the connection cap requests get a
// clear 503 while /healthz and /readyz still answer. Every socket here is bounded in count, on
// loopback, and closed in afterEach/afterAll.

const TOKEN = 'hostile-connections-token-0123';

/** The test channel with a signed webhook route, as a chat platform adds (public: no token). */
class HookChannel extends RecordingChannel {
  routes(): InboundRoute[] {
    return [{ method: 'POST', path: '/hooks/test', handle: async () => ({ status: 200, body: 'ok' }) }];
  }
}

/** A raw connection that sent a request's headers and the first byte of a longer body. */
interface Held {
  socket: Socket;
  /** What the server wrote back. */
  received(): string;
  /** False once the server closed the connection (the test ends it only in its cleanup). */
  isOpen(): boolean;
}

const sockets = new Set<Socket>();

/** Opens a connection, sends `head` (request line and headers; none when empty) and `body`, and keeps it open. */
function hold(port: number, head: string, body = '{'): Promise<Held> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    sockets.add(socket);
    let text = '';
    let open = true;
    socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
    socket.on('error', () => {});
    // The server's FIN (or RST): this side never ends the connection before the test's cleanup.
    socket.on('end', () => (open = false));
    socket.on('close', () => {
      sockets.delete(socket);
      open = false;
    });
    const held = { socket, received: () => text, isOpen: () => open };
    socket.once('connect', () =>
      head === '' ? resolve(held) : socket.write(`${head}\r\n\r\n${body}`, () => resolve(held)),
    );
    socket.once('error', reject);
  });
}

/** Opens `count` held connections, `batch` at a time. */
async function holdMany(count: number, open: (i: number) => Promise<Held>, batch = 200): Promise<Held[]> {
  const all: Held[] = [];
  for (let i = 0; i < count; i += batch)
    all.push(...(await Promise.all(Array.from({ length: Math.min(batch, count - i) }, (_, k) => open(i + k)))));
  return all;
}

/** Waits (bounded) until the server closed every one of `held`. */
const allClosed = (held: Held[], ms = 20_000) => eventually(async () => held.every((h) => !h.isOpen()), ms, 100);

const destroyAll = () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
};

const head = (method: string, path: string, port: number, headers: Record<string, string>) =>
  [
    `${method} ${path} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ].join('\r\n');

/** Connections this test process may open: two descriptors each (client and server side), leaving room. */
const affordable = (wanted: number) => {
  const limit = Number(execSync('ulimit -n', { shell: '/bin/sh' }).toString()) || 1024;
  return Math.max(100, Math.min(wanted, Math.floor((limit - 400) / 2)));
};

describe('with a short request timeout (2 s)', () => {
  let app: RunningAskgate;
  let port: number;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    app = await startTestApp(
      testEnv({
        ASKGATE_API_TOKEN: TOKEN,
        HOST: '127.0.0.1',
        ASKGATE_REQUEST_TIMEOUT_SECONDS: '2',
        ASKGATE_MAX_CONNECTIONS: '5000',
      }),
      [new HookChannel()],
    );
    port = Number(new URL(app.url).port);
    api = client(app.url, TOKEN);
  });
  afterEach(destroyAll);
  afterAll(async () => {
    destroyAll();
    await app?.close();
  });

  it('thousands of half-sent bodies are closed by the server while /healthz and /readyz answer', async () => {
    const count = affordable(2000);
    const json = { 'content-type': 'application/json', 'content-length': '100' };
    const bearer = { authorization: `Bearer ${TOKEN}`, ...json };
    // Every kind of route on the one server: public, bearer (API, MCP, A2A) and a signed webhook.
    const targets = [
      head('POST', '/console/login', port, { origin: `http://127.0.0.1:${port}`, ...json }),
      head('POST', '/v1/asks', port, bearer),
      head('POST', '/mcp', port, { accept: 'application/json, text/event-stream', ...bearer }),
      head('POST', '/a2a', port, bearer),
      head('POST', '/hooks/test', port, json),
    ];
    const held = await holdMany(count, (i) => hold(port, targets[i % targets.length]!));
    const health = await api.get('/healthz');
    const openAtHealth = held.filter((h) => h.isOpen()).length;
    expect(health.status).toBe(200);
    expect((await api.get('/readyz')).status).toBe(200);
    await allClosed(held);
    // Each was answered 408 in the API's shape before it was closed.
    const timedOut = held.filter((h) => /^HTTP\/1\.1 408 /.test(h.received())).length;
    expect(timedOut).toBe(count);
    expect(held[0]!.received()).toContain('"code":"invalid_request"');
    console.log(
      `${count} half-sent bodies: ${openAtHealth} still held when /healthz answered; all closed by the server`,
    );
  });

  it('a body sent one byte at a time is cut too: the deadline counts from the request line, not from the last byte', async () => {
    const held = await hold(
      port,
      head('POST', '/v1/asks', port, {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        'content-length': '1000',
      }),
    );
    const drip = setInterval(() => held.isOpen() && held.socket.write(' '), 200);
    try {
      await allClosed([held], 15_000);
    } finally {
      clearInterval(drip);
    }
    expect(held.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a long poll and an event stream stay open past the request timeout (only the request is bounded)', async () => {
    const created = await api.post('/v1/asks', askBody('hostile-wait', { timeoutSeconds: 600 }));
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    // 4 s waits: past the 2 s limit and its 1 s check.
    const [poll, created2, stream] = await Promise.all([
      api.get(`/v1/asks/${id}?wait=4`),
      api.post('/v1/asks?wait=4', askBody('hostile-wait-2', { timeoutSeconds: 600 })),
      sendRaw(
        port,
        'GET',
        '/v1/runs/hostile-wait/events?stream=true',
        { host: `127.0.0.1:${port}`, authorization: `Bearer ${TOKEN}` },
        '',
        4500,
      ),
    ]);
    expect(poll.status).toBe(200);
    expect(poll.body.status).toBe('pending');
    expect(created2.status).toBe(201);
    expect(stream.status).toBe(200);
    expect(stream.open).toBe(true);
  });

  it('a refused request (401, 413) loses its connection, its body unread', async () => {
    const refused = await Promise.all([
      // 401: no token, the body begun.
      hold(port, head('POST', '/v1/asks', port, { 'content-type': 'application/json', 'content-length': '100' })),
      // 413: a declared body over the limit.
      hold(
        port,
        head('POST', '/v1/asks', port, {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          'content-length': String(10 * 1024 * 1024),
        }),
      ),
    ]);
    await allClosed(refused, 10_000);
    expect(refused.map((h) => /^HTTP\/1\.1 (\d{3})/.exec(h.received())?.[1])).toEqual(['401', '413']);
    for (const h of refused) expect(h.received()).toMatch(/\r\nconnection: close\r\n/i);
  });

  it("headers over node's limit (431) lose their connection", async () => {
    const held = await hold(port, head('GET', '/healthz', port, { 'x-big': 'x'.repeat(20_000) }), '');
    await allClosed([held], 10_000);
    expect(held.received()).toMatch(/^HTTP\/1\.1 431 /);
  });

  it('a kept-alive connection whose request was refused with 401 is closed after the answer', async () => {
    const held = await hold(port, head('GET', '/v1/asks/AAAAAAAAAAAAAA', port, {}), '');
    await allClosed([held], 10_000);
    expect(held.received()).toMatch(/^HTTP\/1\.1 401 /);
  });
});

describe('beyond the connection limit (20)', () => {
  let app: RunningAskgate;
  let port: number;
  beforeAll(async () => {
    app = await startTestApp(testEnv({ ASKGATE_MAX_CONNECTIONS: '20' }));
    port = Number(new URL(app.url).port);
  });
  afterEach(destroyAll);
  afterAll(async () => {
    destroyAll();
    await app?.close();
  });

  const connections = () =>
    new Promise<number>((resolve, reject) =>
      app.server.server.getConnections((error, n) => (error ? reject(error) : resolve(n))),
    );

  it('a request gets a clear 503 and its connection is closed; /healthz and /readyz answer; below it again, served', async () => {
    const held = await holdMany(20, () =>
      hold(port, head('POST', '/v1/asks', port, { 'content-type': 'application/json', 'content-length': '100' })),
    );
    await eventually(async () => (await connections()) >= 20);
    const host = { host: `127.0.0.1:${port}` };
    // The refusal: without `connection: close` from the client, the server closes the socket itself.
    const refused = await hold(port, head('GET', '/v1/asks/AAAAAAAAAAAAAA', port, {}), '');
    await allClosed([refused], 10_000);
    expect(refused.received()).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused.received()).toMatch(/\r\nconnection: close\r\n/i);
    expect(refused.received()).toContain('"code":"too_many_connections"');
    expect(refused.received()).toContain('ASKGATE_MAX_CONNECTIONS');
    const healthz = await hold(port, head('GET', '/healthz', port, {}), '');
    await allClosed([healthz], 10_000);
    expect(healthz.received()).toMatch(/^HTTP\/1\.1 200 [^]*\{"ok":true\}$/);
    const readyz = await sendRaw(port, 'GET', '/readyz', host);
    expect(readyz.status).toBe(200);
    for (const h of held) h.socket.destroy();
    await eventually(async () => (await connections()) < 20);
    expect((await sendRaw(port, 'GET', '/v1/asks/AAAAAAAAAAAAAA', host)).status).toBe(404);
  });

  it('a 403 (a Host that is not loopback, without a token) closes the connection', async () => {
    const held = await hold(
      port,
      `POST /v1/asks HTTP/1.1\r\nhost: evil.example\r\ncontent-type: application/json\r\ncontent-length: 100`,
    );
    await allClosed([held], 10_000);
    expect(held.received()).toMatch(/^HTTP\/1\.1 403 /);
  });

  it('connections beyond the limit that send nothing do not stay: each is closed by the server', async () => {
    await holdMany(20, () =>
      hold(port, head('POST', '/v1/asks', port, { 'content-type': 'application/json', 'content-length': '100' })),
    );
    await eventually(async () => (await connections()) >= 20);
    const silent = await holdMany(100, () => hold(port, ''));
    await allClosed(silent, 10_000);
  });
});

describe('a process limited to 1,024 descriptors (the default connection limit)', () => {
  let child: AskgateProcess | undefined;
  afterAll(async () => {
    destroyAll();
    await child?.stop();
  });

  it('1,100 half-sent bodies leave /healthz answering and are closed by the server', async () => {
    child = await startAskgateProcess(
      { ASKGATE_API_TOKEN: TOKEN, HOST: '127.0.0.1', ASKGATE_REQUEST_TIMEOUT_SECONDS: '3' },
      ['prlimit', '--nofile=1024:1024', '--'],
    );
    const port = Number(new URL(child.url).port);
    const held = await holdMany(1100, () =>
      hold(
        port,
        head('POST', '/v1/asks', port, {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          'content-length': '100',
        }),
      ).catch(() => undefined as unknown as Held),
    );
    const health = await eventually(async () => {
      const res = await sendRaw(port, 'GET', '/healthz', { host: `127.0.0.1:${port}` });
      return res.status === 200 ? res : undefined;
    }, 10_000);
    expect(health.text).toBe('{"ok":true}');
    await allClosed(held.filter(Boolean));
  });
});
