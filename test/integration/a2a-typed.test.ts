import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetTaskRequest, SendMessageRequest, TaskState, type Part, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import type { RunningAskgate } from '../../src/main.js';

// Typed questions over A2A (issue 35), through @a2a-js/sdk's own clients: the card says how to ask
// them, the data part carries `kind` and its constraints (the body of POST /v1/asks), and the
// result's data part carries `values` with JSON types and `raw`. The person answers in the chat
// (the recording channel's inbound sink) or an operator through the API.

const TOKEN = 'a2a-typed-token-0123456789';
const channel = new RecordingChannel('test');
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let a2a: Client;

const authed: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('authorization', `Bearer ${TOKEN}`);
  return fetch(input, { ...init, headers });
};

beforeAll(async () => {
  app = await startTestApp(
    testEnv({ ASKGATE_API_TOKEN: TOKEN, ASKGATE_DEFAULT_TO: 'test:a2a-typed', ASKGATE_A2A_WAIT_SECONDS: '30' }),
    [channel],
  );
  api = client(app.url, TOKEN);
  a2a = await new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: authed })],
      clientConfig: { polling: true },
    }),
  ).createFromUrl(app.url);
});

afterAll(async () => {
  await app?.close();
});

const send = (data: unknown) =>
  SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data }] } });
const dataOf = (parts: Part[] | undefined) => parts?.find((p) => p.content?.$case === 'data')?.content?.value;
const completed = (id: string) =>
  eventually(async () => {
    const task = await a2a.getTask(GetTaskRequest.fromJSON({ id }));
    return task.status?.state === TaskState.TASK_STATE_COMPLETED ? task : undefined;
  });

describe('A2A: typed questions', () => {
  it('the card (1.0 and v0.3) tells how to ask a typed question and what values come back', async () => {
    for (const headers of [{ 'A2A-Version': '1.0' }, {}] as Record<string, string>[]) {
      const card = await (await fetch(`${app.url}/.well-known/agent-card.json`, { headers })).json();
      expect(card.description).toMatch(/a typed answer \(free text, a number, a date/);
      const skill = card.skills[0];
      for (const part of ['kind "text"', '"number" (min?, max?, integer?, unit?)', '"date"', 'values: {'])
        expect(skill.description).toContain(part);
      expect(skill.examples).toContain(
        '{"questions":[{"id":"replicas","question":"How many replicas?","kind":"number","min":1,"max":10,"integer":true}]}',
      );
    }
  });

  it('a number and a time in the data part, answered in the chat: the result’s data part has values and raw', async () => {
    const task = (await a2a.sendMessage(
      send({
        runId: 'a2a-typed-chat',
        locale: 'de',
        questions: [
          { id: 'budget', question: 'Budget?', kind: 'number', min: 0, unit: 'EUR' },
          { id: 'at', question: 'Uhrzeit?', kind: 'time', min: '08:00', max: '18:00' },
        ],
      }),
    )) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const view = (await api.get(`/v1/asks/${task.id}`)).body;
    expect(view.questions).toEqual([
      { id: 'budget', question: 'Budget?', kind: 'number', min: 0, unit: 'EUR' },
      { id: 'at', question: 'Uhrzeit?', kind: 'time', min: '08:00', max: '18:00' },
    ]);
    await eventually(async () => channel.delivered.find((d) => d.askId === task.id));
    const outcome = await channel.sink!.text({
      channel: 'test',
      chat: 'a2a-typed',
      privateChat: true,
      user: { channel: 'test', userId: 'jonas', name: 'Jonas' },
      text: '1.250,50 EUR\n9:30',
      locale: 'de',
    });
    expect(outcome.kind).toBe('recorded');
    const done = await completed(task.id);
    const expected = {
      status: 'answered',
      answers: { budget: ['1250.5'], at: ['09:30'] },
      values: { budget: 1250.5, at: '09:30' },
      raw: { budget: '1.250,50 EUR', at: '9:30' },
    };
    expect(dataOf(done.status?.message?.parts)).toMatchObject(expected);
    expect(dataOf(done.artifacts[0]!.parts)).toMatchObject(expected);
  });

  it('a date answered with values through the API completes the task with the value', async () => {
    const task = (await a2a.sendMessage(
      send({ runId: 'a2a-typed-api', questions: [{ id: 'day', question: 'Which day?', kind: 'date' }] }),
    )) as Task;
    expect((await api.post(`/v1/asks/${task.id}/answer`, { values: { day: '2026-12-08' } })).status).toBe(200);
    expect(dataOf((await completed(task.id)).status?.message?.parts)).toMatchObject({
      values: { day: '2026-12-08' },
    });
  });

  it('a typed question with a field of another kind is refused (-32602), naming the field', async () => {
    await expect(
      a2a.sendMessage(send({ questions: [{ question: 'How many?', kind: 'number', options: [{ label: 'A' }] }] })),
    ).rejects.toMatchObject({
      name: 'RequestMalformedError',
      message: expect.stringContaining('questions.0.options: does not apply to a number question'),
    });
  });
});
