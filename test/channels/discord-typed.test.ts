import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { FakeDiscord, type FakeInteraction } from '../fakes/discord-api.js';
import type { ModalValues } from '../fakes/discord-modals.js';
import { user, type ApiMessage, type ApiUser } from '../fakes/discord-payloads.js';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { visibleText } from '../../src/channels/discord/render.js';
import { TAP_AGAIN } from '../../src/channels/discord/forms.js';
import type { RunningAskgate } from '../../src/main.js';
import { KIND_QUESTIONS } from './discord-typed-world.js';

// Typed questions answered through Discord's modals, end to end: HTTP ask → discord.js ↔ the fake
// Discord → askgate (private redis-server) → the agent's result and the edited message.

const quiet = { info() {}, warn() {}, error() {} };
const alice = user('611111111111111111', 'alice', 'Alice');
const bob = user('622222222222222222', 'bob', 'Bob');

let redis: TestRedis;
let fake: FakeDiscord;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let chat: string;
let run = 0;

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeDiscord.start();
  chat = fake.addTextChannel();
  fake.clientLocales.set(alice.id, 'en-US');
  fake.clientLocales.set(bob.id, 'de');
  const channel = new DiscordChannel({ token: fake.token, apiUrl: fake.apiUrl, logger: quiet });
  app = await startTestApp(testEnv({ REDIS_URL: redis.url }), [channel]);
  api = client(app.url);
});

afterAll(async () => {
  await app?.close();
  await fake?.close();
  await redis?.dispose();
});

async function ask(questions: object[], extra: object = {}): Promise<{ id: string; msg: ApiMessage }> {
  const { status, body } = await api.post('/v1/asks', {
    runId: `typed-${++run}`,
    to: { channel: 'discord', chat },
    timeZone: 'Europe/Lisbon',
    questions,
    ...extra,
  });
  expect(status).toBe(201);
  const messageId = await eventually(
    async () => (await api.get(`/v1/asks/${body.id}`)).body.deliveries[0].message?.messageId as string | undefined,
  );
  return { id: body.id, msg: fake.messages.get(messageId)! };
}

const record = async (id: string) => (await api.get(`/v1/asks/${id}`)).body;
const result = async (id: string) => (await api.get(`/v1/asks/${id}?wait=5`)).body.result;
const buttonsOf = (m: ApiMessage) =>
  (m.components as { components: { label: string; custom_id: string }[] }[]).flatMap((r) => r.components);
const button = (m: ApiMessage, label: string) => buttonsOf(m).find((b) => b.label === label)!.custom_id;

/** Taps `label` on message `messageId` (the question, or an ephemeral notice) and waits for the modal. */
async function openModal(messageId: string, customId: string, who: ApiUser = alice): Promise<FakeInteraction> {
  const tap = fake.tap(messageId, customId, who);
  await eventually(async () => tap.ackType !== undefined);
  expect(tap.ackType).toBe(9);
  return tap;
}

/** Submits `opened`'s modal and returns the ephemeral notice (its text and buttons). */
async function submit(opened: FakeInteraction, values: ModalValues) {
  const sent = fake.submitModal(opened, values);
  await eventually(async () => sent.followUps.length > 0);
  expect(sent.ackType).toBe(6);
  const notice = sent.followUps[0]!;
  expect(notice.flags).toBe(64);
  return { text: visibleText(notice.content), buttons: notice.components.flatMap((r) => r.components), notice };
}

/** The question message once it is finalized (no buttons, edited). */
const finalized = (msg: ApiMessage) =>
  eventually(async () => {
    const m = fake.messages.get(msg.id)!;
    return m.components.length === 0 && m.edited_timestamp ? m : undefined;
  });

/** Each kind: what alice types in the modal, the value the agent gets, and the outcome line everyone reads. */
const OWN = 'Answered: their own words — by @alice';
const CASES: [keyof typeof KIND_QUESTIONS, string, unknown, string][] = [
  ['text', 'Quarterly report: Q4 numbers', 'Quarterly report: Q4 numbers', OWN],
  ['number', '7', 7, 'Answered: 7 — by @alice'],
  ['date', '12/08/2026', '2026-12-08', 'Answered: Dec 8, 2026 — by @alice'],
  ['time', '2:30 pm', '14:30', 'Answered: 2:30 PM, from “2:30 pm” — by @alice'],
  ['datetime', '2026-12-08 14:30', '2026-12-08T14:30:00+00:00', 'Answered: Dec 8, 2026, 2:30 PM GMT+0 — by @alice'],
  ['email', 'Ops.Team@Example.COM', 'Ops.Team@example.com', OWN],
  ['url', 'https://example.com/reports?q=4', 'https://example.com/reports?q=4', OWN],
];

