import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { visibleText } from '../../src/channels/discord/render.js';
import type { RunningAskgate } from '../../src/main.js';
import { FakeDiscord, type FakeInteraction } from '../fakes/discord-api.js';
import { user, type ApiMessage } from '../fakes/discord-payloads.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { KIND_QUESTIONS } from './discord-typed-world.js';

// Two replicas on one gateway shard both receive every INTERACTION_CREATE; Discord takes the first
// initial response. Whichever replica takes the tap on the refused form's Answer button, the form
// re-opens with what was typed: every replica kept the submission before racing for its ack.

const quiet = { info() {}, warn() {}, error() {} };
const alice = user('811111111111111111', 'alice', 'Alice');

let redis: TestRedis;
let fake: FakeDiscord;
let chat: string;
let apps: RunningAskgate[] = [];

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeDiscord.start();
  chat = fake.addTextChannel();
  const env = testEnv({ REDIS_URL: redis.url, ASKGATE_KEY_PREFIX: `t${randomBytes(4).toString('hex')}` });
  const channel = () => new DiscordChannel({ token: fake.token, apiUrl: fake.apiUrl, logger: quiet });
  apps = [await startTestApp(env, [channel()]), await startTestApp(env, [channel()])];
});

afterAll(async () => {
  for (const app of apps) await app.close();
  await fake?.close();
  await redis?.dispose();
});

const answerOf = (components: unknown[]) =>
  (components as { components: { label: string; custom_id: string }[] }[])
    .flatMap((r) => r.components)
    .find((b) => b.label === 'Answer')!.custom_id;

async function opened(messageId: string, customId: string): Promise<FakeInteraction> {
  const tap = fake.tap(messageId, customId, alice);
  await eventually(async () => tap.ackType !== undefined);
  expect(tap.ackType).toBe(9);
  return tap;
}

describe('a refused typed form with two replicas on one gateway shard', () => {
  it('re-opens with what was typed whichever replica takes each tap (five rounds)', async () => {
    const api = client(apps[0]!.url);
    const { body } = await api.post('/v1/asks', {
      runId: `dc-typed-${randomBytes(4).toString('hex')}`,
      to: { channel: 'discord', chat },
      questions: [KIND_QUESTIONS.email],
    });
    const messageId = await eventually(
      async () => (await api.get(`/v1/asks/${body.id}`)).body.deliveries[0].message?.messageId as string | undefined,
    );
    const msg: ApiMessage = fake.messages.get(messageId)!;
    let form = await opened(msg.id, answerOf(msg.components));
    for (let round = 1; round <= 5; round++) {
      const typed = `not-an-address-${round}`;
      const sent = fake.submitModal(form, { t1: typed });
      await eventually(async () => sent.followUps.length > 0);
      const notice = sent.followUps[0]!;
      expect(visibleText(notice.content)).toMatch(/^I could not read that answer\./);
      form = await opened(notice.messageId, answerOf(notice.components));
      expect(form.modal!.components[0].component.value).toBe(typed);
    }
    const done = fake.submitModal(form, { t1: 'alice@example.com' });
    await eventually(async () => done.followUps.length > 0);
    expect(visibleText(done.followUps[0]!.content)).toBe('Answer recorded');
    expect((await api.get(`/v1/asks/${body.id}?wait=5`)).body.result).toMatchObject({
      status: 'answered',
      values: { to: 'alice@example.com' },
    });
  });
});
