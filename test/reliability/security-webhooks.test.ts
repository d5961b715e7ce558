import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { user as discordUser } from '../fakes/discord-payloads.js';
import { slackSignature } from '../fakes/slack-events.js';
import { eventually } from '../helpers/http.js';
import { sleep } from '../helpers/wait.js';
import {
  SLACK_SECRET,
  TG_SECRET,
  askAndDeliver,
  discordButtons,
  discordTap,
  expectOnlyNotes,
  newTgUser,
  settled,
  slackMessage,
  slackValues,
  startSecurityWorld,
  tgButtons,
  tgTap,
  type SecurityWorld,
} from './security-world.js';

// Forged inbound requests on every platform: nothing unsigned or wrongly signed may change state.

let w: SecurityWorld;

beforeAll(async () => {
  w = await startSecurityWorld();
});

afterAll(async () => {
  await w?.close();
});

describe('Slack: forged, tampered and replayed signed requests → 401, no state change', () => {
  const now = () => Math.floor(Date.now() / 1000);
  type Forgery = [name: string, build: (body: string) => { body: string; headers: Record<string, string> }];
  const signed = (secret: string, ts: number, body: string) => ({
    'x-slack-request-timestamp': String(ts),
    'x-slack-signature': slackSignature(secret, ts, body),
  });
  const flipBit = (body: string) => {
    const bytes = Buffer.from(body);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    return bytes.toString('latin1');
  };
  const forgeries: Forgery[] = [
    ['no signature headers at all', (body) => ({ body, headers: {} })],
    [
      'a signature without its timestamp',
      (body) => ({ body, headers: { 'x-slack-signature': signed(SLACK_SECRET, now(), body)['x-slack-signature'] } }),
    ],
    ['a timestamp without a signature', (body) => ({ body, headers: { 'x-slack-request-timestamp': String(now()) } })],
    ['the wrong signing secret', (body) => ({ body, headers: signed(`${SLACK_SECRET}-forged`, now(), body) })],
    [
      'one flipped bit in the signed body',
      (body) => ({ body: flipBit(body), headers: signed(SLACK_SECRET, now(), body) }),
    ],
    [
      'a valid signature replayed with another timestamp',
      (body) => ({
        body,
        headers: { ...signed(SLACK_SECRET, now(), body), 'x-slack-request-timestamp': String(now() + 1) },
      }),
    ],
    ['a timestamp 301 s old (validly signed)', (body) => ({ body, headers: signed(SLACK_SECRET, now() - 301, body) })],
    [
      'a timestamp one day old (validly signed)',
      (body) => ({ body, headers: signed(SLACK_SECRET, now() - 86_400, body) }),
    ],
    [
      'a timestamp 301 s ahead (validly signed)',
      (body) => ({ body, headers: signed(SLACK_SECRET, now() + 301, body) }),
    ],
    [
      'a timestamp a year ahead (validly signed)',
      (body) => ({ body, headers: signed(SLACK_SECRET, now() + 365 * 86_400, body) }),
    ],
    [
      'the right signature in upper-case hex',
      (body) => {
        const h = signed(SLACK_SECRET, now(), body);
        return { body, headers: { ...h, 'x-slack-signature': `v0=${h['x-slack-signature'].slice(3).toUpperCase()}` } };
      },
    ],
    [
      'a v1= scheme',
      (body) => ({
        body,
        headers: {
          ...signed(SLACK_SECRET, now(), body),
          'x-slack-signature': `v1=${signed(SLACK_SECRET, now(), body)['x-slack-signature'].slice(3)}`,
        },
      }),
    ],
  ];

  const post = (body: string, contentType: string, headers: Record<string, string>) =>
    fetch(`${w.app.url}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': contentType, ...headers },
      body,
    }).then(async (r) => ({ status: r.status, text: await r.text() }));

  it.each(forgeries)('%s: a button payload and a thread reply are both refused', async (_name, forge) => {
    const ask = await askAndDeliver(w, { channel: 'slack', chat: 'C0001' });
    const message = slackMessage(w, ask.chat, ask.messageId);
    const before = await w.raw(ask.id);
    const calls = w.slack.calls.length;
    const tap = `payload=${encodeURIComponent(JSON.stringify(w.slackIn.blockAction(message, slackValues(message)[0]!, 'U0001')))}`;
    const reply = JSON.stringify(
      w.slackIn.messageEvent({ channel: ask.chat, user: 'U0001', text: 'production', threadTs: message.ts }),
    );
    for (const [body, type] of [
      [tap, 'application/x-www-form-urlencoded'],
      [reply, 'application/json'],
    ] as const) {
      const forged = forge(body);
      const res = await post(forged.body, type, forged.headers);
      expect(res.status).toBe(401);
      expect(res.text).not.toContain('challenge');
    }
    await sleep(150);
    expect(await w.raw(ask.id)).toEqual(before);
    expect(w.slack.calls.slice(calls)).toEqual([]);
  });

  it('a url_verification with a bad signature gets no challenge back', async () => {
    const res = await post(
      JSON.stringify({ type: 'url_verification', challenge: 'echo-me' }),
      'application/json',
      signed('nope', now(), '{}'),
    );
    expect(res).toEqual({ status: 401, text: expect.not.stringContaining('echo-me') });
  });

  it('the same requests, correctly signed, are accepted (the checks verify the raw body)', async () => {
    const ask = await askAndDeliver(w, { channel: 'slack', chat: 'C0001' });
    const message = slackMessage(w, ask.chat, ask.messageId);
    // Key order and whitespace as sent: a verifier that re-serialised the JSON would fail here.
    const reply = JSON.stringify(
      w.slackIn.messageEvent({ channel: ask.chat, user: 'U0001', text: 'production', threadTs: message.ts }),
      null,
      1,
    );
    const res = await post(reply, 'application/json', signed(SLACK_SECRET, now(), reply));
    expect(res.status).toBe(200);
    expect((await w.api.get(`/v1/asks/${ask.id}?wait=5`)).body.result).toMatchObject({
      status: 'answered',
      answers: { env: ['Production'] },
    });
  });
});

describe('Telegram webhook mode: a missing or wrong secret → 401, no state change', () => {
  const post = (body: unknown, headers: Record<string, string>) =>
    fetch(`${w.app.url}/telegram/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('forged updates (a tap with the real button data, a reply) with every wrong secret are refused', async () => {
    const u = newTgUser(w, 'Hooked');
    const ask = await askAndDeliver(w, { channel: 'telegram', chat: String(u.id) });
    const before = await w.raw(ask.id);
    const message = w.tg.message(ask.chat, ask.messageId)!;
    const chat = { id: u.id, type: 'private' };
    const updates = [
      {
        update_id: 990_001,
        callback_query: {
          id: 'forged-q',
          from: u,
          chat_instance: '1',
          data: tgButtons(w, ask.chat, ask.messageId)[1],
          message: { message_id: message.message_id, chat, date: 0, text: message.text },
        },
      },
      {
        update_id: 990_002,
        message: {
          message_id: 9001,
          from: u,
          chat,
          date: 0,
          text: '2',
          reply_to_message: { message_id: message.message_id, chat, date: 0, text: message.text, from: w.tg.bot },
        },
      },
    ];
    const wrong: Record<string, string>[] = [
      {},
      { 'x-telegram-bot-api-secret-token': '' },
      { 'x-telegram-bot-api-secret-token': 'wrong-secret-0123456789' },
      { 'x-telegram-bot-api-secret-token': `${TG_SECRET}x` },
      { 'x-telegram-bot-api-secret-token': TG_SECRET.slice(0, -1) },
      { 'x-telegram-bot-api-secret-token': TG_SECRET.toUpperCase() },
      { 'x-telegram-bot-api-secret-token': `${TG_SECRET}, ${TG_SECRET}` },
      { authorization: `Bearer ${TG_SECRET}` },
    ];
    const calls = w.tg.calls.length;
    for (const update of updates) for (const headers of wrong) expect((await post(update, headers)).status).toBe(401);
    await sleep(200);
    expect(await w.raw(ask.id)).toEqual(before);
    expect(w.tg.calls.slice(calls).map((c) => c.method)).toEqual([]);
    // The fake itself sends the right secret: a real tap goes through.
    expect(await tgTap(w, ask.chat, ask.messageId, tgButtons(w, ask.chat, ask.messageId)[1]!, u)).toBe(
      'Answer recorded',
    );
  });
});

describe('Discord: gateway only (no HTTP interactions endpoint); replayed INTERACTION_CREATE changes nothing', () => {
  const alice = discordUser('361111111111111111', 'alice_sec');

  it('askgate exposes no Discord interactions URL: a signed-looking POST finds nothing', async () => {
    for (const path of ['/discord/interactions', '/interactions', '/discord']) {
      const res = await fetch(`${w.app.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-signature-ed25519': '00'.repeat(64),
          'x-signature-timestamp': String(Math.floor(Date.now() / 1000)),
        },
        body: JSON.stringify({ type: 1 }),
      });
      expect(res.status).toBe(404);
    }
  });

  it('a replay of an accepted interaction (same id and token) and a later tap on the resolved ask change nothing', async () => {
    const ask = await askAndDeliver(w, { channel: 'discord', chat: w.discordChats[0], users: [alice.id] });
    const { ids } = discordButtons(w, ask.messageId);
    const first = w.discord.tap(ask.messageId, ids[0]!, alice);
    await eventually(async () => first.followUps.length === 1);
    expect(first.followUps[0]!.content).toBe('Answer recorded');
    const answered = await settled(w, ask.id);
    expect(answered.status).toBe('answered');
    // The same INTERACTION_CREATE again (gateway replay): Discord refuses the second ack (40060).
    expect(await discordTap(w, ask.messageId, ids[1]!, alice, first.id)).toBeNull();
    expect(w.discord.calls.filter((c) => c.path.startsWith(`/interactions/${first.id}/`)).map((c) => c.status)).toEqual(
      [204, 400],
    );
    // A fresh interaction with another option of the resolved ask.
    expect(await discordTap(w, ask.messageId, ids[1]!, alice)).toMatch(/already answered/);
    expectOnlyNotes(answered, await w.raw(ask.id), ['already_resolved']);
  });
});
