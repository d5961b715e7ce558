import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentCard,
  CancelTaskRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  Role,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskState,
  type Part,
  StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import {
  Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { verifyWebhook } from '../../src/client/index.js';
import { loadConfig } from '../../src/config.js';
import type { RunningAskgate } from '../../src/main.js';

const TOKEN = 'a2a-test-token-0123456789';
const SECRET = 'whsec-a2a-0123456789abcdef';
const alice = { channel: 'test', userId: 'u-alice', name: 'Alice' };

let redis: TestRedis;
let app: RunningAskgate;
/** A second replica on the same Redis: tasks are asks, readable anywhere. */
let replica: RunningAskgate;
const channels = [new RecordingChannel('test'), new RecordingChannel('test')];
let receiver: Server;
let receiverUrl: string;
const pushes: { headers: Record<string, string | string[] | undefined>; raw: Buffer }[] = [];

const authed: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('authorization', `Bearer ${TOKEN}`);
  return fetch(input, { ...init, headers });
};

/** A 1.0 client built by the SDK's factory from askgate's card (`polling`: SendMessage returns at once). */
async function a2aClient(base: string, polling: boolean): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: authed })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: fetch }),
      clientConfig: { polling },
    }),
  );
  return factory.createFromUrl(base);
}

const question = {
  id: 'env',
  header: 'Deploy',
  question: 'Where should I deploy?',
  options: [{ label: 'Staging' }, { label: 'Production' }],
};

/** A SendMessage request whose one data part is `data`. */
const send = (data: unknown, extra: Record<string, unknown> = {}, parts?: unknown[]) =>
  SendMessageRequest.fromJSON({
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: parts ?? [{ data }], ...extra },
  });
const ask = (extra: Record<string, unknown> = {}) => ({ questions: [question], ...extra });

const dataOf = (parts: Part[] | undefined) => parts?.find((p) => p.content?.$case === 'data')?.content?.value;

/** Waits for the delivery of an ask (on whichever replica sent it) and taps its first option. */
async function tapFirstOption(askId: string, option = 0): Promise<void> {
  const found = await eventually(async () => {
    for (const c of channels) {
      const d = c.delivered.find((r) => r.askId === askId);
      if (d) return { c, d };
    }
    return undefined;
  });
  const outcome = await found.c.sink!.button({
    channel: 'test',
    token: found.d.view.buttons![option]!.token,
    user: alice,
    chat: found.d.target.chat,
  });
  expect(outcome.kind).toBe('recorded');
}

