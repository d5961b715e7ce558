import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackChannel } from '../../src/channels/slack/slack-channel.js';
import { createLogger } from '../../src/logger.js';
import { visibleMessage } from '../fakes/slack-api.js';
import { renderModal } from '../fakes/slack-views.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { until } from '../helpers/wait.js';
import {
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
import { askWith, historyOf, inputOf, rawValues } from './slack-typed-world.js';

// Issue 35 on Slack: typed questions answered in a modal of native inputs, through the real bolt
// app against the fake Slack (which checks every element against @slack/types' fields).

const ALICE = 'U0001';
let w: FormsWorld;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => {
  await w?.close();
});

interface KindCase {
  name: string;
  question: Record<string, unknown>;
  timeZone?: string;
  /** What the element must hold (@slack/types' shape). */
  element: Record<string, unknown>;
  /** What the person types or picks (a datetime: the instant on their own clocks). */
  fill: string;
  value: string | number;
  raw?: string;
}

const KIND_CASES: KindCase[] = [
  {
    name: 'text',
    question: { kind: 'text', minLength: 3, maxLength: 280 },
    element: { type: 'plain_text_input', multiline: true, min_length: 3, max_length: 280 },
    fill: '  Ship it on Friday  ',
    value: 'Ship it on Friday',
  },
  {
    name: 'number (whole, with a unit)',
    question: { kind: 'number', min: 0.5, max: 64, integer: true, unit: 'GB' },
    element: { type: 'number_input', is_decimal_allowed: false, min_value: '1', max_value: '64' },
    fill: '016',
    value: 16,
    raw: '016',
  },
  {
    name: 'number (decimal)',
    question: { kind: 'number', min: -1, max: 1 },
    element: { type: 'number_input', is_decimal_allowed: true, min_value: '-1', max_value: '1' },
    fill: '-0.25',
    value: -0.25,
  },
  {
    name: 'email',
    question: { kind: 'email' },
    element: { type: 'email_text_input', placeholder: { type: 'plain_text', text: 'name@example.com', emoji: true } },
    fill: 'Ops@Example.COM',
    value: 'Ops@example.com',
    raw: 'Ops@Example.COM',
  },
  {
    name: 'url',
    question: { kind: 'url' },
    element: { type: 'url_text_input' },
    fill: 'HTTPS://Example.com/Report?q=1',
    value: 'https://example.com/Report?q=1',
    raw: 'HTTPS://Example.com/Report?q=1',
  },
  {
    name: 'date',
    question: { kind: 'date', min: '2026-12-01', max: '2026-12-31' },
    element: { type: 'datepicker' },
    fill: '2026-12-08',
    value: '2026-12-08',
  },
  {
    name: 'time',
    question: { kind: 'time', min: '09:00', max: '17:00' },
    timeZone: 'Europe/Lisbon',
    element: { type: 'timepicker', timezone: 'Europe/Lisbon' },
    fill: '09:05',
    value: '09:05',
  },
  {
    name: 'datetime',
    question: { kind: 'datetime', min: '2026-12-01T00:00:00Z' },
    timeZone: 'America/Sao_Paulo',
    element: { type: 'datetimepicker' },
    // Picked on the person's own clocks (Paris); kept in the ask's zone.
    fill: '2026-12-08T18:30:00+01:00',
    value: '2026-12-08T14:30:00-03:00',
  },
];

