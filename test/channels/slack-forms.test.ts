import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { SLACK_CAPABILITIES } from '../../src/channels/slack/capabilities.js';
import { FORM_MESSAGES } from '../../src/core/forms.js';
import { NOT_OPENED_NOTICE, OWN_NOT_OPENED_NOTICE } from '../../src/channels/slack/forms.js';
import { visibleMessage } from '../fakes/slack-api.js';
import { renderModal, TRIGGER_LIFETIME_MS } from '../fakes/slack-views.js';
import {
  ask,
  CHAT,
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

const SHAPES = [1, 2, 3].flatMap((count) =>
  [false, true].flatMap((multi) => [false, true].map((own) => ({ count, multi, own }))),
);

describe('Slack forms: every shape answered with taps and modals only', () => {
  it.each(SHAPES)('$count question(s), multiSelect $multi, own words $own', async ({ count, multi, own }) => {
    const questions = Array.from({ length: count }, (_, i) => question(i + 1, multi));
    const { id, message } = await ask(w, 'shape', questions);
    const before = noticesFor(w, ALICE).length;
    const shown = visibleMessage(message);
    for (const q of questions) expect(shown.text).toContain(q.question);
    const expected: Record<string, string[]> = {};

    if (count === 1 && !multi) {
      // A single single-choice question keeps its option buttons; Other… opens a one-field modal.
      expect(shown.buttons.map((b) => b.label)).toEqual(['Alpha 1', 'Beta 1', 'Gamma 1', 'Other…', 'Skip']);
      if (own) {
        const view = await openModal(w, message, ALICE, 'Other…');
        expect(view.view.blocks).toHaveLength(1);
        expect(view.view.blocks[0]).toMatchObject({ type: 'input', optional: false });
        const res = await w.slack.submitView(view, { askgate_w1: '  my own & <words>  ' });
        expect(res).toMatchObject({ status: 200, text: '' });
        expected.q1 = ['my own & <words>'];
      } else {
        await w.slack.postInteractive(tapPayload(w, message, 'Beta 1', ALICE));
        expected.q1 = ['Beta 1'];
      }
    } else {
      expect(shown.buttons.map((b) => b.label)).toEqual(['Answer', 'Skip']);
      expect(shown.text).toContain('Tap Answer to choose, or reply in this thread.');
      const view = await openModal(w, message, ALICE);
      expect(view.view.blocks).toHaveLength(count * 2);
      const fill: Record<string, string[] | string> = {};
      questions.forEach((q, i) => {
        const n = i + 1;
        const ownHere = own && n === count;
        if (multi) {
          fill[`askgate_q${n}`] = [`Alpha ${n}`, `Gamma ${n}`];
          if (ownHere) fill[`askgate_w${n}`] = `extra ${n}`;
          expected[q.id] = [`Alpha ${n}`, `Gamma ${n}`, ...(ownHere ? [`extra ${n}`] : [])];
        } else if (ownHere) {
          fill[`askgate_w${n}`] = `instead ${n}`;
          expected[q.id] = [`instead ${n}`];
        } else {
          fill[`askgate_q${n}`] = [`Beta ${n}`];
          expected[q.id] = [`Beta ${n}`];
        }
      });
      const res = await w.slack.submitView(view, fill);
      expect(res).toMatchObject({ status: 200, text: '' });
    }
    expect(await result(w, id)).toMatchObject({
      status: 'answered',
      answers: expected,
      answeredBy: { channel: 'slack', userId: ALICE, username: 'u0001' },
    });
    const final = await finalMessage(w, id, message);
    expect(final.buttons).toEqual([]);
    expect(final.text).toContain('— by @u0001');
    for (const q of questions) expect(final.text).toContain(q.question);
    expect(await nextNotice(w, ALICE, before)).toBe('Answer recorded');
  });

  it('the message is finalized as for a typed answer: same outcome line, same answers', async () => {
    const questions = [question(1, false), question(2, true)];
    const byForm = await ask(w, 'final-form', questions);
    const view = await openModal(w, byForm.message, 'U0701');
    await w.slack.submitView(view, { askgate_q1: ['Gamma 1'], askgate_q2: ['Alpha 2', 'Beta 2'] });
    const byText = await ask(w, 'final-text', questions);
    await w.slack.postEvent(
      w.slack.messageEvent({ channel: CHAT, user: 'U0701', text: '3\n1,2', threadTs: byText.message.ts }),
    );
    const [formResult, textResult] = [await result(w, byForm.id), await result(w, byText.id)];
    expect(formResult.answers).toEqual(textResult.answers);
    const [formFinal, textFinal] = [
      await finalMessage(w, byForm.id, byForm.message),
      await finalMessage(w, byText.id, byText.message),
    ];
    // The form's tap carries the username; a typed reply only the user id.
    const who = (text: string) => text.replace(/ — by .*$/m, ' — by …');
    expect(who(formFinal.text)).toBe(who(textFinal.text));
    expect(formFinal.text).toContain('Answered — by @u0701\n1. Part 1: Gamma 1\n2. Part 2: Alpha 2, Beta 2');
    expect(formFinal.buttons).toEqual([]);
  });

  it('renders the modal: radio buttons or checkboxes with descriptions, own words, Submit and Cancel', async () => {
    const { message } = await ask(w, 'render', [question(1, false), question(2, true)]);
    const view = await openModal(w, message, 'U0042');
    expect(renderModal(view.view)).toBe(
      [
        '┌─ Answer the questions ─┐',
        '1. Part 1: Question 1: pick one? (optional)',
        '  Choose one, or write your own answer below.',
        '  ( ) Alpha 1 — first of 1',
        '  ( ) Beta 1',
        '  ( ) Gamma 1',
        'Other (in your own words) (optional)',
        '  [ Optional ]',
        '2. Part 2: Question 2: pick any? (optional)',
        '  Choose any that apply; your own words below are added to them.',
        '  [ ] Alpha 2 — first of 2',
        '  [ ] Beta 2',
        '  [ ] Gamma 2',
        'Other (in your own words) (optional)',
        '  [ Optional ]',
        '[Cancel]  [Submit]',
      ].join('\n'),
    );
    expect(view.view.callback_id).toBe('askgate_form');
    expect(JSON.parse(view.view.private_metadata)).toEqual({ t: expect.any(String), c: CHAT });
  });

  it('Skip on a form prompt declines', async () => {
    const { id, message } = await ask(w, 'skip', [question(1, true)]);
    await w.slack.postInteractive(tapPayload(w, message, 'Skip', ALICE));
    expect(await result(w, id)).toMatchObject({ status: 'no_answer', reason: 'skipped', by: { userId: ALICE } });
  });
});

describe('Slack forms: problems are shown in the modal', () => {
  it('nothing chosen, then an option and own words on a single choice: errors by block; then it answers', async () => {
    const { id, message } = await ask(w, 'invalid', [question(1, false), question(2, true)]);
    const view = await openModal(w, message, ALICE);
    const empty = await w.slack.submitView(view, {});
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      response_action: 'errors',
      errors: { askgate_q1: FORM_MESSAGES.nothing, askgate_q2: FORM_MESSAGES.nothing },
    });
    const both = await w.slack.submitView(view, {
      askgate_q1: ['Alpha 1'],
      askgate_w1: 'and something else',
      askgate_q2: ['Beta 2'],
    });
    expect(both.body).toEqual({ response_action: 'errors', errors: { askgate_q1: FORM_MESSAGES.both } });
    expect((await record(w, id)).status).toBe('pending');
    // The modal stayed open: the same view submits again.
    const fixed = await w.slack.submitView(view, { askgate_w1: 'something else', askgate_q2: ['Beta 2'] });
    expect(fixed.text).toBe('');
    expect(await result(w, id)).toMatchObject({
      status: 'answered',
      answers: { q1: ['something else'], q2: ['Beta 2'] },
    });
  });

  it('blank own words in the Other… modal are shown as an error in it', async () => {
    const { id, message } = await ask(w, 'blank', [question(1, false)]);
    const view = await openModal(w, message, ALICE, 'Other…');
    const res = await w.slack.submitView(view, { askgate_w1: ' \u200b ' });
    expect(res.body).toEqual({ response_action: 'errors', errors: { askgate_w1: FORM_MESSAGES.nothing } });
    expect((await record(w, id)).status).toBe('pending');
  });
});

