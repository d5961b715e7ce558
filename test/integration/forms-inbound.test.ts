import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { decodeToken, encodeToken, type ButtonChoice } from '../../src/core/token.js';
import { FORM_MESSAGES } from '../../src/core/forms.js';
import type { RunningAskgate } from '../../src/main.js';
import type { PromptView } from '../../src/core/prompt-view.js';
import type { FormInput, FormSessions } from '../../src/core/ports.js';

const channel = new RecordingChannel('test');
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let run = 0;

beforeAll(async () => {
  app = await startTestApp(testEnv(), [channel]);
  api = client(app.url);
});
afterAll(async () => {
  await app?.close();
});

const questions = [
  { id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] },
  {
    id: 'checks',
    question: 'Which checks?',
    multiSelect: true,
    options: [{ label: 'lint' }, { label: 'tests' }, { label: 'e2e' }],
  },
];
const alice = { channel: 'test', userId: 'U1', username: 'alice' };
const bob = { channel: 'test', userId: 'U2', username: 'bob' };

/** Creates an ask in chat C1 and returns its id and the view the channel was given. */
async function ask(extra: Record<string, unknown> = {}): Promise<{ id: string; view: PromptView }> {
  const before = channel.delivered.length;
  const { status, body } = await api.post('/v1/asks', {
    runId: `forms-${++run}`,
    to: { channel: 'test', chat: 'C1' },
    questions,
    timeoutSeconds: 60,
    ...extra,
  });
  expect(status).toBe(201);
  await expect.poll(() => channel.delivered.length).toBeGreaterThan(before);
  return { id: body.id, view: channel.delivered.at(-1)!.view };
}

const sink = () => channel.sink!;