describe('typed questions through a Discord modal', () => {
  it.each(CASES)('%s: Answer → modal → "%s" → the agent gets the value', async (kind, typed, value, shown) => {
    const q = KIND_QUESTIONS[kind];
    const { id, msg } = await ask([q]);
    expect(buttonsOf(msg).map((b) => b.label)).toEqual(['Answer', 'Skip']);
    const opened = await openModal(msg.id, button(msg, 'Answer'));
    expect(opened.modal!.components.map((c) => c.component.custom_id)).toEqual(['t1']);
    expect((await submit(opened, { t1: typed })).text).toBe('Answer recorded');
    const got = await result(id);
    expect(got).toMatchObject({ status: 'answered', values: { [q.id]: value } });
    expect(got.answers[q.id]).toEqual([String(value)]);
    if (typed !== String(value)) expect(got.raw).toEqual({ [q.id]: typed });
    const edited = visibleText((await finalized(msg)).content);
    expect(edited).toContain(`**${shown}**`);
    // Free text, addresses and links are never echoed where everyone reads.
    if (shown === OWN) expect(edited.toLowerCase()).not.toContain(String(value).toLowerCase());
  });

  it('an invalid value is refused ephemerally with what was expected; Answer on the notice re-opens it with the text', async () => {
    const { id, msg } = await ask([KIND_QUESTIONS.number]);
    const first = await submit(await openModal(msg.id, button(msg, 'Answer')), { t1: '42' });
    expect(first.text).toBe(
      `That answer is outside the allowed range. Please answer with a whole number between 1 and 10, for example 10. ${TAP_AGAIN}`,
    );
    // The notice carries the form's own Answer button (the same token, checked like any tap).
    expect(first.buttons).toEqual([expect.objectContaining({ label: 'Answer', custom_id: button(msg, 'Answer') })]);
    expect((await record(id)).status).toBe('pending');
    const again = await openModal(first.notice.messageId, button(msg, 'Answer'));
    expect(again.modal!.components[0].component).toMatchObject({ custom_id: 't1', value: '42' });
    // Still wrong (untouched): refused again; the Answer button on the question also keeps the text.
    expect((await submit(again, {})).text).toBe(first.text);
    const third = await openModal(msg.id, button(msg, 'Answer'));
    expect(third.modal!.components[0].component.value).toBe('42');
    expect((await submit(third, { t1: '4' })).text).toBe('Answer recorded');
    expect(await result(id)).toMatchObject({ status: 'answered', values: { replicas: 4 } });
    // Once recorded, what was typed is forgotten: a new ask's form opens empty.
    const next = await ask([KIND_QUESTIONS.number]);
    expect((await openModal(next.msg.id, button(next.msg, 'Answer'))).modal!.components[0].component.value).toBe(
      undefined,
    );
  });

  it('a mixed form: the valid parts are kept in the re-opened form, nothing is recorded until all fit', async () => {
    const env = {
      id: 'env',
      question: 'Where?',
      multiSelect: false,
      options: [{ label: 'Staging' }, { label: 'Production' }],
    };
    const { id, msg } = await ask([env, KIND_QUESTIONS.email, KIND_QUESTIONS.url]);
    const refused = await submit(await openModal(msg.id, button(msg, 'Answer')), {
      q1: '2',
      t2: 'not an address',
      t3: 'example.com/page',
    });
    expect(refused.text).toBe(
      'Question 2: I could not read that answer. Please answer with an email address, for example name@example.com. ' +
        'Question 3: I could not read that answer. Please answer with a link (http or https), for example https://example.com/page. ' +
        TAP_AGAIN,
    );
    // Nothing of what was typed is echoed, even to the person: the problems name the questions.
    expect(refused.text).not.toContain('not an address');
    const reopened = await openModal(refused.notice.messageId, button(msg, 'Answer'));
    const fields = reopened.modal!.components.map((c) => c.component);
    expect(fields.find((f) => f.custom_id === 'q1').options.map((o: any) => o.default ?? false)).toEqual([false, true]);
    expect(fields.find((f) => f.custom_id === 't2').value).toBe('not an address');
    expect(fields.find((f) => f.custom_id === 't3').value).toBe('example.com/page');
    expect((await record(id)).status).toBe('pending');
    const done = await submit(reopened, { t2: 'ops@example.com', t3: 'https://example.com/page' });
    expect(done.text).toBe('Answer recorded');
    expect(await result(id)).toMatchObject({
      status: 'answered',
      values: { env: ['Production'], to: 'ops@example.com', link: 'https://example.com/page' },
    });
  });

  it('a text question’s pattern: refused without echoing the text, then accepted', async () => {
    const ticket = { id: 'ticket', kind: 'text', question: 'Which ticket?', pattern: '[A-Z]{2,5}-[0-9]+' };
    const { id, msg } = await ask([ticket]);
    const refused = await submit(await openModal(msg.id, button(msg, 'Answer')), { t1: 'zqx secret 99' });
    expect(refused.text).toContain('That answer is not in the form this question asks for.');
    expect(refused.text).not.toContain('zqx');
    expect((await submit(await openModal(msg.id, button(msg, 'Answer')), { t1: 'OPS-42' })).text).toBe(
      'Answer recorded',
    );
    expect(await result(id)).toMatchObject({ status: 'answered', values: { ticket: 'OPS-42' } });
  });

  it('Skip skips a typed question', async () => {
    const { id, msg } = await ask([KIND_QUESTIONS.date]);
    const tap = fake.tap(msg.id, button(msg, 'Skip'), alice);
    await eventually(async () => tap.ackType !== undefined);
    expect(await result(id)).toMatchObject({ status: 'no_answer', reason: 'skipped' });
  });

  it('a timeout takes the typed default; the edited message shows it', async () => {
    const { id, msg } = await ask([KIND_QUESTIONS.number], {
      timeoutSeconds: 1,
      onTimeout: { default: { replicas: 3 } },
    });
    const got = await eventually(async () => {
      const r = await record(id);
      return r.status === 'no_answer' ? r.result : undefined;
    });
    expect(got).toMatchObject({ reason: 'timeout', defaults: { replicas: ['3'] }, values: { replicas: 3 } });
    expect(visibleText((await finalized(msg)).content)).toContain('3');
  });

  it('agree: 2 with a number: "2.5" (en-US) and "2,5" (de) agree through two modals; no Skip', async () => {
    const amount = { id: 'gb', kind: 'number', question: 'How much disk?', unit: 'GB' };
    const { id, msg } = await ask([amount], { agree: 2 });
    expect(buttonsOf(msg).map((b) => b.label)).toEqual(['Answer']);
    expect((await submit(await openModal(msg.id, button(msg, 'Answer')), { t1: '2.5' })).text).toBe(
      'Your answer is recorded: 1 of 2 matching answers so far.',
    );
    expect((await record(id)).status).toBe('pending');
    // Bob's client is German: his modal says what is expected in German, and "2,5" reads as 2.5.
    const bobs = await openModal(msg.id, button(msg, 'Answer'), bob);
    expect(bobs.modal!.title).toBe('Deine Antwort');
    await submit(bobs, { t1: '2,5 GB' });
    const got = await result(id);
    expect(got).toMatchObject({ status: 'answered', values: { gb: 2.5 } });
    expect(got.responses).toHaveLength(2);
  });

  it('hostile strings: question text stays plain in the modal; a hostile answer is kept verbatim, never echoed or pinging', async () => {
    const hostileQ = { ...KIND_QUESTIONS.text, header: '<@&1> **x**', question: '@everyone <@1> say **what**?' };
    const { id, msg } = await ask([hostileQ]);
    const opened = await openModal(msg.id, button(msg, 'Answer'));
    expect(opened.modal!.components[0].label).toBe('<@&1> **x**');
    const words = '@everyone <@&123> **bold** `x` ||spoiler|| [link](https://evil.example)';
    const { text, notice } = await submit(opened, { t1: words });
    expect(text).toBe('Answer recorded');
    expect(notice.allowed_mentions).toEqual({ parse: [] });
    expect(await result(id)).toMatchObject({ values: { subject: words } });
    const edited = await finalized(msg);
    expect(edited.content).not.toContain('evil.example');
    expect(edited.content).not.toContain('spoiler');
    // The question (its hostile text escaped) and its edit never ping anyone.
    expect(edited.content).toContain('@everyone \\<@1> say \\*\\*what\\*\\*?');
    const writes = fake.calls.filter(
      (c) =>
        (c.method === 'POST' && c.body?.content?.includes('say')) || (c.method === 'PATCH' && c.path.endsWith(msg.id)),
    );
    expect(writes.length).toBeGreaterThanOrEqual(2);
    for (const c of writes) expect(c.body.allowed_mentions).toEqual({ parse: [] });
  });
});