describe('Slack typed questions: each kind answered in its native input', () => {
  it.each(KIND_CASES)('$name', async (c) => {
    const q = { id: 'v', header: 'Value', question: `Which ${c.name}?`, ...c.question };
    const { id, message } = await askWith(w, `kind-${c.name}`, {
      questions: [q],
      ...(c.timeZone ? { timeZone: c.timeZone } : {}),
    });
    const shown = visibleMessage(message);
    expect(shown.buttons.map((b) => b.label)).toEqual(['Answer', 'Skip']);
    expect(shown.text).toContain('Tap Answer to type it in, or reply in this thread.');
    const before = noticesFor(w, ALICE).length;
    const view = await openModal(w, message, ALICE);
    expect(view.view.blocks).toHaveLength(1);
    const input = inputOf(view, 'askgate_v1');
    expect(input).toMatchObject({ type: 'input', optional: false, label: { text: `Value: Which ${c.name}?` } });
    expect(input.element).toMatchObject({ action_id: 'askgate_value', ...c.element });
    // The hint is what the prompt says is expected (the same sentence).
    expect(shown.text).toContain(input.hint.text.replace(/&amp;/g, '&'));
    // A modal without a datetimepicker carries no zone.
    expect('z' in JSON.parse(view.view.private_metadata)).toBe(c.question.kind === 'datetime');

    const res = await w.slack.submitView(view, { askgate_v1: c.fill });
    expect(res).toMatchObject({ status: 200, text: '' });
    const r = await result(w, id);
    expect(r).toMatchObject({
      status: 'answered',
      answers: { v: [String(c.value)] },
      values: { v: c.value },
      answeredBy: { channel: 'slack', userId: ALICE, username: 'u0001' },
    });
    expect(r.raw?.v).toBe(c.raw);
    expect(await nextNotice(w, ALICE, before)).toBe('Answer recorded');
  });

  it('renders a mixed form: a choice with its own words, a number and a date, one input each', async () => {
    const { id, message } = await askWith(w, 'mixed', {
      questions: [
        question(1, false),
        { id: 'size', header: 'Size', question: 'How many GB?', kind: 'number', min: 1, max: 64, unit: 'GB' },
        { id: 'day', question: 'Which day?', kind: 'date', min: '2026-12-01', max: '2026-12-31' },
      ],
    });
    expect(visibleMessage(message).buttons.map((b) => b.label)).toEqual(['Answer', 'Skip']);
    const view = await openModal(w, message, ALICE);
    expect(view.view.blocks.map((b: any) => b.block_id)).toEqual([
      'askgate_q1',
      'askgate_w1',
      'askgate_v2',
      'askgate_v3',
    ]);
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
        '2. Size: How many GB?',
        '  Please answer with a number in GB between 1 and 64, for example 2.5 GB.',
        '  [ GB ] number (decimals allowed, 1 to 64)',
        '3. Which day?',
        `  ${inputOf(view, 'askgate_v3').hint.text}`,
        '  [ 📅 Select a date ]',
        '[Cancel]  [Submit]',
      ].join('\n'),
    );
    await w.slack.submitView(view, { askgate_q1: ['Gamma 1'], askgate_v2: '12.5', askgate_v3: '2026-12-24' });
    expect(await result(w, id)).toMatchObject({
      answers: { q1: ['Gamma 1'], size: ['12.5'], day: ['2026-12-24'] },
      values: { q1: ['Gamma 1'], size: 12.5, day: '2026-12-24' },
    });
  });

  it('a short text answer gets one line; a text question longer than Slack holds keeps the text form', async () => {
    const short = await askWith(w, 'short-text', {
      questions: [{ id: 's', question: 'Subject?', kind: 'text', maxLength: 80 }],
    });
    const view = await openModal(w, short.message, ALICE);
    expect(inputOf(view, 'askgate_v1').element).toEqual({
      type: 'plain_text_input',
      action_id: 'askgate_value',
      multiline: false,
      max_length: 80,
    });
    // Slack's plain_text_input holds at most 3000 characters: a modal would refuse answers the question allows.
    const long = await askWith(w, 'long-text', {
      questions: [{ id: 'l', question: 'Essay?', kind: 'text', maxLength: 4000 }],
    });
    const shown = visibleMessage(long.message);
    expect(shown.buttons).toEqual([]);
    expect(shown.text).toContain('Reply in this thread.');
    await w.slack.postEvent(
      w.slack.messageEvent({
        channel: long.message.channel,
        user: ALICE,
        text: 'x'.repeat(3500),
        threadTs: long.message.ts,
      }),
    );
    expect(await result(w, long.id)).toMatchObject({ status: 'answered', values: { l: 'x'.repeat(3500) } });
  });
});