describe('forms through the inbound handler', () => {
  it('gives a prompt without buttons an Answer and a Skip token of its own version', async () => {
    const { id, view } = await ask();
    expect(view.buttons).toBeNull();
    expect(decodeToken(view.form!.open)).toEqual({ askId: id, version: 1, choice: { kind: 'form' } });
    expect(decodeToken(view.form!.skip)).toEqual({ askId: id, version: 1, choice: { kind: 'skip' } });
    expect(view.form!.instructions).toMatch(/^Tap Answer/);
  });

  it('opens the form, then a submission answers every question with the declared labels', async () => {
    const { id, view } = await ask();
    const opening = await sink().openForm({ channel: 'test', token: view.form!.open, user: alice, chat: 'C1' });
    expect(opening).toMatchObject({ kind: 'form', choice: { kind: 'form' }, view: { askId: id } });
    const outcome = await sink().submitForm({
      channel: 'test',
      token: view.form!.open,
      user: alice,
      chat: 'C1',
      answers: [{ choices: [1] }, { choices: [2, 0], own: 'fuzzing' }],
    });
    expect(outcome.kind).toBe('recorded');
    const { body } = await api.get(`/v1/asks/${id}`);
    expect(body.result).toMatchObject({
      status: 'answered',
      answers: { env: ['Production'], checks: ['e2e', 'lint', 'fuzzing'] },
      answeredBy: { channel: 'test', userId: 'U1', username: 'alice' },
    });
    // The same form again, and a tap, find the ask answered: one winner.
    const again = await sink().submitForm({
      channel: 'test',
      token: view.form!.open,
      user: bob,
      chat: 'C1',
      answers: [{ choices: [0] }, { choices: [0] }],
    });
    expect(again).toMatchObject({ kind: 'already_resolved' });
    expect(await sink().openForm({ channel: 'test', token: view.form!.open, user: bob, chat: 'C1' })).toMatchObject({
      kind: 'already_resolved',
    });
  });

  it('refuses an incomplete form with what to fix per question and leaves the ask open', async () => {
    const { id, view } = await ask();
    const outcome = await sink().submitForm({
      channel: 'test',
      token: view.form!.open,
      user: alice,
      chat: 'C1',
      answers: [{ choices: [0], own: 'also this' }, { choices: [] }],
    });
    expect(outcome).toEqual({
      kind: 'invalid',
      askId: id,
      hint: `Question 1: ${FORM_MESSAGES.both} Question 2: ${FORM_MESSAGES.nothing}`,
      problems: [
        { question: 0, message: FORM_MESSAGES.both },
        { question: 1, message: FORM_MESSAGES.nothing },
      ],
    });
    expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
  });

  it('refuses forged and stale forms: another chat, an old version, a forged token, a control of another shape', async () => {
    const { id, view } = await ask();
    const answers = [{ choices: [0] }, { choices: [0] }];
    const base = { channel: 'test', user: alice, answers };
    expect(await sink().submitForm({ ...base, token: view.form!.open, chat: 'C2' })).toMatchObject({
      kind: 'not_found',
    });
    expect(await sink().submitForm({ ...base, token: view.form!.open })).toMatchObject({ kind: 'not_found' });
    const old = encodeToken({ askId: id, version: 2, choice: { kind: 'form' } });
    expect(await sink().submitForm({ ...base, token: old, chat: 'C1' })).toMatchObject({ kind: 'not_found' });
    expect(await sink().submitForm({ ...base, token: `${id}.1.f ; drop`, chat: 'C1' })).toMatchObject({
      kind: 'not_found',
    });
    // A submit may not come from an option button, nor "Other" of an ask with several questions.
    for (const choice of [{ kind: 'skip' }, { kind: 'other' }, { kind: 'option', index: 0 }] as const) {
      const token = encodeToken({ askId: id, version: 1, choice });
      expect(await sink().submitForm({ ...base, token, chat: 'C1' })).toMatchObject({ kind: 'not_found' });
    }
    // Draft controls must name a question and option the ask has, of the right kind.
    for (const choice of [
      { kind: 'toggle', question: 0, index: 0 },
      { kind: 'pick', question: 1, index: 0 },
      { kind: 'pick', question: 0, index: 3 },
      { kind: 'step', question: 2 },
    ] as const) {
      const token = encodeToken({ askId: id, version: 1, choice });
      expect(await sink().openForm({ channel: 'test', token, user: alice, chat: 'C1' })).toMatchObject({
        kind: 'not_found',
      });
    }
    const toggle = encodeToken({ askId: id, version: 1, choice: { kind: 'toggle', question: 1, index: 2 } });
    expect(await sink().openForm({ channel: 'test', token: toggle, user: alice, chat: 'C1' })).toMatchObject({
      kind: 'form',
      choice: { kind: 'toggle', question: 1, index: 2 },
    });
    expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
  });

  it('refuses a person not in users, naming who may answer', async () => {
    const { view } = await ask({ to: { channel: 'test', chat: 'C1', users: ['U2'] } });
    const outcome = await sink().openForm({ channel: 'test', token: view.form!.open, user: alice, chat: 'C1' });
    expect(outcome).toMatchObject({ kind: 'forbidden' });
  });

  it('answers a single question in own words through the one-field form of Other…', async () => {
    const { id, view } = await ask({ questions: [questions[0]] });
    const other = view.buttons!.find((b) => b.kind === 'other')!.token;
    expect(await sink().openForm({ channel: 'test', token: other, user: alice, chat: 'C1' })).toMatchObject({
      kind: 'form',
      choice: { kind: 'other' },
    });
    const outcome = await sink().submitForm({
      channel: 'test',
      token: other,
      user: alice,
      chat: 'C1',
      answers: [{ choices: [], own: 'the canary' }],
    });
    expect(outcome.kind).toBe('recorded');
    expect((await api.get(`/v1/asks/${id}`)).body.result.answers).toEqual({ env: ['the canary'] });
  });

  it('counts a form towards an ask that needs two matching answers', async () => {
    const { id, view } = await ask({ agree: 2 });
    expect(view.form!.skip).toBeNull();
    const answers = [{ choices: [0] }, { choices: [1] }];
    const first = await sink().submitForm({
      channel: 'test',
      token: view.form!.open,
      user: alice,
      chat: 'C1',
      answers,
    });
    expect(first).toMatchObject({ kind: 'recorded', summary: expect.stringMatching(/1 of 2/) });
    const second = await sink().submitForm({ channel: 'test', token: view.form!.open, user: bob, chat: 'C1', answers });
    expect(second.kind).toBe('recorded');
    const { body } = await api.get(`/v1/asks/${id}`);
    expect(body.result).toMatchObject({ status: 'answered', answers: { env: ['Staging'], checks: ['tests'] } });
    expect(body.result.responses).toHaveLength(2);
  });
});

