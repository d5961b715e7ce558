import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackChannel } from '../../src/channels/slack/slack-channel.js';
import { FORGED_FORM_ERROR } from '../../src/channels/slack/forms.js';
import { FORM_MESSAGES } from '../../src/core/forms.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import type { FormSubmitted, InboundOutcome } from '../../src/core/ports.js';
import { createLogger } from '../../src/logger.js';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { until } from '../helpers/wait.js';
import { FakeSlackApi, visibleMessage } from '../fakes/slack-api.js';
import { SlackInjector, serveRoutes } from '../fakes/slack-events.js';
import {
  ask,
  finalMessage,
  nextNotice,
  noticesFor,
  openModal,
  question,
  record,
  result,
  startWorld,
  tapPayload,
  type FormsWorld,
} from './slack-forms-world.js';

const ALICE = 'U0001';
let w: FormsWorld;

beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => {
  await w?.close();
});

const settle = () => new Promise((r) => setTimeout(r, 300));
const two = () => [question(1, false), question(2, true)];

describe('Slack forms: forged and stale submissions', () => {
  it('a private_metadata askgate did not write is refused in the modal; nothing recorded', async () => {
    const { id, message } = await ask(w, 'forged-meta', two());
    const view = await openModal(w, message, ALICE);
    const fill = { askgate_q1: ['Alpha 1'], askgate_q2: ['Beta 2'] };
    for (const forged of ['not json', '{"t":"x","c":"#general"}', '{"t":1}', '[]', '{"__proto__":{"t":"a"}}']) {
      const res = await w.slack.submitView(view, fill, { private_metadata: forged });
      expect(res.body).toEqual({ response_action: 'errors', errors: { askgate_q1: FORGED_FORM_ERROR } });
    }
    expect((await record(w, id)).status).toBe('pending');
  });

  it('a well-formed metadata naming another version, conversation or control is refused with a notice', async () => {
    const { id, message } = await ask(w, 'forged-token', two());
    const view = await openModal(w, message, 'U0201');
    const meta = JSON.parse(view.view.private_metadata);
    const fill = { askgate_q1: ['Alpha 1'], askgate_q2: ['Beta 2'] };
    const forgeries = [
      { ...meta, t: `${id}.7.f` },
      { ...meta, c: 'C0002' },
      { ...meta, t: `${id}.1.1` },
    ];
    for (const [i, forged] of forgeries.entries()) {
      const res = await w.slack.submitView(view, fill, { private_metadata: JSON.stringify(forged) });
      expect(res.text).toBe('');
      expect(await nextNotice(w, 'U0201', i)).toMatch(/^(This button is not valid|This question is no longer open)$/);
    }
    await settle();
    expect((await record(w, id)).status).toBe('pending');
  });

  it('forged option values and state shapes are refused, never clamped', async () => {
    const { id, message } = await ask(w, 'forged-values', two());
    const view = await openModal(w, message, ALICE);
    const own = (n: number) => ({ [`askgate_w${n}`]: { askgate_own: { type: 'plain_text_input', value: null } } });
    const values = (q1: object, q2: object) =>
      JSON.parse(
        JSON.stringify({
          askgate_q1: { askgate_choice: q1 },
          askgate_q2: { askgate_choice: q2 },
          ...own(1),
          ...own(2),
        }),
      );
    const ok2 = { type: 'checkboxes', selected_options: [{ value: '1' }] };
    const cases: [object, object, Record<string, string>][] = [
      [{ type: 'radio_buttons', selected_option: { value: '9' } }, ok2, { askgate_q1: FORM_MESSAGES.unknown }],
      [{ type: 'radio_buttons', selected_option: { value: '0' } }, ok2, { askgate_q1: FORM_MESSAGES.unknown }],
      [
        { type: 'radio_buttons', selected_option: { value: '1' } },
        { type: 'checkboxes', selected_options: [{ value: 'constructor' }, { value: '__proto__' }] },
        { askgate_q2: FORM_MESSAGES.unknown },
      ],
      [
        { type: 'checkboxes', selected_options: [{ value: '1' }, { value: '2' }] },
        ok2,
        { askgate_q1: FORM_MESSAGES.tooMany },
      ],
      [
        { type: 'radio_buttons', selected_option: 'x' },
        { type: 'checkboxes', selected_options: 'all' },
        { askgate_q1: FORM_MESSAGES.unknown, askgate_q2: FORM_MESSAGES.nothing },
      ],
    ];
    for (const [q1, q2, errors] of cases) {
      const res = await w.slack.submitView(view, { values: values(q1, q2) });
      expect(res.body).toEqual({ response_action: 'errors', errors });
    }
    const proto = JSON.parse('{"__proto__": {"askgate_choice": {}}, "constructor": {}}');
    // No askgate field at all: nothing to put an error beside; the modal closes and nothing is recorded.
    expect((await w.slack.submitView(view, { values: proto })).text).toBe('');
    expect((await record(w, id)).status).toBe('pending');
  });

  it('a submission after the ask was answered elsewhere closes the modal with the honest notice', async () => {
    const { id, message } = await ask(w, 'late', two());
    const view = await openModal(w, message, 'U0301');
    await w.slack.postEvent(
      w.slack.messageEvent({ channel: message.channel, user: 'U0302', text: '2\n3', threadTs: message.ts }),
    );
    const answered = await result(w, id);
    expect(answered).toMatchObject({ status: 'answered', answeredBy: { userId: 'U0302' } });
    const res = await w.slack.submitView(view, { askgate_q1: ['Alpha 1'], askgate_q2: ['Alpha 2'] });
    expect(res.text).toBe('');
    expect(await nextNotice(w, 'U0301', 0)).toMatch(/^This question was already answered/);
    expect((await record(w, id)).result).toEqual(answered);
  });

  it('two people submitting and a third tapping Skip at once: one winner, the message finalized once', async () => {
    const { id, message } = await ask(w, 'race', two());
    const [a, b] = await Promise.all([openModal(w, message, 'U0401'), openModal(w, message, 'U0402')]);
    const skip = tapPayload(w, message, 'Skip', 'U0403');
    await Promise.all([
      w.slack.submitView(a, { askgate_q1: ['Alpha 1'], askgate_q2: ['Alpha 2'] }),
      w.slack.submitView(b, { askgate_q1: ['Beta 1'], askgate_q2: ['Beta 2'] }),
      w.slack.postInteractive(skip),
    ]);
    const final = await result(w, id);
    const notices = await eventually(async () => {
      const all = ['U0401', 'U0402', 'U0403'].map((u) => noticesFor(w, u));
      return all.every((n) => n.length === 1) && all.flat();
    });
    expect(notices.filter((n) => n === 'Answer recorded' || n === 'Skip recorded')).toHaveLength(1);
    // Whoever won, answering or skipping, the other two are told so.
    expect(notices.filter((n) => /^This question was already (answered|skipped)\b/.test(n))).toHaveLength(2);
    const winner = final.status === 'answered' ? final.answeredBy.userId : final.by.userId;
    expect(['U0401', 'U0402', 'U0403']).toContain(winner);
    const shown = await finalMessage(w, id, message);
    expect(shown.buttons).toEqual([]);
    await settle();
    expect(w.fake.callsOf('chat.update').filter((c) => c.params.ts === message.ts)).toHaveLength(1);
    expect((await record(w, id)).result).toEqual(final);
  });

  it('never logs tokens or own words', async () => {
    const { id, message } = await ask(w, 'secret', [question(1, true)]);
    const view = await openModal(w, message, ALICE);
    await w.slack.submitView(view, { askgate_w1: 'hunter2-secret-words' });
    await result(w, id);
    const log = w.logLines.join('');
    for (const secret of [w.fake.token, 'hunter2-secret-words']) expect(log).not.toContain(secret);
  });
});