describe('Slack typed questions: problems come back on the field, the ask stays pending', () => {
  const cases = [
    {
      name: 'text against its pattern',
      question: { kind: 'text', pattern: '[A-Z]{3}-[0-9]+' },
      fill: { askgate_v1: 'abc-1' },
      problem: 'That answer is not in the form this question asks for.',
      fixed: 'ABC-12',
    },
    {
      name: 'a date outside its range (Slack pickers have no min/max)',
      question: { kind: 'date', min: '2026-12-01', max: '2026-12-31' },
      fill: { askgate_v1: '2027-01-05' },
      problem: 'That answer is outside the allowed range.',
      fixed: '2026-12-31',
    },
    {
      name: 'a time outside its range',
      question: { kind: 'time', min: '09:00', max: '17:00' },
      fill: { askgate_v1: '17:01' },
      problem: 'That answer is outside the allowed range.',
      fixed: '17:00',
    },
    {
      name: 'a date-time before its min',
      question: { kind: 'datetime', min: '2026-12-01T09:00:00Z' },
      fill: { askgate_v1: '2026-12-01T08:59:00Z' },
      problem: 'That answer is outside the allowed range.',
      fixed: '2026-12-01T09:00:00Z',
    },
    {
      name: 'an address Slack takes and askgate does not (no dot in the domain)',
      question: { kind: 'email' },
      fill: { askgate_v1: 'ops@localhost' },
      problem: 'I could not read that answer.',
      fixed: 'ops@example.com',
    },
    {
      name: 'a link that is not http(s)',
      question: { kind: 'url' },
      fill: { askgate_v1: 'ftp://example.com/file' },
      problem: 'I could not read that answer.',
      fixed: 'https://example.com/file',
    },
    {
      name: 'a number past its max from a client that did not check it',
      question: { kind: 'number', max: 10 },
      fill: rawValues({ askgate_v1: { type: 'number_input', value: '11' } }),
      problem: 'That answer is outside the allowed range.',
      fixed: '10',
    },
    {
      name: 'a decimal for a whole number from a client that did not check it',
      question: { kind: 'number', integer: true },
      fill: rawValues({ askgate_v1: { type: 'number_input', value: '2.5' } }),
      problem: 'That is not a whole number.',
      fixed: '3',
    },
    {
      name: 'a number input value not in its canonical form ("3,5" is read strictly)',
      question: { kind: 'number' },
      fill: rawValues({ askgate_v1: { type: 'number_input', value: '3,5' } }),
      problem: 'I could not read that answer.',
      fixed: '3.5',
    },
    {
      name: 'a datetimepicker value that is no instant',
      question: { kind: 'datetime' },
      fill: rawValues({ askgate_v1: { type: 'datetimepicker', selected_date_time: 1e300 } }),
      problem: null,
      fixed: '2026-12-08T10:00:00Z',
    },
  ];

  it.each(cases)('$name', async (c) => {
    const { id, message } = await askWith(w, 'invalid', {
      questions: [{ id: 'v', question: 'Value?', ...c.question }],
    });
    const view = await openModal(w, message, ALICE);
    const hint = inputOf(view, 'askgate_v1').hint.text.replace(/&amp;/g, '&');
    const refused = await w.slack.submitView(view, c.fill);
    expect(refused.status).toBe(200);
    // A value missing altogether gets what is expected alone.
    expect(refused.body).toEqual({
      response_action: 'errors',
      errors: { askgate_v1: c.problem ? `${c.problem} ${hint}` : hint },
    });
    expect((await record(w, id)).status).toBe('pending');
    // The modal stayed open: the same view submits again, fixed.
    const fixed = await w.slack.submitView(view, { askgate_v1: c.fixed });
    expect(fixed.text).toBe('');
    expect(await result(w, id)).toMatchObject({ status: 'answered' });
  });

  it('in a mixed form only the field at fault gets the error; nothing is recorded until all fit', async () => {
    const { id, message } = await askWith(w, 'mixed-invalid', {
      questions: [
        question(1, true),
        { id: 'n', question: 'How many?', kind: 'number', max: 5 },
        { id: 'd', question: 'When?', kind: 'date', max: '2026-12-31' },
      ],
    });
    const view = await openModal(w, message, ALICE);
    const refused = await w.slack.submitView(view, {
      askgate_q1: ['Beta 1'],
      askgate_v2: '4',
      askgate_v3: '2027-01-01',
    });
    expect(Object.keys(refused.body.errors)).toEqual(['askgate_v3']);
    expect(refused.body.errors.askgate_v3).toMatch(
      /^That answer is outside the allowed range\. Please answer with a date/,
    );
    expect((await record(w, id)).status).toBe('pending');
    await w.slack.submitView(view, { askgate_q1: ['Beta 1'], askgate_v2: '4', askgate_v3: '2026-12-31' });
    expect(await result(w, id)).toMatchObject({ values: { q1: ['Beta 1'], n: 4, d: '2026-12-31' } });
  });
});