beforeAll(async () => {
  redis = await startRedis();
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      pushes.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/push`;
  const env = testEnv({
    REDIS_URL: redis.url,
    ASKGATE_API_TOKEN: TOKEN,
    ASKGATE_DEFAULT_TO: 'test:chat-a2a',
    ASKGATE_WEBHOOK_SECRET: SECRET,
    ASKGATE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
    ASKGATE_A2A_WAIT_SECONDS: '30',
  });
  app = await startTestApp(env, [channels[0]!]);
  replica = await startTestApp(env, [channels[1]!]);
}, 30_000);

afterAll(async () => {
  await replica?.close();
  await app?.close();
  await redis?.dispose();
  await new Promise((r) => receiver?.close(r));
});

describe('agent card', () => {
  it('is public, names the JSON-RPC endpoint for 1.0 and 0.3, streaming, push and the bearer scheme', async () => {
    const res = await fetch(`${app.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    expect(res.status).toBe(200);
    const card = await res.json();
    expect(card.name).toBe('askgate');
    expect(card.supportedInterfaces).toEqual([
      { url: `${app.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${app.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
    expect(card.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe('Bearer');
    // An empty scope list is left out by the SDK's serializer.
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: {} } }]);
    expect(card.skills[0].id).toBe('ask_user');
  });

  it('is v0.3-shaped for a client that sends no A2A-Version (url, protocolVersion, JSON-schema security)', async () => {
    const card = await (await fetch(`${app.url}/.well-known/agent-card.json`)).json();
    expect(card).toMatchObject({
      url: `${app.url}/a2a`,
      protocolVersion: '0.3.0',
      preferredTransport: 'JSONRPC',
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      security: [{ bearer: [] }],
    });
  });

  it('lets the SDK factory pick the 1.0 JSON-RPC transport', async () => {
    const c = await a2aClient(app.url, true);
    expect(c.protocolVersion).toBe('1.0');
  });
});

describe('tasks over the SDK client (A2A 1.0)', () => {
  it('send returns the task working (task id = ask id); a tap completes it with the answer as a data part, on every replica', async () => {
    const c = await a2aClient(app.url, true);
    const task = (await c.sendMessage(send(ask({ runId: 'a2a-run-1' })))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(task.contextId).toBe('a2a-run-1');
    expect(dataOf(task.status?.message?.parts)).toMatchObject({ status: 'pending', askId: task.id });
    const view = await client(app.url, TOKEN).get(`/v1/asks/${task.id}`);
    expect(view.body).toMatchObject({ id: task.id, runId: 'a2a-run-1', status: 'pending', to: { chat: 'chat-a2a' } });

    await tapFirstOption(task.id);
    for (const base of [app.url, replica.url]) {
      const done = await (await a2aClient(base, true)).getTask(GetTaskRequest.fromJSON({ id: task.id }));
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const result = { status: 'answered', answers: { env: ['Staging'] }, answeredBy: { userId: 'u-alice' } };
      expect(dataOf(done.status?.message?.parts)).toMatchObject(result);
      expect(done.artifacts.map((a) => a.artifactId)).toEqual(['result']);
      expect(dataOf(done.artifacts[0]!.parts)).toMatchObject(result);
    }
  });

  it('a blocking send waits for the answer and returns the completed task', async () => {
    const c = await a2aClient(app.url, false);
    const pending = c.sendMessage(send(ask({ runId: 'a2a-blocking' })));
    const askId = await eventually(
      async () => (await app.store.recent(20)).find((r) => r.runId === 'a2a-blocking')?.id,
    );
    await tapFirstOption(askId, 1);
    const task = (await pending) as Task;
    expect(task.id).toBe(askId);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(dataOf(task.status?.message?.parts)).toMatchObject({ answers: { env: ['Production'] } });
  });

  it('the stream sends the task working, then the result artifact and the completed status; resubscribing to it after the end sends the finished task', async () => {
    const c = await a2aClient(app.url, false);
    const events: StreamResponse[] = [];
    const consumed = (async () => {
      for await (const e of c.sendMessageStream(send(ask({ runId: 'a2a-stream' })))) events.push(e);
    })();
    const first = await eventually(async () => events[0]);
    expect(first.payload?.$case).toBe('task');
    const task = first.payload?.$case === 'task' ? first.payload.value : undefined;
    expect(task?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    await tapFirstOption(task!.id);
    await consumed;
    expect(events.map((e) => e.payload?.$case)).toEqual(['task', 'artifactUpdate', 'statusUpdate']);
    const last = events[2]!.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const again: StreamResponse[] = [];
    for await (const e of c.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: task!.id }))) again.push(e);
    expect(again).toHaveLength(1);
    expect(again[0]!.payload?.$case === 'task' && again[0]!.payload.value.status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
  });

  it('cancel makes the task canceled; a second cancel is refused as not cancelable', async () => {
    const c = await a2aClient(app.url, true);
    const task = (await c.sendMessage(send(ask()))) as Task;
    expect(task.contextId).toMatch(/^a2a-/);
    const canceled = await c.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }));
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(dataOf(canceled.status?.message?.parts)).toMatchObject({ status: 'no_answer', reason: 'cancelled' });
    expect((await c.getTask(GetTaskRequest.fromJSON({ id: task.id }))).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
    await expect(c.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }))).rejects.toMatchObject({
      name: 'TaskNotCancelableError',
    });
  });

  it('a timeout completes the task with the no_answer data part (the agent proceeds)', async () => {
    const c = await a2aClient(app.url, false);
    const task = (await c.sendMessage(send(ask({ timeoutSeconds: 1 })))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(dataOf(task.status?.message?.parts)).toMatchObject({ status: 'no_answer', reason: 'timeout' });
  });

  it('a skip completes the task with no_answer/skipped and who skipped', async () => {
    const c = await a2aClient(app.url, true);
    const task = (await c.sendMessage(send(ask()))) as Task;
    await tapFirstOption(task.id, question.options.length + 1); // the buttons: options, Other…, Skip
    const done = await c.getTask(GetTaskRequest.fromJSON({ id: task.id }));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(dataOf(done.status?.message?.parts)).toMatchObject({
      status: 'no_answer',
      reason: 'skipped',
      by: { userId: 'u-alice' },
    });
  });

  it('re-sending the same message (same messageId) returns the same task', async () => {
    const c = await a2aClient(app.url, true);
    const request = send(ask({ runId: 'a2a-idem' }));
    const one = (await c.sendMessage(request)) as Task;
    const two = (await c.sendMessage(request)) as Task;
    expect(two.id).toBe(one.id);
    await c.cancelTask(CancelTaskRequest.fromJSON({ id: one.id }));
  });

  it('a new message in the same context supersedes the pending task (it completes with no_answer/superseded)', async () => {
    const c = await a2aClient(app.url, true);
    const first = (await c.sendMessage(send(ask(), { contextId: 'ctx-supersede' }))) as Task;
    const second = (await c.sendMessage(send(ask(), { contextId: 'ctx-supersede' }))) as Task;
    expect(second.contextId).toBe('ctx-supersede');
    const old = await c.getTask(GetTaskRequest.fromJSON({ id: first.id }));
    expect(old.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(dataOf(old.status?.message?.parts)).toMatchObject({ status: 'no_answer', reason: 'superseded' });
    await c.cancelTask(CancelTaskRequest.fromJSON({ id: second.id }));
  });

  it('a push config is a durable way back: its ask may wait 7 days; without one the wait stays within the hour', async () => {
    const c = await a2aClient(app.url, true);
    const week = 7 * 86_400;
    const pushed = send(ask({ timeoutSeconds: week }));
    pushed.configuration = SendMessageRequest.fromJSON({
      configuration: {
        taskPushNotificationConfig: { url: `${receiverUrl}?t=${randomUUID()}` },
        returnImmediately: true,
      },
    }).configuration;
    const long = (await c.sendMessage(pushed)) as Task;
    expect((await (await authed(`${app.url}/v1/asks/${long.id}`)).json()).timeoutSeconds).toBe(week);
    const plain = send(ask({ timeoutSeconds: week }), { contextId: `ctx-week-${randomUUID()}` });
    plain.configuration = SendMessageRequest.fromJSON({ configuration: { returnImmediately: true } }).configuration;
    const short = (await c.sendMessage(plain)) as Task;
    expect((await (await authed(`${app.url}/v1/asks/${short.id}`)).json()).timeoutSeconds).toBe(3600);
    for (const id of [long.id, short.id]) await c.cancelTask(CancelTaskRequest.fromJSON({ id }));
  });

  it('push notifications: the URL becomes the ask\u2019s result webhook (same allow list), in A2A 1.0\u2019s own body', async () => {
    const c = await a2aClient(app.url, true);
    const url = `${receiverUrl}?t=${randomUUID()}`;
    const request = send(ask());
    request.configuration = SendMessageRequest.fromJSON({
      configuration: { taskPushNotificationConfig: { url, token: 'tok-123' }, returnImmediately: true },
    }).configuration;
    const task = (await c.sendMessage(request)) as Task;
    // The config reads back without its token: any holder of the API token may read a task, and
    // the token is what the client's receiver trusts a push by.
    const configs = await c.listTaskPushNotificationConfig(
      ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }),
    );
    expect(configs.configs.map((x) => [x.id, x.url, x.token])).toEqual([['callback', url, '']]);
    const config = await c.getTaskPushNotificationConfig(
      GetTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: 'callback' }),
    );
    expect([config.url, config.token]).toEqual([url, '']);
    const legacyGet = await (
      await authed(`${app.url}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tasks/pushNotificationConfig/get',
          params: { id: task.id, pushNotificationConfigId: 'callback' },
        }),
      })
    ).text();
    expect(JSON.parse(legacyGet).result).toMatchObject({ taskId: task.id, pushNotificationConfig: { url } });
    expect(legacyGet).not.toContain('tok-123');
    // The push config is the client's: the API's view of the ask never shows it.
    const view = await (await authed(`${app.url}/v1/asks/${task.id}`)).json();
    expect(view.callbackUrl).toBe(url);
    expect(JSON.stringify(view)).not.toContain('tok-123');
    await tapFirstOption(task.id);
    const push = await eventually(async () => pushes.find((p) => p.raw.toString().includes(task.id)));
    expect(push.headers['content-type']).toBe('application/a2a+json');
    expect(push.headers['x-a2a-notification-token']).toBe('tok-123');
    expect(push.headers.authorization).toBeUndefined();
    // Still signed by askgate, over the body as sent.
    const ts = String(push.headers['x-askgate-timestamp']);
    expect(verifyWebhook(SECRET, ts, push.raw, String(push.headers['x-askgate-signature']))).toBe(true);
    // A StreamResponse, parsed by the SDK's own type: the whole task, completed, with the result.
    const parsed = StreamResponse.fromJSON(JSON.parse(push.raw.toString()));
    expect(parsed.payload?.$case).toBe('task');
    const pushed = parsed.payload?.$case === 'task' ? parsed.payload.value : undefined;
    expect(pushed?.id).toBe(task.id);
    expect(pushed?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(dataOf(pushed?.artifacts[0]?.parts)).toMatchObject({ status: 'answered', answers: { env: ['Staging'] } });

    const refused = send(ask());
    refused.configuration = SendMessageRequest.fromJSON({
      configuration: { taskPushNotificationConfig: { url: 'http://169.254.169.254/latest' }, returnImmediately: true },
    }).configuration;
    await expect(c.sendMessage(refused)).rejects.toThrow(/callbackUrl|ASKGATE_WEBHOOK_ALLOWED_HOSTS/);
  });
});

