import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import type { RunningAskgate } from '../../src/main.js';
import { displayHeader } from '../../src/core/display-text.js';

// User-chosen keys (question ids) named like Object.prototype members, invisible and look-alike
// text, dot-only run ids and timeouts, end to end on Redis (records read back through the schema).

const TOKEN = 'text-and-keys-token-0123456789';
let redis: TestRedis;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
const channel = new RecordingChannel('test');
const alice = { channel: 'test', userId: 'u-alice', username: 'alice' };

beforeAll(async () => {
  redis = await startRedis();
  app = await startTestApp(
    testEnv({ REDIS_URL: redis.url, ASKGATE_API_TOKEN: TOKEN, HOST: '127.0.0.1', ASKGATE_DEFAULT_TO: 'test:chat-mcp' }),
    [channel],
  );
  api = client(app.url, TOKEN);
});

afterAll(async () => {
  await app?.close();
  await redis?.dispose();
});

const question = (id: string) => ({
  id,
  header: `H ${id}`.slice(0, 20),
  question: `Pick for ${id}?`,
  options: [{ label: 'Yes' }, { label: 'No' }],
});
const twoQuestions = (runId: string, id: string, chat: string) => ({
  runId,
  to: { channel: 'test', chat },
  questions: [question('env'), question(id)],
});

/** Creates an ask and waits until its message is sent; returns the ask id and message id. */
async function deliveredAsk(body: object): Promise<{ id: string; messageId: string }> {
  const res = await api.post('/v1/asks', body);
  expect(res.status).toBe(201);
  const sent = await eventually(async () => {
    const r = await api.get(`/v1/asks/${res.body.id}`);
    return r.body.deliveries[0]?.status === 'sent' && r.body.deliveries[0].message.messageId;
  });
  return { id: res.body.id, messageId: sent as string };
}

const finalEdit = (messageId: string) =>
  eventually(async () => channel.finalized.find((f) => f.ref.messageId === messageId));
const reply = (chat: string, messageId: string, text: string) =>
  channel.sink!.text({ channel: 'test', chat, replyTo: messageId, privateChat: false, user: alice, text });

const ACCEPTED = ['constructor', 'prototype'];
const REFUSED: [string, RegExp][] = [
  ['__proto__', /"__proto__" are reserved/],
  ['__defineGetter__', /"__proto__" are reserved/],
  ['__lookupSetter__', /"__proto__" are reserved/],
  ['toString', /snake_case/],
  ['hasOwnProperty', /snake_case/],
  ['valueOf', /snake_case/],
];

describe.each(ACCEPTED)('question id "%s" through the API and the chat', (id) => {
  it('an API answer leaving it out is refused and the ask stays pending; the full answer resolves it and the message is finalized', async () => {
    const chat = `c-api-${id}`;
    const { id: askId, messageId } = await deliveredAsk(twoQuestions(`run-api-${id}`, id, chat));
    const partial = await api.post(`/v1/asks/${askId}/answer`, { answers: { env: ['Yes'] } });
    expect(partial.status).toBe(400);
    expect(partial.body.error.issues).toEqual([
      { path: ['answers', id], message: 'missing: answer every question, or skip' },
    ]);
    expect((await api.get(`/v1/asks/${askId}`)).body.status).toBe('pending');

    const full = await api.post(`/v1/asks/${askId}/answer`, { answers: { env: ['yes'], [id]: ['no'] }, by: 'ops' });
    expect(full.status).toBe(200);
    expect(full.body.result).toMatchObject({ status: 'answered', answers: { env: ['Yes'], [id]: ['No'] } });
    expect((await api.get(`/v1/asks/${askId}`)).body.result.answers).toEqual({ env: ['Yes'], [id]: ['No'] });
    expect((await finalEdit(messageId)).outcome.text).toBe(
      `Answered — via API\n1. H env: Yes\n2. ${displayHeader(`H ${id}`)}: No`,
    );
  });

  it('a chat reply answering only the other question is partial; a keyed "<id>: Yes" line completes it', async () => {
    const chat = `c-chat-${id}`;
    const { id: askId, messageId } = await deliveredAsk(twoQuestions(`run-chat-${id}`, id, chat));
    const first = await reply(chat, messageId, 'env: No');
    expect(first).toMatchObject({ kind: 'partial' });
    expect(first.kind === 'partial' && first.prompt).toContain(`2. Pick for ${id}?`);
    const pending = (await api.get(`/v1/asks/${askId}`)).body;
    expect(pending).toMatchObject({ status: 'pending', partial: { env: ['No'] } });

    expect(await reply(chat, messageId, `${id}: Yes`)).toMatchObject({ kind: 'recorded' });
    const done = (await api.get(`/v1/asks/${askId}`)).body;
    expect(done.result).toMatchObject({
      status: 'answered',
      answers: { env: ['No'], [id]: ['Yes'] },
      answeredBy: { userId: 'u-alice' },
    });
    expect((await finalEdit(messageId)).outcome.text).toBe(
      `Answered — by @alice\n1. H env: No\n2. ${displayHeader(`H ${id}`)}: Yes`,
    );
  });
});

