import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { RecordingSink } from '../contracts/channel.contract.js';
import { sleep } from '../helpers/wait.js';
import { FakeDiscord } from '../fakes/discord-api.js';
import { user, type ApiMessage } from '../fakes/discord-payloads.js';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { visibleText } from '../../src/channels/discord/render.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import type { RunningAskgate } from '../../src/main.js';

const quiet = { info() {}, warn() {}, error() {} };
const alice = user('311111111111111111', 'alice', 'Alice A.');
const bob = user('322222222222222222', 'bob_the_builder', null);

let redis: TestRedis;
let fake: FakeDiscord;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let chat: string;
let dm: string;
let run = 0;

const env = {
  id: 'env',
  header: 'Deploy',
  question: 'Where should I deploy?',
  options: [{ label: 'Staging' }, { label: 'Production', description: 'live traffic' }],
};
const checks = {
  id: 'checks',
  header: 'Checks',
  question: 'Which checks?',
  multiSelect: true,
  options: [{ label: 'lint' }, { label: 'tests' }, { label: 'e2e' }],
};

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeDiscord.start();
  chat = fake.addTextChannel();
  dm = fake.addDm(alice);
  const channel = new DiscordChannel({ token: fake.token, apiUrl: fake.apiUrl, logger: quiet });
  app = await startTestApp(testEnv({ REDIS_URL: redis.url }), [channel]);
  api = client(app.url);
});

afterAll(async () => {
  await app?.close();
  await fake?.close();
  await redis?.dispose();
});

/** Creates an ask and waits until Discord holds its message; returns the ask id and the message. */
async function ask(
  questions: object[],
  to: object = { channel: 'discord', chat },
): Promise<{ id: string; msg: ApiMessage }> {
  const { body } = await api.post('/v1/asks', { runId: `discord-${++run}`, to, questions });
  const messageId = await eventually(
    async () => (await api.get(`/v1/asks/${body.id}`)).body.deliveries[0].message?.messageId as string | undefined,
  );
  return { id: body.id, msg: fake.messages.get(messageId)! };
}

const result = async (id: string) => (await api.get(`/v1/asks/${id}?wait=5`)).body;
const buttons = (m: ApiMessage) =>
  (m.components as { components: { label: string; custom_id: string }[] }[]).flatMap((r) => r.components);
const button = (m: ApiMessage, label: string) => buttons(m).find((b) => b.label === label)!.custom_id;
/** The bot's reply to message `id` (a notice), once sent. */
const replyTo = (id: string) =>
  eventually(async () =>
    [...fake.messages.values()].find(
      (m) => m.author.id === fake.bot.id && (m.message_reference as { message_id?: string })?.message_id === id,
    ),
  );

