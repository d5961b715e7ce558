import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client } from '../helpers/http.js';
import { sendRaw } from '../helpers/raw-target.js';

// Errors say where the problem is (path parameter, query, header or body), and every 4xx, even
// those of fastify's framework and of node's HTTP parser, uses the API's {error: {code, message}}.

let app: RunningAskgate;
let port: number;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp(testEnv());
  port = Number(new URL(app.url).port);
  api = client(app.url);
});

afterAll(async () => {
  await app?.close();
});

const host = () => ({ host: `127.0.0.1:${port}` });
const valid = askBody('errors-run');

describe('validation problems outside the body name where they are', () => {
  it.each([
    [
      'a run id with a space',
      () => api.get('/v1/runs/a%20b'),
      /^path parameter runId: /,
      { in: 'path', path: ['runId'] },
    ],
    [
      'a 200-character run id',
      () => api.call('DELETE', `/v1/runs/${'r'.repeat(200)}`),
      /^path parameter runId: /,
      { in: 'path', path: ['runId'] },
    ],
    [
      'a bad run id on the run event route',
      () => api.get('/v1/runs/a%20b/events'),
      /^path parameter runId: /,
      { in: 'path', path: ['runId'] },
    ],
    [
      'wait=abc',
      () => api.post('/v1/asks?wait=abc', valid),
      /^query parameter wait: /,
      { in: 'query', path: ['wait'] },
    ],
    [
      'wait beyond the maximum',
      () => api.get('/v1/asks/AAAAAAAAAAAAAA?wait=100000'),
      /^query parameter wait: /,
      { in: 'query', path: ['wait'] },
    ],
    [
      'stream=maybe on the event route',
      () => api.get('/v1/runs/errors-run/events?stream=maybe'),
      /^query parameter stream: /,
      { in: 'query', path: ['stream'] },
    ],
    [
      'a 300-character Idempotency-Key',
      () => api.post('/v1/asks', valid, { 'idempotency-key': 'k'.repeat(300) }),
      /^header Idempotency-Key: /,
      { in: 'header', path: ['Idempotency-Key'] },
    ],
    [
      'an Idempotency-Key with a space',
      () => api.post('/v1/asks', valid, { 'idempotency-key': 'a b' }),
      /^header Idempotency-Key: must be printable ASCII/,
      { in: 'header', path: ['Idempotency-Key'] },
    ],
  ])('%s', async (_name, send, message, issue) => {
    const res = await send();
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message).toMatch(message);
    expect(res.body.error.message).not.toContain('(body)');
    expect(res.body.error.issues[0]).toMatchObject(issue);
  });

  it('body problems keep their format: the field path, or (body) for the whole body', async () => {
    const res = await api.post('/v1/asks', { ...valid, questions: [] });
    expect(res.body.error.message).toMatch(/^questions: /);
    expect(res.body.error.issues[0].in).toBeUndefined();
    expect((await api.post('/v1/asks', [])).body.error.message).toMatch(/^\(body\): /);
  });
});

describe('prototype keys in a JSON body get a clear 400', () => {
  const body = JSON.stringify(valid);
  it.each([
    ['__proto__ at the top', `{"__proto__":{"admin":true},${body.slice(1)}`, '(body): key "__proto__" is not allowed'],
    [
      '__proto__ spelled with a JSON escape',
      `{"\\u005f_proto__":{"admin":true},${body.slice(1)}`,
      '(body): key "__proto__" is not allowed',
    ],
    [
      '__proto__ inside a question',
      body.replace('{"id":"env"', '{"__proto__":{},"id":"env"'),
      'questions.0: key "__proto__" is not allowed',
    ],
    [
      '__proto__ as an answer key',
      JSON.stringify({ answers: { x: ['a'] } }).replace('{"x"', '{"__proto__":["a"],"x"'),
      'answers: key "__proto__" is not allowed',
    ],
    [
      'constructor.prototype at the top',
      `{"constructor":{"prototype":{"admin":true}},${body.slice(1)}`,
      '(body): key "constructor.prototype" is not allowed',
    ],
    [
      'constructor.prototype deep in an unknown field',
      `{"x":[[{"constructor":{"prototype":1}}]],${body.slice(1)}`,
      'x.0.0: key "constructor.prototype" is not allowed',
    ],
  ])('%s', async (_name, text, message) => {
    const path = text.includes('"answers"') ? '/v1/asks/AAAAAAAAAAAAAA/answer' : '/v1/asks';
    const res = await api.call('POST', path, text);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        code: 'invalid_request',
        message,
        issues: [expect.objectContaining({ message: expect.stringContaining('is not allowed') })],
      },
    });
  });

  it('keys that only look alike are ordinary fields (refused as unknown, not as prototype poisoning)', async () => {
    for (const extra of ['{"constructor":"x"}', '{"prototype":{}}', '{"constructor":{"proto":1}}', '{"__proto":1}']) {
      const res = await api.call('POST', '/v1/asks', `${extra.slice(0, -1)},${JSON.stringify(valid).slice(1)}`);
      expect(res.status).toBe(400);
      expect(res.body.error.message).not.toMatch(/is not allowed|not valid JSON/);
    }
  });

  it('invalid JSON and an empty body still say what they are', async () => {
    expect((await api.call('POST', '/v1/asks', '{"runId":')).body).toEqual({
      error: { code: 'invalid_request', message: 'body is not valid JSON' },
    });
    expect((await api.call('POST', '/v1/asks', '')).body.error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/empty/),
    });
  });
});

describe('every 4xx uses the API error shape', () => {
  const shaped = (text: string, code = 'invalid_request') => {
    const body = JSON.parse(text);
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toMatchObject({ code, message: expect.any(String) });
    return body.error.message as string;
  };

  it.each([
    ['an unknown method', 'GEX', '/healthz', {}],
    ['a space in the target', 'GET', '/v1/runs/a b', {}],
    ['a control character in the target', 'GET', '/v1/runs/a\u0001b', {}],
    ['a header without a colon', 'GET', '/healthz', { 'x-broken\r\nnocolon': '1' }],
    ['an invalid Content-Length', 'POST', '/v1/asks', { 'content-length': 'abc' }],
    ['both Content-Length and chunked', 'POST', '/v1/asks', { 'content-length': '2', 'transfer-encoding': 'chunked' }],
  ])('node refuses %s: 400 in the API shape', async (_name, method, target, headers) => {
    const res = await sendRaw(port, method, target, { ...host(), ...headers });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(shaped(res.text)).toBe('malformed HTTP request');
  });

  it("headers over node's limit: 431 in the API shape", async () => {
    const res = await sendRaw(port, 'GET', '/healthz', { ...host(), 'x-big': 'x'.repeat(20_000) });
    expect(res.status).toBe(431);
    expect(shaped(res.text)).toBe('request headers are too large');
  });

  it("fastify's own 4xx: malformed percent-encoding, unsupported media type, too large, not found", async () => {
    const bad = await sendRaw(port, 'GET', '/v1/runs/%E0%A4%A', host());
    expect(bad.status).toBe(400);
    shaped(bad.text);
    const media = await sendRaw(port, 'POST', '/v1/asks', { ...host(), 'content-type': 'application/xml' }, '<a/>');
    expect(media.status).toBe(415);
    shaped(media.text);
    const big = await api.call('POST', '/v1/asks', JSON.stringify({ ...valid, pad: 'x'.repeat(70_000) }));
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('payload_too_large');
    const missing = await api.get('/nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });
});
