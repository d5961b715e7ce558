import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { sleep } from '../helpers/wait.js';
import { FakeDiscord, type FakeInteraction } from '../fakes/discord-api.js';
import type { ModalValues } from '../fakes/discord-modals.js';
import { user, type ApiMessage } from '../fakes/discord-payloads.js';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { visibleText } from '../../src/channels/discord/render.js';
import { SHARED_OWN_UNCLEAR } from '../../src/channels/discord/modal-read.js';
import { TAP_AGAIN, TAP_OTHER_AGAIN } from '../../src/channels/discord/forms.js';
import type { RunningAskgate } from '../../src/main.js';

const quiet = { info() {}, warn() {}, error() {} };
const alice = user('311111111111111111', 'alice', 'Alice A.');
const bob = user('322222222222222222', 'bob', null);
const carol = user('333333333333333333', 'carol', null);

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
  const channel = new DiscordChannel({ token: fake.token, apiUrl: fake.apiUrl, logger: quiet });
  app = await startTestApp(testEnv({ REDIS_URL: redis.url }), [channel]);
  api = client(app.url);
});

afterAll(async () => {
  await app?.close();
  await fake?.close();
  await redis?.dispose();
});

const OPTIONS = [{ label: 'Alpha' }, { label: 'Beta', description: 'the second' }, { label: 'Gamma' }];
/** Question n: single choice or multi-select, over Alpha/Beta/Gamma. */
const question = (n: number, multiSelect: boolean) => ({
  id: `q${n}`,
  ...(n === 2 ? { header: `Pick ${n}` } : {}),
  question: `Question number ${n}: which ones?`,
  multiSelect,
  options: OPTIONS,
});
const questions = (count: number, multi: boolean) => Array.from({ length: count }, (_, i) => question(i + 1, multi));

async function ask(qs: object[], to: object = { channel: 'discord', chat }): Promise<{ id: string; msg: ApiMessage }> {
  const { body } = await api.post('/v1/asks', { runId: `forms-${++run}`, to, questions: qs });
  const messageId = await eventually(
    async () => (await api.get(`/v1/asks/${body.id}`)).body.deliveries[0].message?.messageId as string | undefined,
  );
  return { id: body.id, msg: fake.messages.get(messageId)! };
}

const result = async (id: string) => (await api.get(`/v1/asks/${id}?wait=5`)).body;
const buttons = (m: ApiMessage) =>
  (m.components as { components: { label: string; custom_id: string }[] }[]).flatMap((r) => r.components);
const button = (m: ApiMessage, label: string) => buttons(m).find((b) => b.label === label)!.custom_id;

/** Taps `label` (Answer or Other…) as `who` and waits for the modal Discord shows. */
async function openModal(msg: ApiMessage, who = alice, label = 'Answer'): Promise<FakeInteraction> {
  const tap = fake.tap(msg.id, button(msg, label), who);
  await eventually(async () => tap.ackType !== undefined);
  expect(tap.ackType).toBe(9);
  return tap;
}

/** Submits the modal of `opened` with `values` and returns the ephemeral notice the person got. */
async function submit(opened: FakeInteraction, values: ModalValues): Promise<string> {
  const sent = fake.submitModal(opened, values);
  await eventually(async () => sent.followUps.length > 0);
  expect(sent.ackType).toBe(6);
  expect(sent.followUps[0]!.flags).toBe(64);
  return visibleText(sent.followUps[0]!.content);
}

/** The finalized message once its buttons are gone. */
const finalized = (msg: ApiMessage) =>
  eventually(async () => {
    const m = fake.messages.get(msg.id)!;
    return m.components.length === 0 && m.edited_timestamp ? m : undefined;
  });