const sessions = (): FormSessions => channel.sink!.formSessions!;
const tap = (askId: string, choice: ButtonChoice, user = alice): Extract<FormInput, { kind: 'tap' }> => ({
  kind: 'tap',
  event: { channel: 'test', token: encodeToken({ askId, version: 1, choice }), user, chat: 'C1' },
  messageId: 'M1',
  onAsksMessage: true,
});

// A channel without modals (no Telegram here) answers a form step by step through the app's form
// session alone: one sink call per input, the channel drawing what the session returns.
describe('the form session, reused by a channel without modals', () => {
  it('steps through a form, holds it for the first person, and answers it once complete', async () => {
    const { id } = await ask();
    const key = { askId: id, chat: 'C1', messageId: 'M1' };
    const picked = await sessions().step(tap(id, { kind: 'pick', question: 0, index: 1 }));
    expect(picked).toMatchObject({ notice: '', draw: { key, view: { askId: id } } });
    expect((await sessions().shown(key))?.draft).toMatchObject({ step: 1, parts: [{ choices: [1] }, { choices: [] }] });
    expect(await sessions().step(tap(id, { kind: 'toggle', question: 1, index: 2 }, bob))).toEqual({
      notice: '@alice is answering',
    });
    const skip = { kind: 'skip' as const, event: tap(id, { kind: 'skip' }, bob).event, messageId: 'M1' };
    expect(await sessions().step(skip)).toEqual({ notice: '@alice is answering' });
    const own = await sessions().step(tap(id, { kind: 'own', question: 1 }));
    expect(own?.askOwn?.question).toBe(1);
    await own!.askOwn!.sent('P1');
    const words = {
      kind: 'words' as const,
      event: { channel: 'test', chat: 'C1', replyTo: 'P1', privateChat: false, user: alice, text: 'canary' },
    };
    const submitted = await sessions().step(words);
    expect(submitted).toEqual({ notice: '', recorded: true });
    const { body } = await api.get(`/v1/asks/${id}`);
    expect(body.result).toMatchObject({ status: 'answered', answers: { env: ['Production'], checks: ['canary'] } });
  });

  it('an incomplete form is refused with the hint and the form goes back to the question to fix', async () => {
    const { id } = await ask();
    await sessions().step(tap(id, { kind: 'step', question: 1 }));
    const refused = await sessions().step(tap(id, { kind: 'submit' }));
    expect(refused?.notice).toMatch(/^Question 1/);
    expect(refused?.draw?.key).toEqual({ askId: id, chat: 'C1', messageId: 'M1' });
    expect((await sessions().shown(refused!.draw!.key))?.draft?.step).toBe(0);
  });

  it("a reply to no prompt of the session is not the session's, and controls on another message are refused", async () => {
    const { id } = await ask();
    const stray = {
      kind: 'words' as const,
      event: { channel: 'test', chat: 'C1', replyTo: 'nope', privateChat: false, user: alice, text: 'x' },
    };
    expect(await sessions().step(stray)).toBeNull();
    const forged = { ...tap(id, { kind: 'pick', question: 0, index: 0 }), onAsksMessage: false };
    expect(await sessions().step(forged)).toEqual({ notice: 'This button is not valid' });
  });
});