describe('Slack forms in Socket Mode', () => {
  let socketApp: RunningAskgate;

  beforeAll(async () => {
    const channel = new SlackChannel({
      token: w.fake.token,
      appToken: w.fake.appToken,
      apiUrl: `${w.fake.url}/api/`,
      logger: createLogger('silent'),
    });
    socketApp = await startTestApp(testEnv({ REDIS_URL: w.redis.url }), [channel]);
  });
  afterAll(async () => {
    await socketApp?.close();
  });

  it('opens the modal from an envelope; the errors and the close ride on the envelope acks', async () => {
    const api = client(socketApp.url);
    const created = await api.post('/v1/asks', {
      runId: 'slack-forms-socket',
      questions: two(),
      to: { channel: 'slack', chat: 'C0002' },
    });
    const ref = await eventually(async () => (await api.get(`/v1/asks/${created.body.id}`)).body.deliveries[0].message);
    const message = w.fake.message(ref.chat, ref.messageId)!;
    await w.fake.sendEnvelope('interactive', tapPayload(w, message, 'Answer', 'U0501'));
    const view = await until(() => w.fake.viewsFor('U0501')[0]);
    const bad = await w.fake.sendEnvelope('interactive', w.slack.viewSubmission(view, {}));
    expect(w.fake.acks.get(bad)).toEqual({
      response_action: 'errors',
      errors: { askgate_q1: FORM_MESSAGES.nothing, askgate_q2: FORM_MESSAGES.nothing },
    });
    const good = await w.fake.sendEnvelope(
      'interactive',
      w.slack.viewSubmission(view, { askgate_q1: ['Gamma 1'], askgate_q2: ['Beta 2'], askgate_w2: 'and mine' }),
    );
    // An ack without response_action closes the modal (the socket client sends it as an empty payload).
    expect(w.fake.acks.get(good) ?? {}).toEqual({});
    expect((await api.get(`/v1/asks/${created.body.id}?wait=10`)).body.result).toMatchObject({
      status: 'answered',
      answers: { q1: ['Gamma 1'], q2: ['Beta 2', 'and mine'] },
      answeredBy: { userId: 'U0501' },
    });
  });
});