/** Shapes answered with the form only: the values entered and the labels the agent must get. */
const SHAPES: [string, number, boolean, ModalValues, Record<string, string[]>][] = [
  ['1 multi-select', 1, true, { q1: ['1', '3'] }, { q1: ['Alpha', 'Gamma'] }],
  ['1 multi-select + own words', 1, true, { q1: ['2'], w1: 'and Delta' }, { q1: ['Beta', 'and Delta'] }],
  ['2 single', 2, false, { q1: '2', q2: '1' }, { q1: ['Beta'], q2: ['Alpha'] }],
  ['2 single + own words', 2, false, { w1: 'none of these', q2: '3' }, { q1: ['none of these'], q2: ['Gamma'] }],
  ['2 multi-select', 2, true, { q1: ['1', '2'], q2: ['3'] }, { q1: ['Alpha', 'Beta'], q2: ['Gamma'] }],
  [
    '2 multi-select + own words',
    2,
    true,
    { w1: 'only mine', q2: ['1'], w2: 'plus this' },
    { q1: ['only mine'], q2: ['Alpha', 'plus this'] },
  ],
  ['3 single', 3, false, { q1: '1', q2: '2', q3: '3' }, { q1: ['Alpha'], q2: ['Beta'], q3: ['Gamma'] }],
  [
    '3 single + own words (the question left empty)',
    3,
    false,
    { q1: '1', q3: '3', w: 'my own pick' },
    { q1: ['Alpha'], q2: ['my own pick'], q3: ['Gamma'] },
  ],
  [
    '3 multi-select',
    3,
    true,
    { q1: ['1'], q2: ['2', '3'], q3: ['1', '3'] },
    {
      q1: ['Alpha'],
      q2: ['Beta', 'Gamma'],
      q3: ['Alpha', 'Gamma'],
    },
  ],
  [
    '3 multi-select + own words (numbered lines)',
    3,
    true,
    { q1: ['1'], q2: ['2'], w: '1: first extra\n3: third, in\ntwo lines' },
    { q1: ['Alpha', 'first extra'], q2: ['Beta'], q3: ['third, in\ntwo lines'] },
  ],
];