describe('bad input', () => {
  let c: Client;
  beforeAll(async () => {
    c = await a2aClient(app.url, true);
  });

  it.each([
    ['no data part', send(undefined, {}, [{ text: 'deploy?' }]), /message\.parts: send exactly one data part/],
    ['two data parts', send(undefined, {}, [{ data: ask() }, { data: ask() }]), /found 2/],
    ['a data part that is not an object', send(undefined, {}, [{ data: [1, 2] }]), /must be an object/],
    [
      'one option',
      send({ questions: [{ ...question, options: [{ label: 'A' }] }] }),
      /questions\.0\.options: offer at least 2/,
    ],
    ['no questions', send({}), /questions:/],
    ['an unknown field', send(ask({ colour: 'red' })), /colour/],
    ['a bad runId', send(ask({ runId: '../etc' })), /runId: must be 1–128 characters/],
    ['a malformed locale', send(ask({ locale: 'en_US' })), /locale: must be a BCP 47 language tag/],
    ['an unknown time zone', send(ask({ timeZone: 'Mars/Base' })), /timeZone: must be an IANA time zone/],
    ['a bad contextId', send(ask(), { contextId: 'has space' }), /message\.contextId/],
    ['a channel that is not enabled', send(ask({ to: { channel: 'slack', chat: 'C1' } })), /not enabled/],
    ['a taskId', send(ask(), { taskId: 'abcdefabcdefabcd' }), /message\.taskId/],
    [
      'a bidi override in a question',
      send({ questions: [{ ...question, question: 'Deploy\u202e?' }] }),
      /questions\.0\.question: .*U\+202E/,
    ],
  ])('%s is an invalid-params error naming the field', async (_name, request, message) => {
    await expect(c.sendMessage(request)).rejects.toMatchObject({
      name: 'RequestMalformedError',
      message: expect.stringMatching(message),
    });
  });

  it.each(['unknown0000000', '../../etc/passwd', 'x'.repeat(5000), ''])('task id %s is not found', async (id) => {
    await expect(c.getTask(GetTaskRequest.fromJSON({ id: id.slice(0, 5000) }))).rejects.toMatchObject({
      name: 'TaskNotFoundError',
    });
  });

  it('a bad stream request is an error before any event (no stream opened)', async () => {
    const events = c.sendMessageStream(send({ questions: [] }));
    await expect(events.next()).rejects.toMatchObject({
      name: 'RequestMalformedError',
      message: expect.stringContaining('questions: ask at least 1 question'),
    });
  });

  it('the same messageId with a different ask is refused', async () => {
    const request = send(ask({ runId: 'a2a-idem-conflict' }));
    const task = (await c.sendMessage(request)) as Task;
    const other = send({ ...ask({ runId: 'a2a-idem-conflict' }), timeoutSeconds: 99 });
    other.message!.messageId = request.message!.messageId;
    await expect(c.sendMessage(other)).rejects.toMatchObject({ name: 'RequestMalformedError' });
    await c.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }));
  });

  it('an unsupported A2A-Version is refused', async () => {
    const res = await authed(`${app.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '9.9' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 'abcdefabcdefabcd' } }),
    });
    expect((await res.json()).error).toMatchObject({ code: -32009, message: expect.stringContaining('9.9') });
  });

  it('malformed JSON and prototype keys are JSON-RPC errors, not crashes', async () => {
    const post = (body: string) =>
      authed(`${app.url}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const bad = await post('{"jsonrpc":"2.0",');
    expect(bad.status).toBe(200);
    expect((await bad.json()).error.code).toBe(-32700);
    const proto = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }).replace(
        '"params":{}',
        '"params":{"__proto__":{"x":1}}',
      ),
    );
    expect((await proto.json()).error).toMatchObject({ code: -32700, message: expect.stringContaining('__proto__') });
    const unknown = await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'NoSuchMethod', params: {} }));
    expect((await unknown.json()).error.code).toBe(-32601);
    // The endpoint's own body parser leaves /v1's alone.
    const v1 = client(app.url, TOKEN);
    expect((await v1.post('/v1/asks', '{"runId":')).body.error.code).toBe('invalid_request');
    const created = await v1.post('/v1/asks', { runId: 'a2a-v1-parser', ...ask() });
    expect(created.status).toBe(201);
    await v1.post(`/v1/asks/${created.body.id}/cancel`);
  });
});