describe('Discord end to end (discord.js ↔ fake Discord, askgate on a private redis-server)', () => {
  it('HTTP ask → buttons → tap → the agent gets answered; the message is edited with the bot token', async () => {
    const { id, msg } = await ask([env]);
    expect(buttons(msg).map((b) => b.label)).toEqual(['Staging', 'Production', 'Other…', 'Skip']);
    expect(msg.components).toHaveLength(2);
    expect(visibleText(msg.content)).toContain('Production — live traffic');
    const tap = fake.tap(msg.id, button(msg, 'Production'), alice);
    expect((await result(id)).result).toMatchObject({
      status: 'answered',
      answers: { env: ['Production'] },
      answeredBy: { channel: 'discord', userId: alice.id, username: 'alice', name: 'Alice A.' },
    });
    expect(tap.ackType).toBe(6);
    expect(tap.ackedAt! - tap.dispatchedAt).toBeLessThan(3000);
    await eventually(async () => tap.followUps.length > 0);
    expect(tap.followUps[0]).toMatchObject({ content: 'Answer recorded', flags: 64 });
    await eventually(async () => fake.messages.get(msg.id)!.components.length === 0);
    const edited = fake.messages.get(msg.id)!;
    expect(visibleText(edited.content)).toContain('Where should I deploy?');
    expect(visibleText(edited.content)).toContain('Answered: Production — by @alice');
    const edit = fake.calls.find((c) => c.method === 'PATCH' && c.path === `/channels/${chat}/messages/${msg.id}`)!;
    expect(edit.authorized).toBe(true);
  });

  it.each([
    ['a number', '2', ['Production']],
    ['a label', 'staging', ['Staging']],
    ['free text', 'the canary cluster, please', ['the canary cluster, please']],
  ])('a reply by message reference with %s answers', async (_what, text, answer) => {
    const { id, msg } = await ask([env]);
    const mine = fake.say(chat, alice, text, { replyTo: msg.id });
    expect((await result(id)).result).toMatchObject({ status: 'answered', answers: { env: answer } });
    expect(visibleText((await replyTo(mine)).content)).toBe('Answer recorded');
  });

  it('a message in a thread started on the question answers "1,3" (the bot mention is stripped)', async () => {
    const { id, msg } = await ask([checks]);
    expect(buttons(msg).map((b) => b.label)).toEqual(['Answer', 'Skip']); // the form (issue 17); replies still count
    const thread = fake.startThread(msg.id, alice);
    await sleep(50);
    fake.say(thread, alice, `<@${fake.bot.id}> 1,3`, { mentions: [fake.bot] });
    expect((await result(id)).result).toMatchObject({ status: 'answered', answers: { checks: ['lint', 'e2e'] } });
  });

  it('several questions in a DM: a partial answer is asked for the rest, a reply to that prompt completes it', async () => {
    const { id } = await ask([env, checks], { channel: 'discord', chat: dm });
    const first = fake.say(dm, alice, 'Production');
    const prompt = await replyTo(first);
    expect(visibleText(prompt.content)).toMatch(/Still open/);
    fake.say(dm, alice, '1,3', { replyTo: prompt.id });
    expect((await result(id)).result).toMatchObject({
      status: 'answered',
      answers: { env: ['Production'], checks: ['lint', 'e2e'] },
    });
  });

  it('several questions in one DM message, and "skip"', async () => {
    const a = await ask([env, checks], { channel: 'discord', chat: dm });
    fake.say(dm, alice, 'Staging\n2');
    expect((await result(a.id)).result).toMatchObject({
      status: 'answered',
      answers: { env: ['Staging'], checks: ['tests'] },
    });
    const b = await ask([env], { channel: 'discord', chat: dm });
    fake.say(dm, alice, 'skip');
    expect((await result(b.id)).result).toMatchObject({ status: 'no_answer', reason: 'skipped' });
  });

  it('an empty-content reply (no Message Content intent) gets the hint and changes nothing', async () => {
    const { id, msg } = await ask([env]);
    const byReference = fake.say(chat, alice, '', { replyTo: msg.id });
    expect(visibleText((await replyTo(byReference)).content)).toMatch(/use the buttons.*mention me/);
    const thread = fake.startThread(msg.id, alice);
    await sleep(50);
    const inThread = fake.say(thread, alice, '');
    expect(visibleText((await replyTo(inThread)).content)).toMatch(/use the buttons/);
    expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
  });

  it('duplicate interactions record one answer; the later tap is told it was already answered', async () => {
    const { id, msg } = await ask([env]);
    const first = fake.tap(msg.id, button(msg, 'Staging'), alice);
    fake.tap(msg.id, button(msg, 'Staging'), alice, first.id); // the same interaction delivered twice
    const second = fake.tap(msg.id, button(msg, 'Production'), alice);
    expect((await result(id)).result).toMatchObject({ status: 'answered' });
    await eventually(async () => first.followUps.length + second.followUps.length === 2);
    const notices = [...first.followUps, ...second.followUps].map((f) => f.content).sort();
    expect(notices).toEqual(['Answer recorded', 'This question was already answered by @alice']);
    expect(fake.calls.filter((c) => c.path.startsWith(`/interactions/${first.id}/`)).map((c) => c.status)).toEqual([
      204, 400,
    ]);
    const record = (await api.get(`/v1/asks/${id}`)).body;
    expect(record.result.answers.env).toHaveLength(1);
  });

  it('a wrong user gets an ephemeral "not for you" and the question stays pending', async () => {
    const { id, msg } = await ask([env], { channel: 'discord', chat, users: [alice.id] });
    const tap = fake.tap(msg.id, button(msg, 'Staging'), bob);
    await eventually(async () => tap.followUps.length > 0);
    expect(tap.followUps[0]!.flags).toBe(64);
    expect(tap.followUps[0]!.content).toBe(`This question is for <@${alice.id}>`);
    const reply = fake.say(chat, bob, '1', { replyTo: msg.id });
    expect(visibleText((await replyTo(reply)).content)).toMatch(/This question is for/);
    expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
  });

  it('a tap acknowledged too late (a replayed event past the 3 s window) changes nothing', async () => {
    const { id, msg } = await ask([env]);
    const late = fake.tap(msg.id, button(msg, 'Staging'), alice, undefined, 3500);
    await eventually(async () =>
      fake.calls.some((c) => c.path.startsWith(`/interactions/${late.id}/`) && c.status === 404),
    );
    await sleep(100);
    expect(late.followUps).toEqual([]);
    expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
  });

  it('labels with @everyone, <@&role> and **bold** render literally and never mention anyone', async () => {
    const role = '<@&123456789012345678>';
    const hostile = {
      id: 'pick',
      question: `Ping <@${bob.id}> @here?`,
      options: [{ label: '@everyone' }, { label: role }, { label: '**bold**' }],
    };
    const { id, msg } = await ask([hostile]);
    const shown = visibleText(msg.content);
    for (const literal of ['@everyone', role, '**bold**', `Ping <@${bob.id}> @here?`]) expect(shown).toContain(literal);
    expect(msg.content).not.toMatch(/(^|[^\\])<@/);
    expect(msg.content).not.toMatch(/(^|[^\\])\*\*bold/);
    expect(buttons(msg).map((b) => b.label)).toEqual(['@everyone', role, '**bold**', 'Other…', 'Skip']);
    fake.tap(msg.id, button(msg, '**bold**'), alice);
    expect((await result(id)).result).toMatchObject({ answers: { pick: ['**bold**'] } });
    await eventually(async () => fake.messages.get(msg.id)!.components.length === 0);
    expect(visibleText(fake.messages.get(msg.id)!.content)).toContain('Answered: **bold** — by @alice');
    const writes = fake.calls.filter((c) => /^\/channels\/\d+\/messages/.test(c.path) && c.method !== 'GET');
    const followUps = fake.calls.filter((c) => c.path.startsWith('/webhooks/'));
    expect(writes.length).toBeGreaterThan(10);
    for (const c of [...writes, ...followUps]) expect(c.body.allowed_mentions).toEqual({ parse: [] });
  });

  it('a 429 on message create delays delivery but not the acknowledgement of a concurrent tap', async () => {
    const earlier = await ask([env]);
    fake.blockMessageCreate(1.5);
    const started = Date.now();
    const { body: later } = await api.post('/v1/asks', {
      runId: `discord-${++run}`,
      to: { channel: 'discord', chat },
      questions: [env],
    });
    await eventually(async () => fake.calls.some((c) => c.status === 429 && c.at >= started));
    const tap = fake.tap(earlier.msg.id, button(earlier.msg, 'Staging'), alice);
    await eventually(async () => tap.ackedAt);
    expect(tap.ackedAt! - tap.dispatchedAt).toBeLessThan(500);
    expect(tap.ackedAt! - started).toBeLessThan(1500); // acknowledged while the send bucket was still blocked
    expect((await result(earlier.id)).result).toMatchObject({ status: 'answered' });
    const sent = await eventually(async () => {
      const r = (await api.get(`/v1/asks/${later.id}`)).body;
      return r.deliveries[0].status === 'sent' && r;
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(fake.messages.get(sent.deliveries[0].message.messageId)).toBeDefined();
  });
});

describe('Discord gateway connection', () => {
  it('start() fails clearly on a token Discord rejects', async () => {
    const other = await FakeDiscord.start();
    const channel = new DiscordChannel({ token: 'not-the-token', apiUrl: other.apiUrl, logger: quiet });
    try {
      await expect(channel.start(new RecordingSink())).rejects.toThrow(/rejected DISCORD_BOT_TOKEN/);
    } finally {
      await channel.stop();
      await other.close();
    }
  });

  it('without the Message Content intent it connects anyway, hints on empty replies and reads replies that mention the bot', async () => {
    const other = await FakeDiscord.start();
    other.contentIntentEnabled = false;
    const room = other.addTextChannel();
    const warnings: string[] = [];
    const channel = new DiscordChannel({
      token: other.token,
      apiUrl: other.apiUrl,
      logger: { ...quiet, warn: (_o, msg) => warnings.push(msg ?? '') },
    });
    const sink = new RecordingSink();
    try {
      await channel.start(sink);
      expect(warnings.join()).toMatch(/Message Content intent/);
      const view = buildPromptView({ id: 'IntentAsk00001', version: 1, questions: [{ ...env, multiSelect: false }] });
      const ref = await channel.deliver({
        askId: view.askId,
        version: 1,
        target: { channel: 'discord', chat: room },
        view,
      });
      const empty = other.say(room, alice, '', { replyTo: ref.messageId });
      await eventually(async () =>
        other
          .sentTo(room)
          .find((m) => (m.message_reference as { message_id: string } | undefined)?.message_id === empty),
      );
      expect(sink.texts).toEqual([]);
      other.say(room, alice, `<@${other.bot.id}> Production`, { replyTo: ref.messageId });
      await eventually(async () => sink.texts.length === 1);
      expect(sink.texts[0]).toMatchObject({
        chat: room,
        replyTo: ref.messageId,
        privateChat: false,
        text: 'Production',
      });
    } finally {
      await channel.stop();
      await other.close();
    }
  });
});
