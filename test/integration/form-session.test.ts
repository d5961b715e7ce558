import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { encodeToken, type ButtonChoice } from '../../src/core/token.js';
import type { RunningAskgate } from '../../src/main.js';
import type { FormInput, FormSessions } from '../../src/core/ports.js';

// A channel without modals (no Telegram here) answers a form step by step through the app's form
// session alone: one sink call per input, the channel drawing what the session returns.
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

async function ask(): Promise<string> {
  const before = channel.delivered.length;
  const to = { channel: 'test', chat: 'G1', users: ['U1', 'U2'] };
  const { status, body } = await api.post('/v1/asks', { runId: `session-${++run}`, to, questions, timeoutSeconds: 60 });
  expect(status).toBe(201);
  await expect.poll(() => channel.delivered.length).toBeGreaterThan(before);
  return body.id as string;
}

const sessions = (): FormSessions => channel.sink!.formSessions!;
const tap = (askId: string, choice: ButtonChoice, user = alice): Extract<FormInput, { kind: 'tap' }> => ({
  kind: 'tap',
  event: { channel: 'test', token: encodeToken({ askId, version: 1, choice }), user, chat: 'G1' },
  messageId: 'M1',
  onAsksMessage: true,
});

describe('the form session, reused by a channel without modals', () => {
  it('steps through a form, holds it for the first person, and answers it once complete', async () => {
    const id = await ask();
    const key = { askId: id, chat: 'G1', messageId: 'M1' };
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
      event: { channel: 'test', chat: 'G1', replyTo: 'P1', privateChat: false, user: alice, text: 'canary' },
    };
    const submitted = await sessions().step(words);
    expect(submitted).toEqual({ notice: '', recorded: true });
    const { body } = await api.get(`/v1/asks/${id}`);
    expect(body.result).toMatchObject({ status: 'answered', answers: { env: ['Production'], checks: ['canary'] } });
  });

  it('an incomplete form is refused with the hint and the form goes back to the question to fix', async () => {
    const id = await ask();
    await sessions().step(tap(id, { kind: 'step', question: 1 }));
    const refused = await sessions().step(tap(id, { kind: 'submit' }));
    expect(refused?.notice).toMatch(/^Question 1/);
    expect(refused?.draw?.key).toEqual({ askId: id, chat: 'G1', messageId: 'M1' });
    expect((await sessions().shown(refused!.draw!.key))?.draft?.step).toBe(0);
  });

  it("a reply to no prompt of the session is not the session's, and controls on another message are refused", async () => {
    const id = await ask();
    const stray = {
      kind: 'words' as const,
      event: { channel: 'test', chat: 'G1', replyTo: 'nope', privateChat: false, user: alice, text: 'x' },
    };
    expect(await sessions().step(stray)).toBeNull();
    const forged = { ...tap(id, { kind: 'pick', question: 0, index: 0 }), onAsksMessage: false };
    expect(await sessions().step(forged)).toEqual({ notice: 'This button is not valid' });
  });
});