describe('auth', () => {
  it.each([
    ['no token', {}],
    ['a wrong token', { authorization: 'Bearer wrong-token-0123456789' }],
  ])('POST /a2a with %s is 401 and creates nothing', async (_name, headers: Record<string, string>) => {
    const before = (await app.store.recent(100)).length;
    const res = await fetch(`${app.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: {} } }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect((await app.store.recent(100)).length).toBe(before);
  });
});

describe('v0.3 method names', () => {
  const rpc = async (method: string, params: unknown) => {
    const res = await authed(`${app.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
    });
    return (await res.json()) as { result?: any; error?: any };
  };
  const message = (data: unknown) => ({
    message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'data', data }] },
    configuration: { blocking: false },
  });

  it('message/send, tasks/get and tasks/cancel speak v0.3 shapes', async () => {
    const sent = await rpc('message/send', message(ask({ runId: 'a2a-legacy' })));
    expect(sent.result).toMatchObject({ kind: 'task', contextId: 'a2a-legacy', status: { state: 'working' } });
    await tapFirstOption(sent.result.id);
    const got = await rpc('tasks/get', { id: sent.result.id });
    expect(got.result.status.state).toBe('completed');
    expect(got.result.status.message.parts).toContainEqual(
      expect.objectContaining({ kind: 'data', data: expect.objectContaining({ answers: { env: ['Staging'] } }) }),
    );

    const other = await rpc('message/send', message(ask()));
    const canceled = await rpc('tasks/cancel', { id: other.result.id });
    expect(canceled.result.status.state).toBe('canceled');
    expect((await rpc('tasks/get', { id: 'nope0000000000' })).error.code).toBe(-32001);
    expect((await rpc('message/send', message({ questions: [] }))).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('questions: ask at least 1 question'),
    });
  });

  it('a v0.3 push gets the v0.3 task body and its Authorization header; bad credentials are refused', async () => {
    const url = `${receiverUrl}?t=${randomUUID()}`;
    const sent = await rpc('message/send', {
      ...message(ask()),
      configuration: {
        blocking: false,
        pushNotificationConfig: { url, authentication: { schemes: ['Bearer'], credentials: 'push-secret' } },
      },
    });
    expect(sent.result).toMatchObject({ kind: 'task', status: { state: 'working' } });
    await tapFirstOption(sent.result.id);
    const push = await eventually(async () => pushes.find((p) => p.raw.toString().includes(sent.result.id)));
    expect(push.headers.authorization).toBe('Bearer push-secret');
    expect(push.headers['content-type']).toBe('application/json');
    expect(JSON.parse(push.raw.toString())).toMatchObject({
      kind: 'task',
      id: sent.result.id,
      status: { state: 'completed' },
      artifacts: [{ parts: [{ kind: 'data', data: { status: 'answered' } }] }],
    });
    for (const authentication of [
      { schemes: ['Bearer'], credentials: 'line\r\nX-Evil: 1' },
      { schemes: ['Bear er'], credentials: 'x' },
      { schemes: ['Bearer'], credentials: '' },
    ]) {
      const bad = await rpc('message/send', {
        ...message(ask()),
        configuration: { blocking: false, pushNotificationConfig: { url, authentication } },
      });
      expect(bad.error).toMatchObject({ message: expect.stringMatching(/authentication/) });
    }
  });

  it('message/stream through the SDK\u2019s v0.3 transport streams until the answer', async () => {
    const card = AgentCard.fromJSON(
      await (await fetch(`${app.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json(),
    );
    const legacy = new Client(new LegacyJsonRpcTransport({ endpoint: `${app.url}/a2a`, fetchImpl: authed }), card);
    expect(legacy.protocolVersion).toBe('0.3');
    const events: StreamResponse[] = [];
    const consumed = (async () => {
      for await (const e of legacy.sendMessageStream(send(ask({ runId: 'a2a-legacy-stream' })))) events.push(e);
    })();
    const first = await eventually(async () => events[0]);
    const id = first.payload?.$case === 'task' ? first.payload.value.id : '';
    await tapFirstOption(id);
    await consumed;
    const last = events.at(-1)!.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(Role.ROLE_AGENT).toBe(last?.$case === 'statusUpdate' && last.value.status?.message?.role);
  });
});

describe('settings', () => {
  it('without a token the card names no scheme; ASKGATE_A2A_URL sets its URL; push needs a webhook secret; shutdown ends an open stream', async () => {
    const local = await startTestApp(
      testEnv({ ASKGATE_DEFAULT_TO: 'test:chat-local', ASKGATE_A2A_URL: 'https://askgate.example.com/a2a' }),
      [new RecordingChannel('test')],
    );
    try {
      const card = await (
        await fetch(`${local.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
      ).json();
      expect(card.supportedInterfaces[0].url).toBe('https://askgate.example.com/a2a');
      expect(card.securitySchemes).toBeUndefined();
      expect(card.capabilities.pushNotifications).toBe(false);
      const card03 = await (await fetch(`${local.url}/.well-known/agent-card.json`)).json();
      expect(card03.security).toBeUndefined();

      const c = await new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { clientConfig: { polling: true } }),
      ).createFromAgentCard(
        AgentCard.fromJSON({
          ...card,
          supportedInterfaces: [{ ...card.supportedInterfaces[0], url: `${local.url}/a2a` }],
        }),
      );
      const push = send(ask());
      push.configuration = SendMessageRequest.fromJSON({
        configuration: { taskPushNotificationConfig: { url: 'https://example.com/hook' }, returnImmediately: true },
      }).configuration;
      await expect(c.sendMessage(push)).rejects.toMatchObject({
        name: 'PushNotificationNotSupportedError',
        message: expect.stringContaining('ASKGATE_WEBHOOK_SECRET'),
      });

      const events: StreamResponse[] = [];
      const consumed = (async () => {
        for await (const e of c.sendMessageStream(send(ask()))) events.push(e);
      })();
      await eventually(async () => events[0]);
      await local.close();
      await consumed.catch(() => undefined);
      expect(events.map((e) => e.payload?.$case)).toEqual(['task']);
    } finally {
      await local.close();
    }
  });

  it('the card URL: ASKGATE_PUBLIC_URL when set; else the Host only when it is a plain host[:port], else the listening address', async () => {
    const cardUrl = (base: string, host: string) =>
      new Promise<string>((resolve, reject) => {
        const { port } = new URL(base);
        const req = httpRequest(
          { host: '127.0.0.1', port, path: '/.well-known/agent-card.json', headers: { host } },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () => resolve((JSON.parse(text) as { url: string }).url));
          },
        );
        req.on('error', reject);
        req.end();
      });
    const listening = `http://127.0.0.1:${new URL(app.url).port}/a2a`;
    for (const host of ['x:1@evil', 'evil.example/path?', 'a b', 'evil#x', 'host:99999', 'host:'])
      expect(await cardUrl(app.url, host), host).toBe(listening);
    expect(await cardUrl(app.url, 'askgate.example.com:8443')).toBe('http://askgate.example.com:8443/a2a');
    expect(await cardUrl(app.url, '[::1]:7420')).toBe('http://[::1]:7420/a2a');

    const behind = await startTestApp(
      testEnv({
        ASKGATE_API_TOKEN: TOKEN,
        ASKGATE_PUBLIC_URL: 'https://askgate.example.com/base/',
        ASKGATE_LINK_SECRET: 'a2a-test-link-secret-0123456789abcdef',
      }),
    );
    try {
      expect(await cardUrl(behind.url, 'x:1@evil')).toBe('https://askgate.example.com/base/a2a');
      expect(await cardUrl(behind.url, 'other.example')).toBe('https://askgate.example.com/base/a2a');
    } finally {
      await behind.close();
    }
  });

  it('ASKGATE_A2A=off serves neither the card nor the endpoint', async () => {
    const off = await startTestApp(testEnv({ ASKGATE_A2A: 'off', ASKGATE_API_TOKEN: TOKEN }));
    try {
      expect((await fetch(`${off.url}/.well-known/agent-card.json`)).status).toBe(401);
      const res = await authed(`${off.url}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(404);
    } finally {
      await off.close();
    }
  });

  it.each([
    [{ ASKGATE_A2A: 'maybe' }, /ASKGATE_A2A/],
    [{ ASKGATE_A2A_URL: 'askgate.example.com/a2a' }, /ASKGATE_A2A_URL/],
    [{ ASKGATE_A2A_URL: 'https://user:pw@askgate.example.com/a2a' }, /ASKGATE_A2A_URL: .*credentials/],
    [{ ASKGATE_PUBLIC_URL: 'askgate.example.com' }, /ASKGATE_PUBLIC_URL: .*not a URL/],
    [{ ASKGATE_PUBLIC_URL: 'ftp://askgate.example.com' }, /ASKGATE_PUBLIC_URL: .*scheme/],
    [{ ASKGATE_PUBLIC_URL: 'https://user@askgate.example.com' }, /ASKGATE_PUBLIC_URL: .*credentials/],
    [{ ASKGATE_PUBLIC_URL: 'https://askgate.example.com/?x=1' }, /ASKGATE_PUBLIC_URL: .*query/],
    [{ ASKGATE_PUBLIC_URL: 'https://askgate.example.com/#top' }, /ASKGATE_PUBLIC_URL: .*fragment/],
    [{ ASKGATE_A2A_WAIT_SECONDS: '600' }, /ASKGATE_A2A_WAIT_SECONDS/],
  ])('refuses %o at startup', (env, message) => {
    expect(() => loadConfig(testEnv(env))).toThrow(message);
  });
});
