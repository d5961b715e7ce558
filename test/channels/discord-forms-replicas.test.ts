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

// Every gateway connection of a shard (one per replica running the gateway) receives every
// INTERACTION_CREATE: Discord takes the first initial response and refuses the other (40060).

const quiet = { info() {}, warn() {}, error() {} };
const alice = user('511111111111111111', 'alice', 'Alice');
const questions = [
  { id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] },
  { id: 'checks', question: 'Which checks?', multiSelect: true, options: [{ label: 'lint' }, { label: 'tests' }] },
];

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

async function ask(): Promise<{ id: string; msg: ApiMessage }> {
  const api = client(apps[0]!.url);
  const { body } = await api.post('/v1/asks', {
    runId: `dc-forms-${randomBytes(4).toString('hex')}`,
    to: { channel: 'discord', chat },
    questions,
  });
  const messageId = await eventually(
    async () => (await api.get(`/v1/asks/${body.id}`)).body.deliveries[0].message?.messageId as string | undefined,
  );
  return { id: body.id, msg: fake.messages.get(messageId)! };
}

const answerButton = (m: ApiMessage) =>
  (m.components as { components: { label: string; custom_id: string }[] }[])
    .flatMap((r) => r.components)
    .find((b) => b.label === 'Answer')!.custom_id;
const callbacks = (interactionId: string) =>
  fake.calls.filter((c) => c.path.startsWith(`/interactions/${interactionId}/`));

describe('Discord forms with two replicas on one gateway shard', () => {
  it('one modal opens, one submission is recorded, one notice is shown', async () => {
    const { id, msg } = await ask();
    const opened = fake.tap(msg.id, answerButton(msg), alice);
    await eventually(async () => callbacks(opened.id).length === 2);
    expect(callbacks(opened.id).map((c) => c.code ?? c.status)).toEqual(expect.arrayContaining([204, 40060]));
    expect(opened.ackType).toBe(9);
    const sent = fake.submitModal(opened, { q1: '2', q2: ['1', '2'] });
    await eventually(async () => sent.followUps.length > 0 && callbacks(sent.id).length === 2);
    await sleep(300);
    expect(sent.followUps.map((f) => visibleText(f.content))).toEqual(['Answer recorded']);
    const record = (await client(apps[1]!.url).get(`/v1/asks/${id}`)).body;
    expect(record.result).toMatchObject({
      status: 'answered',
      answers: { env: ['Production'], checks: ['lint', 'tests'] },
    });
  });

  it('a submission acknowledged too late (past 3 s) changes nothing', async () => {
    const { id, msg } = await ask();
    const opened = fake.tap(msg.id, answerButton(msg), alice);
    await eventually(async () => opened.ackType === 9);
    const late = fake.submitModal(opened, { q1: '1', q2: ['1'] }, { ageMs: 3500 });
    await eventually(async () => callbacks(late.id).length === 2);
    await sleep(300);
    expect(callbacks(late.id).map((c) => c.code)).toEqual([10062, 10062]);
    expect(late.followUps).toEqual([]);
    expect((await client(apps[0]!.url).get(`/v1/asks/${id}`)).body.status).toBe('pending');
  });
});