describe('Slack typed questions: skip, timeout default, agreement', () => {
  it('Skip on a typed prompt declines', async () => {
    const { id, message } = await askWith(w, 'skip', {
      questions: [{ id: 'n', question: 'How many?', kind: 'number' }],
    });
    await w.slack.postInteractive(tapPayload(w, message, 'Skip', ALICE));
    expect(await result(w, id)).toMatchObject({ status: 'no_answer', reason: 'skipped', by: { userId: ALICE } });
    expect((await finalMessage(w, id, message)).buttons).toEqual([]);
  });

  it('a timeout with typed defaults ends with their values; the outcome shows the number, never the text', async () => {
    const { id, message } = await askWith(w, 'timeout', {
      questions: [
        { id: 'n', header: 'Replicas', question: 'How many replicas?', kind: 'number', integer: true },
        { id: 't', header: 'Note', question: 'Any note?', kind: 'text' },
      ],
      timeoutSeconds: 1,
      onTimeout: { default: { n: 3, t: 'default secret note' } },
    });
    expect(await result(w, id)).toMatchObject({
      status: 'no_answer',
      reason: 'timeout',
      defaults: { n: ['3'], t: ['default secret note'] },
      values: { n: 3, t: 'default secret note' },
    });
    const final = await finalMessage(w, id, message);
    expect(final.text).toContain('Replicas: 3');
    expect(final.text).not.toContain('secret');
  });

  it('agree: 2 with a number: the normalized values must match (42 and 42.0 agree)', async () => {
    const { id, message } = await askWith(w, 'agree', {
      questions: [{ id: 'n', header: 'Replicas', question: 'How many replicas?', kind: 'number' }],
      agree: 2,
    });
    expect(visibleMessage(message).buttons.map((b) => b.label)).toEqual(['Answer']);
    for (const [user, value] of [
      ['U0201', '42'],
      ['U0202', '41'],
    ] as const) {
      const view = await openModal(w, message, user);
      expect((await w.slack.submitView(view, { askgate_v1: value })).text).toBe('');
      await eventually(async () => (await record(w, id)).responses?.length === (user === 'U0201' ? 1 : 2));
    }
    expect((await record(w, id)).status).toBe('pending');
    // The open prompt's tally shows the numbers (never free text) and who answered.
    await eventually(async () =>
      visibleMessage(w.fake.message(message.channel, message.ts)!).text.includes(
        '42 1 · 41 1 — 2 matching answers needed',
      ),
    );
    const third = await openModal(w, message, 'U0203');
    await w.slack.submitView(third, { askgate_v1: '42.0' });
    const r = await result(w, id);
    expect(r).toMatchObject({ status: 'answered', answers: { n: ['42'] }, values: { n: 42 } });
    const final = await finalMessage(w, id, message);
    expect(final.text).toMatch(/42/);
    expect(final.text).toContain('@u0203');
  });
});