describe('Slack forms: trigger_id rules', () => {
  it('an expired trigger_id: the person is told the form did not open; a new tap opens it', async () => {
    const { id, message } = await ask(w, 'expired', [question(1, true), question(2, false)]);
    const payload = tapPayload(w, message, 'Answer', 'U0101');
    w.skew.ms = TRIGGER_LIFETIME_MS + 1;
    try {
      expect((await w.slack.postInteractive(payload)).status).toBe(200);
      expect(await nextNotice(w, 'U0101', 0)).toBe(NOT_OPENED_NOTICE);
    } finally {
      w.skew.ms = 0;
    }
    expect(w.fake.viewsFor('U0101')).toEqual([]);
    const view = await openModal(w, message, 'U0101');
    await w.slack.submitView(view, { askgate_q1: ['Beta 1'], askgate_q2: ['Gamma 2'] });
    expect(await result(w, id)).toMatchObject({ answers: { q1: ['Beta 1'], q2: ['Gamma 2'] } });
  });

  it('a reused trigger_id is refused (exchanged): one modal, a notice, and the ask still answerable', async () => {
    const { id, message } = await ask(w, 'reused', [question(1, false)]);
    const payload = tapPayload(w, message, 'Other…', 'U0102');
    await w.slack.postInteractive(payload);
    await w.slack.postInteractive(payload);
    expect(await nextNotice(w, 'U0102', 0)).toBe(OWN_NOT_OPENED_NOTICE);
    expect(w.fake.viewsFor('U0102')).toHaveLength(1);
    const res = await w.slack.submitView(w.fake.viewsFor('U0102')[0]!, { askgate_w1: 'mine' });
    expect(res.text).toBe('');
    expect(await result(w, id)).toMatchObject({ answers: { q1: ['mine'] } });
  });

  it('a refusal from openForm is shown ephemerally and opens no modal', async () => {
    const { message } = await ask(w, 'forbidden', [question(1, true)], { users: [ALICE] });
    await w.slack.postInteractive(tapPayload(w, message, 'Answer', 'U0666'));
    expect(await nextNotice(w, 'U0666', 0)).toBe(`This question is for ${ALICE}`);
    expect(w.fake.viewsFor('U0666')).toEqual([]);
  });
});