describe('question ids the schema refuses', () => {
  it.each(REFUSED)('%s: 400 naming questions.1.id', async (id, message) => {
    const res = await api.post('/v1/asks', twoQuestions('run-refused', id, 'c-refused'));
    expect(res.status).toBe(400);
    expect(res.body.error.issues).toEqual([{ path: ['questions', 1, 'id'], message: expect.stringMatching(message) }]);
  });

  it.each(['toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'constructor'])(
    'an answer keyed "%s" that names no question is refused',
    async (key) => {
      const { id } = await deliveredAsk({
        runId: `run-stray-${key}`,
        to: { channel: 'test', chat: 'c-stray' },
        questions: [question('env')],
      });
      const res = await api.post(`/v1/asks/${id}/answer`, { answers: { env: ['Yes'], [key]: ['x'] } });
      expect(res.status).toBe(400);
      expect(res.body.error.issues).toEqual([
        { path: ['answers', key], message: 'no question has id "' + key + '" (ids: env)' },
      ]);
      expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
    },
  );

  it('an answer body with a "__proto__" key is refused (400) and changes nothing', async () => {
    const { id } = await deliveredAsk({
      runId: 'run-proto-body',
      to: { channel: 'test', chat: 'c-proto' },
      questions: [question('env')],
    });
    const res = await api.call('POST', `/v1/asks/${id}/answer`, '{"answers":{"__proto__":["Yes"],"env":["Yes"]}}', {
      'content-type': 'application/json',
    });
    expect(res.status).toBe(400);
    expect((await api.get(`/v1/asks/${id}`)).body).toMatchObject({ status: 'pending', partial: {} });
  });
});

describe('invisible and look-alike text', () => {
  it.each<[string, object, (string | number)[], RegExp]>([
    [
      'a zero-width space in a label',
      { questions: [{ question: 'Ok?', options: [{ label: 'Yes' }, { label: 'Ye\u200bs' }] }] },
      ['questions', 0, 'options', 1, 'label'],
      /invisible character \(U\+200B\)/,
    ],
    [
      'a bidi override in a header',
      { questions: [{ header: '\u202eyolpeD', question: 'Ok?', options: [{ label: 'a' }, { label: 'b' }] }] },
      ['questions', 0, 'header'],
      /U\+202E/,
    ],
    [
      'NUL in a question',
      { questions: [{ question: 'Ok\u0000?', options: [{ label: 'a' }, { label: 'b' }] }] },
      ['questions', 0, 'question'],
      /control character \(U\+0000\)/,
    ],
    [
      'a full-width Ｏｔｈｅｒ',
      { questions: [{ question: 'Ok?', options: [{ label: 'Yes' }, { label: 'Ｏｔｈｅｒ' }] }] },
      ['questions', 0, 'options', 1, 'label'],
      /reserved/,
    ],
    [
      'a non-ASCII chat id',
      { to: { channel: 'test', chat: 'сhat' }, questions: [question('env')] },
      ['to', 'chat'],
      /printable ASCII/,
    ],
  ])('%s: 400 with the field path', async (_name, extra, path, message) => {
    const res = await api.post('/v1/asks', { runId: 'run-text', ...extra });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.issues).toContainEqual({ path, message: expect.stringMatching(message) });
    expect(res.body.error.message).toContain(path.join('.'));
  });

  it('a lone surrogate (JSON escape) in a label: 400 naming it', async () => {
    const raw = JSON.stringify({
      runId: 'run-text',
      questions: [{ question: 'Ok?', options: [{ label: 'Yes' }, { label: 'XX' }] }],
    }).replace('"XX"', '"a\\ud800"');
    const res = await api.call('POST', '/v1/asks', raw, { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body.error.issues).toEqual([
      { path: ['questions', 0, 'options', 1, 'label'], message: expect.stringMatching(/lone surrogate \(U\+D800\)/) },
    ]);
  });

  it("emoji sequences are kept; text is stored in NFC; an answer's `by` with a bidi override is refused", async () => {
    const res = await api.post('/v1/asks', {
      runId: 'run-emoji',
      questions: [{ question: 'Cafe\u0301?', options: [{ label: '👨‍👩‍👧' }, { label: '❤️' }] }],
    });
    expect(res.status).toBe(201);
    expect(res.body.questions[0]).toMatchObject({ question: 'Café?', options: [{ label: '👨‍👩‍👧' }, { label: '❤️' }] });
    const bad = await api.post(`/v1/asks/${res.body.id}/answer`, { answers: { q1: ['❤'] }, by: '\u202eops' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues).toEqual([{ path: ['by'], message: expect.stringMatching(/U\+202E/) }]);
    const ok = await api.post(`/v1/asks/${res.body.id}/answer`, { answers: { q1: ['❤'] }, by: 'ops' });
    expect(ok.body.result.answers).toEqual({ q1: ['❤️'] });
  });
});

describe('run ids and timeouts', () => {
  it.each(['.', '..', '....'])('runId %j is refused with a clear message', async (runId) => {
    const res = await api.post('/v1/asks', { runId, questions: [question('env')] });
    expect(res.status).toBe(400);
    expect(res.body.error.issues).toEqual([{ path: ['runId'], message: expect.stringMatching(/only dots/) }]);
  });

  it.each<[string, string, number]>([
    ['1e308', '1e308', 3600],
    ['2^53 + 2', '9007199254740994', 3600],
    ['5000', '5000', 3600],
    ['1', '1', 1],
  ])('timeoutSeconds %s is clamped to the bounds', async (_name, literal, expected) => {
    const raw = `{"runId":"run-timeout","questions":[{"question":"Ok?","options":[{"label":"a"},{"label":"b"}]}],"timeoutSeconds":${literal}}`;
    const res = await api.call('POST', '/v1/asks', raw, { 'content-type': 'application/json' });
    expect(res.status).toBe(201);
    expect(res.body.timeoutSeconds).toBe(expected);
  });

  it.each<[string, string]>([
    ['0', 'must be positive'],
    ['-5', 'must be positive'],
    ['-1e400', 'must be positive'],
    ['1e400', 'must be a finite number of seconds (values above the maximum are clamped to it)'],
    ['1.5', 'must be a whole number of seconds'],
    ['"60"', 'must be a number of seconds'],
    ['null', 'must be a number of seconds'],
  ])('timeoutSeconds %s is refused: %s', async (literal, message) => {
    const raw = `{"runId":"run-timeout","questions":[{"question":"Ok?","options":[{"label":"a"},{"label":"b"}]}],"timeoutSeconds":${literal}}`;
    const res = await api.call('POST', '/v1/asks', raw, { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body.error.issues).toEqual([{ path: ['timeoutSeconds'], message }]);
  });
});

describe('MCP ask_user (real SDK client over /mcp)', () => {
  let mcp: Client;
  beforeAll(async () => {
    mcp = new Client({ name: 'test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    });
    await mcp.connect(transport);
  });
  afterAll(async () => {
    await mcp?.close();
  });

  const pendingAsk = (runId: string) =>
    eventually(async () => {
      const r = await api.get(`/v1/runs/${runId}`);
      return r.body.current?.status === 'pending' && r.body.current;
    });

  it.each(ACCEPTED)(
    'question id "%s": answered through the API, the tool returns answered with that answer',
    async (id) => {
      const runId = `mcp-${id}`;
      const call = mcp.callTool({ name: 'ask_user', arguments: { runId, questions: [question('env'), question(id)] } });
      const ask = await pendingAsk(runId);
      expect((await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Yes'] } })).status).toBe(400);
      expect((await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Yes'], [id]: ['No'] } })).status).toBe(
        200,
      );
      const result = await call;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({
        status: 'answered',
        answers: { env: ['Yes'], [id]: ['No'] },
        values: { env: ['Yes'], [id]: ['No'] },
      });
      expect((result.content as { text: string }[])[0]!.text).toContain(`(${id}): No`);
    },
  );

  it.each<[number, number]>([
    [1e308, 3600],
    [5000, 3600],
    [-5, 1],
    [0, 1],
    [1.4, 1],
    [90.5, 91],
  ])('timeoutSeconds %s is rounded and clamped (to %s s), never rejected', async (timeoutSeconds, expected) => {
    const runId = `mcp-timeout-${String(timeoutSeconds).replace(/[^0-9a-z]/gi, '_')}`;
    const call = mcp.callTool({ name: 'ask_user', arguments: { runId, timeoutSeconds, questions: [question('env')] } });
    const ask = await pendingAsk(runId);
    expect(ask.timeoutSeconds).toBe(expected);
    await api.post(`/v1/asks/${ask.id}/cancel`);
    const result = await call;
    expect(result.structuredContent).toEqual({ status: 'no_answer', reason: 'cancelled' });
  });

  it('a label with a zero-width space is a tool error naming the field', async () => {
    const result = await mcp.callTool({
      name: 'ask_user',
      arguments: {
        runId: 'mcp-zw',
        questions: [{ ...question('env'), options: [{ label: 'Yes' }, { label: 'Ye\u200bs' }] }],
      },
    });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toMatch(
      /questions\.0\.options\.1\.label: contains an invisible character \(U\+200B\)/,
    );
  });
});
