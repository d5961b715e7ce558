import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboundRoute } from '../../src/core/ports.js';
import type { RunningAskgate } from '../../src/main.js';
import { isLoopbackHost, originIsHost, originMatches } from '../../src/security/http.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client } from '../helpers/http.js';
import { sendRaw } from '../helpers/raw-target.js';
import { RecordingChannel } from '../helpers/test-channel.js';

// Without ASKGATE_API_TOKEN askgate listens on loopback and trusts local processes; a web page in
// the user's browser must still not reach it: not by rebinding its own DNS name to 127.0.0.1
// (refused by the Host rule) nor by a cross-site request (refused by the Origin rule).

class HookChannel extends RecordingChannel {
  routes(): InboundRoute[] {
    return [
      { method: 'POST', path: '/hooks/test', handle: async () => ({ status: 200, body: 'signed route reached' }) },
    ];
  }
}

let app: RunningAskgate;
let port: number;
let self: string;
let api: ReturnType<typeof client>;
const channel = new HookChannel();

beforeAll(async () => {
  app = await startTestApp(testEnv({ ASKGATE_DEFAULT_TO: 'test:c1' }), [channel]);
  port = Number(new URL(app.url).port);
  self = `127.0.0.1:${port}`;
  api = client(app.url);
});

afterAll(async () => {
  await app?.close();
});

/** Test tables are built before the server listens: `PORT` stands for its port, `SELF` for `127.0.0.1:<port>`. */
const fill = (value: string) =>
  value
    .replaceAll('SELF', self)
    .replaceAll('PORT_1', String(port + 1))
    .replaceAll('PORT', String(port));
const json = { 'content-type': 'application/json' };
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const mcpHeaders = { ...json, accept: 'application/json, text/event-stream' };
const pendingAsk = async (runId: string) =>
  (await api.post('/v1/asks', askBody(runId, { to: { channel: 'test', chat: 'c1' }, timeoutSeconds: 600 }))).body as {
    id: string;
  };
const forbidden = (text: string) => {
  const body = JSON.parse(text);
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe('forbidden');
  return body.error.message as string;
};

describe('the Host rule (DNS rebinding)', () => {
  const foreignHosts = [
    'evil.example',
    'evil.example:PORT',
    '127.0.0.1.evil.example',
    'localhost.evil.example',
    'localhost.',
    'localhost:80@evil.example',
    '0.0.0.0',
    '10.0.0.1',
    '192.168.1.10',
    '[::2]',
    '[::ffff:7f00:1]',
    '127.0.0.1 evil',
    '',
  ];

  it.each(foreignHosts)('Host %j: every kind of route is refused with 403 and nothing changes', async (host) => {
    const ask = await pendingAsk(`host-${Math.random().toString(36).slice(2)}`);
    const h = { host: fill(host) };
    const targets: [string, string, string, Record<string, string>][] = [
      ['GET', `/v1/asks/${ask.id}`, '', {}],
      ['POST', '/v1/asks', JSON.stringify(askBody('host-forged', { to: { channel: 'test', chat: 'c1' } })), json],
      ['POST', `/v1/asks/${ask.id}/cancel`, '{}', json],
      ['POST', `/v1/asks/${ask.id}/answer`, JSON.stringify({ answers: { env: ['Production'] } }), json],
      ['GET', '/metrics', '', {}],
      ['POST', '/mcp', initialize, mcpHeaders],
      ['GET', '/', '', {}],
      ['GET', '/console/session', '', {}],
      ['GET', '/healthz', '', {}],
      ['GET', '/no-such-route', '', {}],
    ];
    for (const [method, path, body, headers] of targets) {
      const res = await sendRaw(port, method, path, { ...h, ...headers }, body);
      // An unparsable Host value is refused by node's HTTP parser (400) before any route: also fine.
      expect({ path, status: res.status }).toEqual({ path, status: res.status === 400 ? 400 : 403 });
      if (res.status === 403) expect(forbidden(res.text)).toMatch(/loopback/);
      expect(res.headers['mcp-session-id']).toBeUndefined();
    }
    expect((await api.get(`/v1/asks/${ask.id}`)).body.status).toBe('pending');
    expect((await api.get('/v1/runs/host-forged')).status).toBe(404);
  });

  it('an absolute-form target naming a foreign host is refused even with a loopback Host header', async () => {
    const ask = await pendingAsk('host-absolute');
    const res = await sendRaw(
      port,
      'POST',
      `http://evil.example/v1/asks/${ask.id}/cancel`,
      { host: self, ...json },
      '{}',
    );
    expect(res.status).toBe(403);
    expect((await api.get(`/v1/asks/${ask.id}`)).body.status).toBe('pending');
    expect((await sendRaw(port, 'GET', `http://${self}/v1/asks/${ask.id}`, { host: self })).status).toBe(200);
  });

  it.each([
    'SELF',
    'localhost:PORT',
    'LocalHost:PORT',
    'localhost',
    '127.0.0.2:PORT',
    'app.localhost:PORT',
    '[::1]:PORT',
    '[::1]',
  ])('Host %s is loopback: the API answers', async (host) => {
    const ask = await pendingAsk('host-ok');
    const res = await sendRaw(port, 'GET', `/v1/asks/${ask.id}`, { host: fill(host) });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).id).toBe(ask.id);
  });

  it('a signed platform webhook is exempt (a reverse proxy forwards the public Host; the platform signature guards it)', async () => {
    const res = await sendRaw(port, 'POST', '/hooks/test', { host: 'askgate.example.com', ...json }, '{}');
    expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: 'signed route reached' });
  });
});

