// The Bot Connector client (connector.ts) and the bot's token (token.ts) against the fake: the
// token fetched once for concurrent calls and kept until near its expiry, credentials refused for
// good, 429 with Retry-After, 5xx retried, 401/403/404 permanent, a refused token replaced once.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChannelError } from '../../src/core/ports.js';
import { BotConnector, retryAfterOf } from '../../src/channels/teams/connector.js';
import { BotToken } from '../../src/channels/teams/token.js';
import { startFakeTeams, type FakeTeams } from '../fakes/teams-connector.js';

const APP_ID = '8b1e4c52-1f0c-4c5e-9d43-3f4a2b6c7d10';
const PASSWORD = 'secret-0123456789';
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const CHAT = 'a:1personal-chat';
const text = (t: string) => ({ type: 'message' as const, text: t });

let fake: FakeTeams;
beforeAll(async () => {
  fake = await startFakeTeams({ appId: APP_ID, appPassword: PASSWORD, tenantId: TENANT });
});
afterAll(() => fake?.close());
beforeEach(() => {
  fake.tokenRequests.length = 0;
});

const serviceUrl = () => fake.serviceUrl.replace(/\/$/, '');
function client(clock = { now: () => Date.now() }, password = PASSWORD, tokenUrl = fake.tokenUrl) {
  return new BotConnector(new BotToken({ appId: APP_ID, appPassword: password, tokenUrl, clock }));
}
async function failure(p: Promise<unknown>): Promise<ChannelError> {
  const error = await p.then(
    () => expect.fail('expected a ChannelError'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChannelError);
  return error as ChannelError;
}

describe('the bot token (client credentials)', () => {
  it('is fetched once for concurrent calls and kept until shortly before it expires', async () => {
    let now = Date.now();
    const c = client({ now: () => now });
    const ids = await Promise.all([1, 2, 3, 4, 5].map((n) => c.send(serviceUrl(), CHAT, text(`m${n}`))));
    expect(new Set(ids).size).toBe(5);
    expect(fake.tokenRequests).toEqual([{ clientId: APP_ID, status: 200 }]);
    now += 50 * 60_000; // 50 of its 60 minutes: still kept
    await c.send(serviceUrl(), CHAT, text('later'));
    expect(fake.tokenRequests).toHaveLength(1);
    now += 6 * 60_000; // within 5 minutes of its end: renewed
    await c.send(serviceUrl(), CHAT, text('renewed'));
    expect(fake.tokenRequests).toHaveLength(2);
  });

  it('a wrong password or tenant is a permanent error naming the settings, never the secret', async () => {
    const wrong = await failure(client(undefined, 'not-the-secret').send(serviceUrl(), CHAT, text('x')));
    expect(wrong.permanent).toBe(true);
    expect(wrong.message).toMatch(/TEAMS_APP_PASSWORD/);
    expect(wrong.message).not.toContain('not-the-secret');
    const tenant = fake.tokenUrl.replace(TENANT, '00000000-0000-0000-0000-000000000000');
    expect((await failure(client(undefined, PASSWORD, tenant).send(serviceUrl(), CHAT, text('x')))).permanent).toBe(
      true,
    );
    // Nothing was posted with a token that was never issued.
    expect(fake.calls.filter((c) => c.status === 401)).toEqual([]);
  });

  it('an unreachable token endpoint is retryable', async () => {
    const e = await failure(
      client(undefined, PASSWORD, 'http://127.0.0.1:1/token').send(serviceUrl(), CHAT, text('x')),
    );
    expect(e.permanent).toBe(false);
  });
});

describe('Bot Connector errors', () => {
  const c = () => client();

  it('429 waits for Retry-After (seconds or an HTTP date); without one, a default wait', async () => {
    fake.failNext({ status: 429, retryAfter: '7' });
    const seconds = await failure(c().send(serviceUrl(), CHAT, text('x')));
    expect([seconds.permanent, seconds.retryAfterMs]).toEqual([false, 7000]);
    fake.failNext({ status: 429, retryAfter: new Date(Date.now() + 30_000).toUTCString() });
    const date = await failure(c().send(serviceUrl(), CHAT, text('x')));
    expect(date.retryAfterMs).toBeGreaterThan(25_000);
    expect(date.retryAfterMs).toBeLessThanOrEqual(31_000);
    fake.failNext({ status: 429 });
    expect((await failure(c().send(serviceUrl(), CHAT, text('x')))).retryAfterMs).toBe(2000);
    expect(retryAfterOf('86400000')).toBe(600_000);
    expect(retryAfterOf('garbage')).toBe(2000);
  });

  it('5xx and 408 are retried; 403, 404 and 400 are permanent', async () => {
    for (const status of [500, 502, 503, 408]) {
      fake.failNext({ status });
      expect((await failure(c().send(serviceUrl(), CHAT, text('x')))).permanent).toBe(false);
    }
    for (const status of [403, 404, 400]) {
      fake.failNext({ status });
      const e = await failure(c().send(serviceUrl(), CHAT, text('x')));
      expect([e.permanent, e.channel, e.method]).toEqual([true, 'teams', 'sendToConversation']);
    }
  });

  it('a refused token is replaced once; refused again, the error is permanent', async () => {
    const connector = c();
    await connector.send(serviceUrl(), CHAT, text('first'));
    fake.failNext({ status: 401 });
    const id = await connector.send(serviceUrl(), CHAT, text('after a 401'));
    expect(fake.activities.get(id)?.body.text).toBe('after a 401');
    expect(fake.tokenRequests).toHaveLength(2);
    fake.failNext({ status: 401 }, { status: 401 });
    expect((await failure(connector.send(serviceUrl(), CHAT, text('x')))).permanent).toBe(true);
  });

  it('replies and updates reach the activity; an update of an unknown activity is permanent', async () => {
    const connector = c();
    const id = await connector.send(serviceUrl(), CHAT, text('question'));
    const reply = await connector.reply(serviceUrl(), CHAT, id, text('reminder'));
    expect(fake.activities.get(reply)).toMatchObject({ replyToId: id, conversationId: CHAT });
    await connector.update(serviceUrl(), CHAT, id, text('outcome'));
    expect(fake.activities.get(id)?.updates).toEqual([{ type: 'message', text: 'outcome', id }]);
    const missing = await failure(connector.update(serviceUrl(), CHAT, '999', text('x')));
    expect([missing.permanent, missing.method]).toEqual([true, 'updateActivity']);
    const unreachable = await failure(connector.send('http://127.0.0.1:1', CHAT, text('x')));
    expect(unreachable.permanent).toBe(false);
  });
});