describe('Slack typed questions: what the outcome shows', () => {
  it('numbers, dates and times are shown; text, email and url answers never are', async () => {
    const shownAsk = await askWith(w, 'shown', {
      timeZone: 'Europe/Lisbon',
      questions: [
        { id: 'n', header: 'Disk', question: 'How big?', kind: 'number', unit: 'GB' },
        { id: 'd', header: 'Day', question: 'Which day?', kind: 'date' },
        { id: 't', header: 'Time', question: 'What time?', kind: 'time' },
      ],
    });
    const a = await openModal(w, shownAsk.message, ALICE);
    await w.slack.submitView(a, { askgate_v1: '2.5', askgate_v2: '2026-12-08', askgate_v3: '14:30' });
    const shown = await finalMessage(w, shownAsk.id, shownAsk.message);
    expect(shown.text).toContain('1. Disk: 2.5 GB');
    expect(shown.text).toMatch(/2\. Day: .*2026/);
    expect(shown.text).toMatch(/3\. Time: .*(14:30|2:30)/);

    const privateAsk = await askWith(w, 'private', {
      questions: [
        { id: 'x', header: 'Words', question: 'Say?', kind: 'text' },
        { id: 'e', header: 'Mail', question: 'Address?', kind: 'email' },
        { id: 'u', header: 'Link', question: 'Link?', kind: 'url' },
      ],
    });
    const b = await openModal(w, privateAsk.message, ALICE);
    const before = noticesFor(w, ALICE).length;
    await w.slack.submitView(b, {
      askgate_v1: 'my private words',
      askgate_v2: 'me@private.example',
      askgate_v3: 'https://private.example/doc',
    });
    const final = await finalMessage(w, privateAsk.id, privateAsk.message);
    expect(final.text).toContain('1. Words: their own words\n2. Mail: their own words\n3. Link: their own words');
    const everything = JSON.stringify([
      w.fake.message(privateAsk.message.channel, privateAsk.message.ts),
      noticesFor(w, ALICE).slice(before),
    ]);
    for (const secret of ['private words', 'private.example']) expect(everything).not.toContain(secret);
    expect((await result(w, privateAsk.id)).values).toEqual({
      x: 'my private words',
      e: 'me@private.example',
      u: 'https://private.example/doc',
    });
  });

  it('hostile strings: escaped in the modal, kept exactly in the result, never echoed', async () => {
    const hostile = '<!channel> <@U0002> &amp; <https://evil.example|click> *bold*';
    const { id, message } = await askWith(w, 'hostile', {
      questions: [
        { id: 'h', header: '<!here>', question: `${hostile}?`, kind: 'text', maxLength: 500 },
        { id: 'n', question: 'Count <@U0003>?', kind: 'number', unit: '<!here>' },
      ],
    });
    const view = await openModal(w, message, ALICE);
    const sent = JSON.stringify(view.view);
    for (const raw of ['<!channel>', '<@U0002>', '<!here>', '<@U0003>', '<https://']) expect(sent).not.toContain(raw);
    expect(renderModal(view.view)).toContain(`1. <!here>: ${hostile}?`);
    const before = noticesFor(w, ALICE).length;
    const answer = '<!everyone> <@U0009> &lt; <https://answer.example|x> `code` _it_';
    await w.slack.submitView(view, { askgate_v1: `  ${answer}\n`, askgate_v2: '7' });
    expect(await result(w, id)).toMatchObject({ values: { h: answer, n: 7 } });
    const final = await finalMessage(w, id, message);
    expect(final.text).toContain('their own words');
    const stored = JSON.stringify([w.fake.message(message.channel, message.ts), noticesFor(w, ALICE).slice(before)]);
    for (const raw of ['everyone', '@U0009', 'answer.example', '`code`']) expect(stored).not.toContain(raw);
    // The history keeps no typed text either.
    expect(JSON.stringify(await historyOf(w, id))).not.toContain('answer.example');
  });
});

describe('Slack typed questions in Socket Mode', () => {
  it('the errors on a typed field and the close ride on the envelope acks', async () => {
    const channel = new SlackChannel({
      token: w.fake.token,
      appToken: w.fake.appToken,
      apiUrl: `${w.fake.url}/api/`,
      logger: createLogger('silent'),
    });
    const socketApp = await startTestApp(testEnv({ REDIS_URL: w.redis.url }), [channel]);
    try {
      const api = client(socketApp.url);
      const created = await api.post('/v1/asks', {
        runId: 'slack-typed-socket',
        timeZone: 'Asia/Tokyo',
        questions: [
          { id: 'day', question: 'Which day?', kind: 'date', max: '2026-12-31' },
          { id: 'at', question: 'When exactly?', kind: 'datetime' },
        ],
        to: { channel: 'slack', chat: 'C0002' },
      });
      expect(created.status).toBe(201);
      const ref = await eventually(
        async () => (await api.get(`/v1/asks/${created.body.id}`)).body.deliveries[0].message,
      );
      const message = w.fake.message(ref.chat, ref.messageId)!;
      await w.fake.sendEnvelope('interactive', tapPayload(w, message, 'Answer', 'U0601'));
      const view = await until(() => w.fake.viewsFor('U0601')[0]);
      const fill = { askgate_v2: '2026-12-08T09:00:00Z' };
      const bad = await w.fake.sendEnvelope(
        'interactive',
        w.slack.viewSubmission(view, { askgate_v1: '2027-01-01', ...fill }),
      );
      expect(Object.keys((w.fake.acks.get(bad) as any).errors)).toEqual(['askgate_v1']);
      const good = await w.fake.sendEnvelope(
        'interactive',
        w.slack.viewSubmission(view, { askgate_v1: '2026-12-31', ...fill }),
      );
      expect(w.fake.acks.get(good) ?? {}).toEqual({});
      expect((await api.get(`/v1/asks/${created.body.id}?wait=10`)).body.result).toMatchObject({
        status: 'answered',
        values: { day: '2026-12-31', at: '2026-12-08T18:00:00+09:00' },
      });
    } finally {
      await socketApp.close();
    }
  });
});
