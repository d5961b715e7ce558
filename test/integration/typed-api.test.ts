// Typed questions (issue 35) end to end through the HTTP API and a chat channel, on Redis: bad
// definitions and bad values are 400s naming the field, values come back with their JSON types,
// typed replies are read in the person's language, refused replies are repaired, nothing is lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import type { RunningAskgate } from '../../src/main.js';

const channel = new RecordingChannel('test');
let redis: TestRedis;
let app: RunningAskgate;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  redis = await startRedis();
  app = await startTestApp(testEnv({ REDIS_URL: redis.url }), [channel]);
  api = client(app.url);
});

afterAll(async () => {
  await app?.close();
  await redis?.stop();
});

const alice = { channel: 'test', userId: 'u1', name: 'Alice' };
const bob = { channel: 'test', userId: 'u2', name: 'Bob' };
let chats = 0;
const ask = async (questions: object[], extra: object = {}) => {
  const chat = `c${++chats}`;
  const res = await api.post('/v1/asks', {
    runId: `typed-${chat}`,
    to: { channel: 'test', chat },
    questions,
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await eventually(async () => channel.delivered.find((d) => d.askId === res.body.id));
  return { id: res.body.id as string, chat };
};
const reply = (chat: string, text: string, user = alice, locale?: string) =>
  channel.sink!.text({ channel: 'test', chat, privateChat: true, user, text, ...(locale ? { locale } : {}) });
const view = async (id: string) => (await api.get(`/v1/asks/${id}`)).body;
const issuesOf = (body: { error: { issues: { path: unknown[]; message: string }[] } }) =>
  body.error.issues.map((i) => [i.path.join('.'), i.message]);

describe('typed question definitions', () => {
  it.each([
    [
      'options on a number question',
      { kind: 'number', options: [{ label: 'a' }, { label: 'b' }] },
      'questions.0.options',
      'does not apply to a number question',
    ],
    [
      'multiSelect on a date question',
      { kind: 'date', multiSelect: true },
      'questions.0.multiSelect',
      'does not apply to a date question',
    ],
    [
      'a text constraint on an email question',
      { kind: 'email', maxLength: 10 },
      'questions.0.maxLength',
      'does not apply to an email question',
    ],
    [
      'min above max',
      { kind: 'number', min: 10, max: 1 },
      'questions.0.min',
      'must not be above max (10)'.replace('10', '1'),
    ],
    [
      'a date bound that is no date',
      { kind: 'date', min: '2026-02-30' },
      'questions.0.min',
      'must be a date YYYY-MM-DD',
    ],
    [
      'a datetime bound without an offset',
      { kind: 'datetime', max: '2026-12-08T10:00' },
      'questions.0.max',
      expect.stringContaining('with an offset'),
    ],
    ['maxLength above 4000', { kind: 'text', maxLength: 5000 }, 'questions.0.maxLength', 'must be at most 4000'],
    [
      'a pattern that backtracks',
      { kind: 'text', pattern: '(a)\\1' },
      'questions.0.pattern',
      expect.stringContaining('RE2'),
    ],
    [
      'a lookahead pattern',
      { kind: 'text', pattern: '(?=a)a' },
      'questions.0.pattern',
      expect.stringContaining('Lookahead'),
    ],
    [
      'an unknown kind',
      { kind: 'colour' },
      'questions.0.kind',
      'must be one of: choice, text, number, date, time, datetime, email, url',
    ],
    ['a choice without options', { kind: 'choice' }, 'questions.0.options', expect.any(String)],
  ])('%s is a 400 naming the field', async (_name, fields, path, message) => {
    const res = await api.post('/v1/asks', { runId: 'typed-bad', questions: [{ question: 'Q?', ...fields }] });
    expect(res.status).toBe(400);
    expect(issuesOf(res.body)).toEqual([[path, message]]);
  });

  it('a default is checked like an answer', async () => {
    const res = await api.post('/v1/asks', {
      runId: 'typed-bad-default',
      questions: [{ id: 'n', question: 'How many?', kind: 'number', min: 1, max: 5 }],
      onTimeout: { default: { n: 9 } },
    });
    expect(res.status).toBe(400);
    expect(issuesOf(res.body)).toEqual([
      ['onTimeout.default.n.0', 'must be a number between 1 and 5, written like 42 or -3.5'],
    ]);
  });
});

describe('answers through the API', () => {
  const questions = [
    { id: 'replicas', question: 'How many replicas?', kind: 'number', integer: true, min: 1, max: 10 },
    { id: 'day', question: 'Which day?', kind: 'date', min: '2026-01-01' },
    { id: 'mail', question: 'Who gets it?', kind: 'email' },
  ];

  it('values with their JSON types, answers as strings; what was sent kept where it differs', async () => {
    const { id } = await ask(questions);
    const res = await api.post(`/v1/asks/${id}/answer`, {
      values: { replicas: 3, mail: 'Ops@Example.COM' },
      answers: { day: ['2026-12-08'] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { result } = await view(id);
    expect(result).toMatchObject({
      status: 'answered',
      answers: { replicas: ['3'], day: ['2026-12-08'], mail: ['Ops@example.com'] },
      values: { replicas: 3, day: '2026-12-08', mail: 'Ops@example.com' },
      raw: { mail: 'Ops@Example.COM' },
    });
  });

  it.each([
    [
      'a number out of range',
      { replicas: 11 },
      'values.replicas',
      'must be a whole number between 1 and 10, written like 42 or -3.5',
    ],
    [
      'a fraction for a whole number',
      { replicas: 2.5 },
      'values.replicas',
      'must be a whole number between 1 and 10, written like 42 or -3.5',
    ],
    ['a locale form through the API', { day: '12/08/2026' }, 'values.day', 'must be a date YYYY-MM-DD from 2026-01-01'],
    ['two values for a typed question', { day: ['2026-12-08', '2026-12-09'] }, 'values.day', 'give exactly one value'],
    ['not an address', { mail: 'nobody' }, 'values.mail', 'must be an email address like name@example.com'],
  ])('%s is a 400 naming the question; the ask stays pending', async (_name, values, path, message) => {
    const { id } = await ask(questions);
    const complete = { replicas: 2, day: '2026-12-08', mail: 'a@b.co', ...values };
    const res = await api.post(`/v1/asks/${id}/answer`, { values: complete });
    expect(res.status).toBe(400);
    expect(issuesOf(res.body)).toEqual([[path, message]]);
    expect((await view(id)).status).toBe('pending');
  });

  it('a bad value sent in answers is named there, with its index', async () => {
    const { id } = await ask(questions);
    const res = await api.post(`/v1/asks/${id}/answer`, {
      answers: { replicas: ['eleven'] },
      values: { day: '2026-12-08', mail: 'a@b.co' },
    });
    expect(res.status).toBe(400);
    expect(issuesOf(res.body)).toEqual([
      ['answers.replicas.0', 'must be a whole number between 1 and 10, written like 42 or -3.5'],
    ]);
  });

  it('the same question in answers and in values is a 400', async () => {
    const { id } = await ask([questions[0]!]);
    const res = await api.post(`/v1/asks/${id}/answer`, { values: { replicas: 2 }, answers: { replicas: ['2'] } });
    expect(res.status).toBe(400);
    expect(issuesOf(res.body)).toEqual([['values.replicas', 'answer a question in answers or in values, not both']]);
  });
});

describe('typed replies in a chat', () => {
  it('a pt-BR person writes "3,5"; the outcome shows the number, the result keeps it as a number', async () => {
    const { id, chat } = await ask([{ id: 'gb', question: 'Quanto espaço?', kind: 'number', unit: 'GB' }], {
      locale: 'pt-BR',
    });
    const told = await reply(chat, '3,5', alice, 'pt-BR');
    expect(told.kind).toBe('recorded');
    const record = await view(id);
    expect(record.result).toMatchObject({ answers: { gb: ['3.5'] }, values: { gb: 3.5 }, raw: { gb: '3,5' } });
    const final = await eventually(async () => channel.finalized.find((f) => f.outcome.text.includes('Alice')));
    expect(final.outcome.text).toContain('3,5 GB');
  });

  it('a refused reply says what was expected and that nothing was done; history names the question, not the text', async () => {
    const { id, chat } = await ask([
      { id: 'day', question: 'Which day?', kind: 'date', min: '2026-12-01', max: '2026-12-31' },
    ]);
    const told = await reply(chat, '2027-01-05 is my guess');
    expect(told).toMatchObject({ kind: 'invalid' });
    expect('hint' in told && told.hint).toBe(
      'I could not read that answer. Please answer with a date between 2026-12-01 and 2026-12-31, for example 2026-12-01. Nothing has been done yet.',
    );
    const out = await reply(chat, '2027-01-05');
    expect('hint' in out && out.hint).toMatch(
      /^That answer is outside the allowed range\. Please answer with a date between/,
    );
    const record = await view(id);
    expect(record.status).toBe('pending');
    const history = (await app.store.get(id))!.history;
    const rejected = history.filter((h) => h.type === 'reply_rejected');
    expect(rejected.map((h) => [h.questions, h.reason])).toEqual([
      [['day'], 'format'],
      [['day'], 'range'],
    ]);
    expect(JSON.stringify(history)).not.toContain('guess');
    expect((await reply(chat, '2026-12-24')).kind).toBe('recorded');
    expect((await view(id)).result.values).toEqual({ day: '2026-12-24' });
  });

  it("a relative word is read in the ask's time zone and the outcome shows what was understood", async () => {
    const { id, chat } = await ask([{ id: 'day', question: 'Quando?', kind: 'date' }], {
      locale: 'pt-BR',
      timeZone: 'America/Sao_Paulo',
    });
    await reply(chat, 'amanhã', bob, 'pt-BR');
    const { result } = await view(id);
    expect(result.raw).toEqual({ day: 'amanhã' });
    expect(result.values.day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const final = await eventually(async () => channel.finalized.find((f) => f.outcome.text.includes('amanhã')));
    expect(final.outcome.text).toContain('“amanhã”');
  });

  it('text, email and link answers are never echoed in the outcome', async () => {
    const { id, chat } = await ask([
      { id: 'note', question: 'Any note?', kind: 'text', maxLength: 200 },
      { id: 'mail', question: 'Email?', kind: 'email' },
      { id: 'link', question: 'Link?', kind: 'url' },
    ]);
    await reply(chat, 'secret sauce @here\nops@example.com\nhttps://example.com/private');
    const { result } = await view(id);
    expect(result.values).toEqual({
      note: 'secret sauce @here',
      mail: 'ops@example.com',
      link: 'https://example.com/private',
    });
    const final = await eventually(async () =>
      channel.finalized.find((f) => f.ref.chat === chat && f.outcome.text.includes('Alice')),
    );
    expect(final.outcome.text).not.toMatch(/secret|ops@|private/);
  });

  it('skip works for a typed question', async () => {
    const { id, chat } = await ask([{ id: 'n', question: 'How many?', kind: 'number' }]);
    await reply(chat, 'skip');
    expect((await view(id)).result).toMatchObject({ status: 'no_answer', reason: 'skipped' });
  });
});

describe('policies with typed questions', () => {
  it('a timeout takes a typed default, with its value', async () => {
    const { id } = await ask([{ id: 'n', question: 'How many?', kind: 'number', min: 1 }], {
      timeoutSeconds: 1,
      onTimeout: { default: { n: 2 } },
    });
    const record = await eventually(async () => {
      const got = await view(id);
      return got.status === 'no_answer' ? got : undefined;
    });
    expect(record.result).toMatchObject({ reason: 'timeout', defaults: { n: ['2'] }, values: { n: 2 } });
  });

  it('agreement compares normalized values: "3.50" and "3,5" agree', async () => {
    const { id, chat } = await ask([{ id: 'n', question: 'How much?', kind: 'number' }], { agree: 2 });
    await reply(chat, '3.50');
    expect((await view(id)).status).toBe('pending');
    await reply(chat, '3,5', bob, 'de');
    const { result } = await view(id);
    expect(result).toMatchObject({ status: 'answered', values: { n: 3.5 } });
    expect(result.responses).toHaveLength(2);
  });
});
