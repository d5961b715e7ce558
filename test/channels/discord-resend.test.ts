import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { visibleText } from '../../src/channels/discord/render.js';
import type { RunningAskgate } from '../../src/main.js';
import { FakeDiscord } from '../fakes/discord-api.js';
import { user, type ApiMessage } from '../fakes/discord-payloads.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { sleep } from '../helpers/wait.js';
import { single, several, stored } from '../helpers/resend.js';

// The gateway sends every MESSAGE_CREATE to every connection of its shard (one per replica that
// runs the gateway) and replays events on a RESUME: a message must be answered once.

const quiet = { info() {}, warn() {}, error() {} };
const alice = user('311111111111111111', 'alice', 'Alice A.');

let redis: TestRedis;
let fake: FakeDiscord;
let chat: string;
let env: Record<string, string>;
let a: RunningAskgate;

const channel = () =>
  new DiscordChannel({ token: fake.token, apiUrl: fake.apiUrl, logger: quiet, messageLeaseMs: 1000 });

async function ask(app: RunningAskgate, questions: object[]): Promise<{ id: string; msg: ApiMessage }> {
  const api = client(app.url);
  const { body } = await api.post('/v1/asks', {
    runId: `dc-resend-${randomBytes(4).toString('hex')}`,
    to: { channel: 'discord', chat },
    questions,
  });
  const messageId = await eventually(
    async () => (await api.get(`/v1/asks/${body.id}`)).body.deliveries[0].message?.messageId as string | undefined,
  );
  return { id: body.id, msg: fake.messages.get(messageId)! };
}

/** The bot's replies to message `id`. */
const repliesTo = (id: string) =>
  [...fake.messages.values()].filter(
    (m) =>
      m.author.id === fake.bot.id && (m.message_reference as { message_id?: string } | undefined)?.message_id === id,
  );
const notes = async (app: RunningAskgate, id: string, type: string) =>
  (await stored(app, id)).history.filter((h) => h.type === type);

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeDiscord.start();
  chat = fake.addTextChannel();
  env = testEnv({ REDIS_URL: redis.url, ASKGATE_KEY_PREFIX: `t${randomBytes(4).toString('hex')}` });
  a = await startTestApp(env, [channel()]);
});

afterAll(async () => {
  await a?.close();
  await fake?.close();
  await redis?.dispose();
});

describe('Discord: a message delivered again is answered once', () => {
  it('a partial reply replayed after a gateway resume (same message id): one prompt for the rest, the partial stored once', async () => {
    const { id, msg } = await ask(a, several);
    const before = fake.lastSeq;
    const mine = fake.say(chat, alice, '1: Staging', { replyTo: msg.id });
    await eventually(async () => repliesTo(mine).length === 1);
    expect(visibleText(repliesTo(mine)[0]!.content)).toContain('Still open');
    const resumes = fake.resumes.length;
    fake.requestReconnect(before);
    await eventually(async () => fake.resumes.length > resumes);
    await sleep(400);
    expect(repliesTo(mine)).toHaveLength(1);
    expect(await notes(a, id, 'partial')).toHaveLength(1);
    // The resumed session still takes new messages.
    const rest = fake.say(chat, alice, '2: e2e', { replyTo: repliesTo(mine)[0]!.id });
    await eventually(async () => (await stored(a, id)).status === 'answered');
    expect((await stored(a, id)).result).toMatchObject({ answers: { env: ['Staging'], checks: ['e2e'] } });
    await eventually(async () => repliesTo(rest).length === 1);
  });

  describe('two replicas, each with its gateway connection', () => {
    let b: RunningAskgate;
    beforeAll(async () => {
      b = await startTestApp(env, [channel()]);
    });
    afterAll(async () => {
      await b?.close();
    });

    it('an out-of-range reply reaches both: one hint, noted once', async () => {
      const { id, msg } = await ask(a, single);
      const nine = fake.say(chat, alice, '9', { replyTo: msg.id });
      await eventually(async () => repliesTo(nine).length === 1);
      await sleep(400);
      expect(repliesTo(nine)).toHaveLength(1);
      expect(await notes(b, id, 'hint_sent')).toHaveLength(1);
    });

    it('an answer reaches both: one "Answer recorded", and a replay to both afterwards adds nothing', async () => {
      const { id, msg } = await ask(b, single);
      const before = fake.lastSeq;
      const two = fake.say(chat, alice, '2', { replyTo: msg.id });
      await eventually(async () => repliesTo(two).length === 1);
      expect(visibleText(repliesTo(two)[0]!.content)).toBe('Answer recorded');
      const resumes = fake.resumes.length;
      fake.requestReconnect(before);
      await eventually(async () => fake.resumes.length >= resumes + 2);
      await sleep(400);
      expect(repliesTo(two)).toHaveLength(1);
      expect((await stored(a, id)).result).toMatchObject({ status: 'answered', answers: { env: ['Production'] } });
    });

    it('a tap reaches both: Discord takes one acknowledgement, so one ephemeral notice', async () => {
      const { id, msg } = await ask(a, single);
      const buttonId = (msg.components as { components: { label: string; custom_id: string }[] }[])
        .flatMap((r) => r.components)
        .find((c) => c.label === 'Staging')!.custom_id;
      const tap = fake.tap(msg.id, buttonId, alice);
      await eventually(async () => (await stored(a, id)).status === 'answered');
      await eventually(async () => tap.followUps.length > 0);
      await sleep(300);
      expect(tap.followUps.map((f) => f.content)).toEqual(['Answer recorded']);
    });
  });
});