describe('the Origin rule (cross-site requests from a browser)', () => {
  it.each([
    ['a foreign site', 'http://evil.example'],
    ['a foreign https site', 'https://evil.example'],
    ['a sandboxed frame or file:// page', 'null'],
    ['another local web app', 'http://127.0.0.1:PORT_1'],
    ['the other loopback name', 'http://localhost:PORT'],
    ['a non-http scheme', 'ws://SELF'],
    ['its own origin with a path', 'http://SELF/'],
    ['garbage', 'not a url'],
  ])(
    'a text/plain POST from %s to cancel an ask is refused with 403 and the ask stays pending',
    async (_name, origin) => {
      origin = fill(origin);
      const ask = await pendingAsk('origin-cancel');
      const res = await sendRaw(
        port,
        'POST',
        `/v1/asks/${ask.id}/cancel`,
        { host: self, origin, 'content-type': 'text/plain' },
        'x',
      );
      expect(res.status).toBe(403);
      expect(forbidden(res.text)).toBe('cross-origin request refused');
      const answer = await sendRaw(
        port,
        'POST',
        `/v1/asks/${ask.id}/answer`,
        { host: self, origin, 'content-type': 'text/plain' },
        JSON.stringify({ answers: { env: ['Production'] } }),
      );
      expect(answer.status).toBe(403);
      const run = await sendRaw(port, 'DELETE', '/v1/runs/origin-cancel', { host: self, origin });
      expect(run.status).toBe(403);
      expect((await api.get(`/v1/asks/${ask.id}`)).body.status).toBe('pending');
    },
  );

  it("/mcp with Origin equal to the attacker's Host (DNS rebinding) is refused and opens no session", async () => {
    for (const [host, origin] of [
      ['evil.example', 'http://evil.example'],
      [`evil.example:${port}`, `http://evil.example:${port}`],
      [self, 'http://evil.example'],
    ] as const) {
      const res = await sendRaw(port, 'POST', '/mcp', { host, origin, ...mcpHeaders }, initialize);
      expect({ host, origin, status: res.status }).toEqual({ host, origin, status: 403 });
      expect(res.headers['mcp-session-id']).toBeUndefined();
    }
  });

  it("askgate's own origin and requests without Origin (curl, SDK, CLI) are served", async () => {
    const ask = await pendingAsk('origin-own');
    expect((await sendRaw(port, 'GET', `/v1/asks/${ask.id}`, { host: self })).status).toBe(200);
    const own = await sendRaw(
      port,
      'POST',
      `/v1/asks/${ask.id}/cancel`,
      { host: self, origin: `http://${self}`, ...json },
      '{}',
    );
    expect(own.status).toBe(200);
    expect(JSON.parse(own.text).result).toMatchObject({ status: 'no_answer', reason: 'cancelled' });
    const mcp = await sendRaw(
      port,
      'POST',
      '/mcp',
      { host: self, origin: `http://${self}`, ...mcpHeaders },
      initialize,
    );
    expect(mcp.status).toBe(200);
  });

  it('public routes do not need an Origin check (nothing to change there), but the console checks its own', async () => {
    expect((await sendRaw(port, 'GET', '/healthz', { host: self, origin: 'http://evil.example' })).status).toBe(200);
    const login = await sendRaw(
      port,
      'POST',
      '/console/login',
      { host: self, origin: 'http://evil.example', ...json },
      '{}',
    );
    expect(login.status).toBe(403);
  });
});

describe('the shared helpers', () => {
  it('isLoopbackHost accepts loopback names and addresses only', () => {
    for (const host of [
      'localhost',
      'localhost:1',
      'LOCALHOST',
      'a.localhost',
      'a.b.localhost:99',
      '127.0.0.1',
      '127.255.0.9:8',
      '[::1]',
      '[::1]:7420',
      '[0:0:0:0:0:0:0:1]',
    ]) {
      expect({ host, ok: isLoopbackHost(host) }).toEqual({ host, ok: true });
    }
    for (const host of [
      undefined,
      '',
      'evil.example',
      'localhost.',
      'localhost.evil.example',
      'localhostx',
      'xlocalhost',
      '127.0.0.1.nip.io',
      '0.0.0.0',
      '::1',
      '[::2]',
      '[::ffff:127.0.0.1]',
      '128.0.0.1',
      'localhost:80/x',
      'user@localhost',
      'localhost:abc',
      'local host',
    ]) {
      expect({ host, ok: isLoopbackHost(host) }).toEqual({ host, ok: false });
    }
  });

  it('originIsHost compares the serialized Origin with Host only; originMatches also accepts X-Forwarded-Host', () => {
    expect(originIsHost({ host: '127.0.0.1:1', origin: 'http://127.0.0.1:1' })).toBe(true);
    expect(originIsHost({ host: '127.0.0.1:1', origin: 'http://127.0.0.1:1/' })).toBe(false);
    expect(originIsHost({ host: '127.0.0.1:1', origin: 'null' })).toBe(false);
    expect(originIsHost({ host: '127.0.0.1:1' })).toBe(false);
    expect(
      originIsHost({ host: '127.0.0.1:1', origin: 'http://evil.example', 'x-forwarded-host': 'evil.example' }),
    ).toBe(false);
    expect(
      originMatches({
        host: '127.0.0.1:1',
        origin: 'https://askgate.example.com',
        'x-forwarded-host': 'askgate.example.com',
      }),
    ).toBe(true);
    expect(originMatches({ host: '127.0.0.1:1', origin: 'null' })).toBe(false);
  });
});