describe('Discord native forms (discord.js ↔ fake Discord, askgate on a private redis-server)', () => {
  it('1 single choice: a tap on an option answers (buttons, no form)', async () => {
    const { id, msg } = await ask(questions(1, false));
    expect(buttons(msg).map((b) => b.label)).toEqual(['Alpha', 'Beta', 'Gamma', 'Other…', 'Skip']);
    fake.tap(msg.id, button(msg, 'Beta'), alice);
    expect((await result(id)).result).toMatchObject({ status: 'answered', answers: { q1: ['Beta'] } });
  });

  it('1 single choice + own words: Other… opens a one-field modal and its submission answers', async () => {
    const { id, msg } = await ask(questions(1, false));
    const opened = await openModal(msg, alice, 'Other…');
    const modal = opened.modal!;
    expect(modal.custom_id).toBe(button(msg, 'Other…'));
    expect(modal.components).toHaveLength(1);
    expect(modal.components[0]).toMatchObject({
      type: 18,
      label: 'Your own words',
      description: 'Question number 1: which ones?',
      component: { type: 4, custom_id: 'w1', style: 2, required: true, min_length: 1, max_length: 4000 },
    });
    expect(await submit(opened, { w1: '  something else entirely ' })).toBe('Answer recorded');
    expect((await result(id)).result).toMatchObject({
      status: 'answered',
      answers: { q1: ['something else entirely'] },
      answeredBy: { channel: 'discord', userId: alice.id },
    });
    expect(visibleText((await finalized(msg)).content)).toContain('Answered: their own words — by @alice');
  });

  it.each(SHAPES)(
    '%s: Answer → modal → submit gives the agent the labels',
    async (_n, count, multi, values, answers) => {
      const { id, msg } = await ask(questions(count, multi));
      expect(buttons(msg).map((b) => b.label)).toEqual(['Answer', 'Skip']);
      expect(visibleText(msg.content)).toContain('Tap Answer to choose, or reply to this message.');
      const opened = await openModal(msg);
      const modal = opened.modal!;
      expect(modal.custom_id).toBe(button(msg, 'Answer'));
      expect(modal.components.length).toBeLessThanOrEqual(5);
      const groups = modal.components.filter((c) => c.component.type !== 4).map((c) => c.component);
      expect(groups.map((g) => g.custom_id)).toEqual(Array.from({ length: count }, (_, i) => `q${i + 1}`));
      for (const g of groups) {
        expect(g.type).toBe(multi ? 22 : 21);
        expect(g.options.map((o: { label: string }) => o.label)).toEqual(['Alpha', 'Beta', 'Gamma']);
        expect(g.required).toBe(false);
        if (multi) expect(g).toMatchObject({ min_values: 0, max_values: 3 });
      }
      const own = modal.components.filter((c) => c.component.type === 4).map((c) => c.component.custom_id);
      expect(own).toEqual(count === 3 ? ['w'] : Array.from({ length: count }, (_, i) => `w${i + 1}`));
      expect(await submit(opened, values)).toBe('Answer recorded');
      expect((await result(id)).result).toMatchObject({
        status: 'answered',
        answers,
        answeredBy: { channel: 'discord', userId: alice.id, username: 'alice' },
      });
      const done = await finalized(msg);
      expect(visibleText(done.content)).toMatch(/Answered.* — by @alice/);
      expect(visibleText(done.content)).toContain('Question number 1: which ones?');
    },
  );

  it("the form outcome is the typed answer's: same answers, same edited message", async () => {
    const typed = await ask(questions(2, true));
    fake.say(chat, alice, '1,2\n3', { replyTo: typed.msg.id });
    const byForm = await ask(questions(2, true));
    await submit(await openModal(byForm.msg), { q1: ['1', '2'], q2: ['3'] });
    const [a, b] = [(await result(typed.id)).result, (await result(byForm.id)).result];
    expect(b.answers).toEqual(a.answers);
    expect(b.answeredBy).toEqual(a.answeredBy);
    const [ea, eb] = [await finalized(typed.msg), await finalized(byForm.msg)];
    expect(eb.content).toBe(ea.content);
  });

  it('an incomplete submission is refused with the hint and the ask stays open', async () => {
    const { id, msg } = await ask(questions(2, false));
    const notice = await submit(await openModal(msg), { q1: '1' });
    expect(notice).toBe(`Question 2: Choose an option or write your own answer. ${TAP_AGAIN}`);
    const both = await submit(await openModal(msg), { q1: '1', w1: 'also mine', q2: '2' });
    expect(both).toBe(`Question 1: Choose an option or write your own answer, not both. ${TAP_AGAIN}`);
    expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
    const shared = await ask(questions(3, false));
    const unclear = await submit(await openModal(shared.msg), { q1: '1', w: 'which one is this for?' });
    expect(unclear).toBe(`${SHARED_OWN_UNCLEAR} ${TAP_AGAIN}`);
    expect((await api.get(`/v1/asks/${shared.id}`)).body.status).toBe('pending');
    // The form re-opens with what alice typed (w1 too): she clears her own words this time.
    expect(await submit(await openModal(msg), { q1: '1', w1: '', q2: '2' })).toBe('Answer recorded');
    // The client requires the Other… field; a blank one can only be forged, and is refused the same way.
    const single = await ask(questions(1, false));
    const blank = [{ type: 18, id: 1, component: { type: 4, id: 2, custom_id: 'w1', value: '  \u200b ' } }];
    const sent = fake.rawModalSubmit(single.msg.id, button(single.msg, 'Other…'), blank, alice);
    await eventually(async () => sent.followUps.length > 0);
    expect(visibleText(sent.followUps[0]!.content)).toBe(
      `Choose an option or write your own answer. ${TAP_OTHER_AGAIN}`,
    );
    expect((await api.get(`/v1/asks/${single.id}`)).body.status).toBe('pending');
  });

  it('a forged custom_id or forged option values change nothing', async () => {
    const { id, msg } = await ask(questions(2, false));
    const label = (component: object) => ({ type: 18, id: 1, component });
    const radio = (n: number, value: string | null) => label({ type: 21, id: 2, custom_id: `q${n}`, value });
    const forged = async (customId: string, components: object[]) => {
      const sent = fake.rawModalSubmit(msg.id, customId, components, alice);
      await eventually(async () => sent.followUps.length > 0);
      return visibleText(sent.followUps[0]!.content);
    };
    const token = button(msg, 'Answer');
    expect(await forged('not-a-token', [radio(1, '1'), radio(2, '1')])).toBe('This button is not valid');
    expect(await forged(token.replace(/\.f$/, '.s'), [radio(1, '1'), radio(2, '1')])).toBe('This button is not valid');
    const other = await ask(questions(2, false));
    expect(
      await forged(button(other.msg, 'Answer').replace(/\.1\.f$/, '.7.f'), [radio(1, '1'), radio(2, '1')]),
    ).toMatch(/no longer|not found|not valid/i);
    expect(await forged(token, [radio(1, '7'), radio(2, '1')])).toBe(
      `Question 1: This choice is not one of the options. ${TAP_AGAIN}`,
    );
    expect(await forged(token, [radio(1, '__proto__'), radio(2, '1')])).toMatch(/not one of the options/);
    expect(await forged(token, [radio(1, '1')])).toMatch(/does not match the question any more/);
    const checkbox = label({ type: 22, id: 2, custom_id: 'q1', values: ['1', '1', '0'] });
    expect(await forged(token, [checkbox, radio(2, '1')])).toMatch(/not one of the options/);
    expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
  });

  it('a submission after the ask was answered elsewhere gets the honest notice', async () => {
    const { id, msg } = await ask(questions(2, false));
    const answer = button(msg, 'Answer');
    const opened = await openModal(msg, bob);
    await api.post(`/v1/asks/${id}/answer`, { answers: { q1: ['Alpha'], q2: ['Beta'] }, by: 'ops' });
    expect(await submit(opened, { q1: '2', q2: '2' })).toMatch(/already answered/);
    expect((await result(id)).result).toMatchObject({ answers: { q1: ['Alpha'], q2: ['Beta'] } });
    await finalized(msg);
    const late = fake.tap(msg.id, answer, bob); // a client still showing the old buttons
    await eventually(async () => late.followUps.length > 0);
    expect(late.ackType).toBe(4); // no modal for an ask that ended
    expect(late.followUps[0]).toMatchObject({ flags: 64 });
    expect(visibleText(late.followUps[0]!.content)).toMatch(/already answered/);
  });

  it('a person the ask is not for gets an ephemeral notice and no modal', async () => {
    const { id, msg } = await ask(questions(2, true), { channel: 'discord', chat, users: [alice.id] });
    const tap = fake.tap(msg.id, button(msg, 'Answer'), bob);
    await eventually(async () => tap.followUps.length > 0);
    expect(tap.ackType).toBe(4);
    expect(tap.modal).toBeUndefined();
    expect(tap.followUps[0]).toMatchObject({ flags: 64, content: `This question is for <@${alice.id}>` });
    expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
  });

  it('two modal submissions and a Skip tap at once: one winner, the message finalized once', async () => {
    const { id, msg } = await ask(questions(2, false));
    const [a, b] = [await openModal(msg, alice), await openModal(msg, bob)];
    const racers = [
      fake.submitModal(a, { q1: '1', q2: '1' }),
      fake.submitModal(b, { q1: '2', q2: '2' }),
      fake.tap(msg.id, button(msg, 'Skip'), carol),
    ];
    await eventually(async () => racers.every((r) => r.followUps.length > 0));
    const notices = racers.map((r) => visibleText(r.followUps[0]!.content));
    const winner = notices.findIndex((n) => n === 'Answer recorded' || n === 'Skip recorded');
    expect(winner).toBeGreaterThanOrEqual(0);
    expect(notices.filter((n, i) => i !== winner && /already (answered|skipped) by @/.test(n))).toHaveLength(2);
    const { result: outcome } = await result(id);
    const expected = [
      { status: 'answered', answers: { q1: ['Alpha'], q2: ['Alpha'] }, answeredBy: { userId: alice.id } },
      { status: 'answered', answers: { q1: ['Beta'], q2: ['Beta'] }, answeredBy: { userId: bob.id } },
      { status: 'no_answer', reason: 'skipped', by: { userId: carol.id } },
    ][winner]!;
    expect(outcome).toMatchObject(expected);
    await finalized(msg);
    await sleep(300);
    const edits = fake.calls.filter((c) => c.method === 'PATCH' && c.path === `/channels/${chat}/messages/${msg.id}`);
    expect(edits).toHaveLength(1);
  });

  it('askgate never sends a second initial response: every callback it made was accepted', () => {
    const callbacks = fake.calls.filter((c) => c.path.startsWith('/interactions/'));
    expect(callbacks.length).toBeGreaterThan(30);
    expect(callbacks.filter((c) => c.status !== 204)).toEqual([]);
    expect(new Set(callbacks.map((c) => c.path)).size).toBe(callbacks.length);
  });
});
