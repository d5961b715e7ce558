import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboundHttpRequest, InboundRoute } from '../../src/core/ports.js';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { sendRaw } from '../helpers/raw-target.js';
import { RecordingChannel } from '../helpers/test-channel.js';

// A channel may serve a GET route (a signed link in an email or a WhatsApp message): it is reached
// without the bearer token like a webhook, its query handed over, and authentication is still
// decided by the route the router matched, never by the URL's spelling.

const TOKEN = 'channel-get-route-token-0123456789';

/** A test channel with one signed-link route (GET) that checks its own `sig` parameter. */
class LinkChannel extends RecordingChannel {
  readonly seen: InboundHttpRequest[] = [];
  routes(): InboundRoute[] {
    return [
      {
        method: 'GET',
        path: '/links/test',
        handle: async (request) => {
          this.seen.push(request);
          return request.query?.sig === 'good'
            ? { status: 200, body: { opened: request.query.ask ?? null } }
            : { status: 403, body: { error: { code: 'forbidden', message: 'bad signature' } } };
        },
      },
    ];
  }
}

describe.each([
  ['with an API token', { ASKGATE_API_TOKEN: TOKEN, HOST: '127.0.0.1' }],
  ['without a token (loopback only)', {}],
] as const)('a channel GET route %s', (_name, env) => {
  let app: RunningAskgate;
  let port: number;
  const channel = new LinkChannel();

  beforeAll(async () => {
    app = await startTestApp(testEnv(env), [channel]);
    port = Number(new URL(app.url).port);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('is reached without the bearer token, from a public Host, with its query (the last value of a repeated name)', async () => {
    const host = { host: 'askgate.example.com' };
    const opened = await sendRaw(port, 'GET', '/links/test?ask=A1&sig=bad&sig=good', host);
    expect({ status: opened.status, body: JSON.parse(opened.text) }).toEqual({ status: 200, body: { opened: 'A1' } });
    const refused = await sendRaw(port, 'GET', '/links/test?ask=A1&sig=bad', host);
    expect(refused.status).toBe(403);
    expect(channel.seen.at(-1)!.rawBody.length).toBe(0);
    // HEAD, which the router adds beside a GET, is the same route: the channel decides it too.
    const head = await sendRaw(port, 'HEAD', '/links/test?sig=good', host);
    expect(head.status).toBe(200);
  });

  it('auth stays the matched route’s: another method or a path beside it is an API route and needs the token', async () => {
    const before = channel.seen.length;
    const local = { host: `127.0.0.1:${port}` };
    const post = await sendRaw(
      port,
      'POST',
      '/links/test?sig=good',
      { ...local, 'content-type': 'application/json' },
      '{}',
    );
    const beside = await sendRaw(port, 'GET', '/links/test/more?sig=good', local);
    const expected = 'ASKGATE_API_TOKEN' in env ? 401 : 404;
    expect([post.status, beside.status]).toEqual([expected, expected]);
    // From a public Host, a route that is not the channel's is refused before routing without a token.
    const api = await sendRaw(port, 'GET', '/v1/asks?status=pending', { host: 'askgate.example.com' });
    expect(api.status).toBe('ASKGATE_API_TOKEN' in env ? 401 : 403);
    expect(channel.seen.length).toBe(before);
  });
});