describe('Slack forms: limits', () => {
  it('a prompt whose modal cannot fit keeps the text form (no Answer button)', async () => {
    const questions = [
      {
        id: 'wide',
        question: 'Which of eleven?',
        multiSelect: true,
        options: Array.from({ length: 11 }, (_, i) => ({ label: `Option ${i + 1}` })),
      },
    ];
    // The view as askgate builds it for Slack: core finds the modal does not fit its capabilities.
    const view = buildPromptView({ id: 'TooWideAsk000001', version: 1, questions }, undefined, SLACK_CAPABILITIES);
    const ref = await w.channel.deliver({
      askId: view.askId,
      version: 1,
      target: { channel: 'slack', chat: CHAT },
      view,
    });
    const shown = visibleMessage(w.fake.message(ref.chat, ref.messageId)!);
    expect(shown.buttons).toEqual([]);
    expect(shown.text).toContain('Reply in this thread.');
    expect(shown.text).toContain('Option 11');
  });

  it('long and hostile texts are cut to the modal limits and escaped; Slack accepts the modal', async () => {
    const long = {
      id: 'long',
      header: 'H&<>',
      question: `${'&<>'.repeat(333)}?`,
      multiSelect: true,
      options: [{ label: `<!channel> ${'&'.repeat(85)}`, description: '<'.repeat(300) }, { label: '<@U123> ok' }],
    };
    const { message } = await ask(w, 'long', [long, question(2, false)]);
    const view = await openModal(w, message, ALICE);
    const sent = JSON.stringify(view.view);
    for (const raw of ['<!channel>', '<@U123>']) expect(sent).not.toContain(raw);
    const first = view.view.blocks[0];
    expect(first.label.text.length).toBeLessThanOrEqual(2000);
    for (const o of first.element.options) {
      expect(o.text.text.length).toBeLessThanOrEqual(75);
      if (o.description) expect(o.description.text.length).toBeLessThanOrEqual(75);
    }
    expect(renderModal(view.view)).toContain('[ ] <@U123> ok');
  });
});