describe('Slack forms: a slow or failing store', () => {
  it('a failing submit keeps the modal open with a retry error; a slow one closes it and posts the outcome later', async () => {
    const fake = await FakeSlackApi.start();
    const secret = 'slow-store-secret';
    const channel = new SlackChannel({
      token: fake.token,
      signingSecret: secret,
      apiUrl: `${fake.url}/api/`,
      logger: createLogger('silent'),
    });
    const host = await serveRoutes(channel.routes());
    try {
      const view = buildPromptView({ id: 'SlowFormAsk00001', version: 1, questions: two() });
      let release!: (o: InboundOutcome) => void;
      const submits: FormSubmitted[] = [];
      let mode: 'fail' | 'slow' = 'fail';
      await channel.start({
        button: async () => ({ kind: 'ignored' }),
        text: async () => ({ kind: 'ignored' }),
        openForm: async () => ({ kind: 'form', view, choice: { kind: 'form' } }),
        submitForm: async (event) => {
          submits.push(event);
          if (mode === 'fail') throw new Error('store unavailable');
          return new Promise<InboundOutcome>((r) => (release = r));
        },
        bindFollowUp: async () => {},
      });
      const inject = new SlackInjector(`${host.url}/slack/events`, secret, fake);
      const ref = await channel.deliver({
        askId: view.askId,
        version: 1,
        target: { channel: 'slack', chat: 'C0001' },
        view,
      });
      const message = fake.message(ref.chat, ref.messageId)!;
      const answer = visibleMessage(message).buttons.find((b) => b.label === 'Answer')!;
      await inject.postInteractive(inject.blockAction(message, answer.data, 'U0601'));
      const opened = await until(() => fake.viewsFor('U0601')[0]);
      const fill = { askgate_q1: ['Beta 1'], askgate_q2: ['Alpha 2'] };
      const failed = await inject.submitView(opened, fill);
      expect(failed.body).toEqual({
        response_action: 'errors',
        errors: { askgate_q1: 'askgate could not record this right now. Please try again.' },
      });
      mode = 'slow';
      const slow = await inject.submitView(opened, fill);
      expect(slow).toMatchObject({ status: 200, text: '' });
      expect(fake.ephemeralsFor('U0601')).toEqual([]);
      release({ kind: 'recorded', summary: 'Answer recorded' });
      expect((await until(() => fake.ephemeralsFor('U0601')[0])).text).toBe('Answer recorded');
      expect(submits.map((s) => s.answers)).toEqual([
        [{ choices: [1] }, { choices: [0] }],
        [{ choices: [1] }, { choices: [0] }],
      ]);
      expect(submits[0]).toMatchObject({
        channel: 'slack',
        chat: 'C0001',
        user: { userId: 'U0601', username: 'u0601' },
      });
    } finally {
      await channel.stop();
      await host.close();
      await fake.close();
    }
  });
});
