import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetTaskRequest, SendMessageRequest, TaskState, type Part, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { actionHash, assertApproved, type AskResult } from '../../src/client/index.js';
import type { RunningAskgate } from '../../src/main.js';

// Approvals over A2A (issue 36), through @a2a-js/sdk's own client: the card has a request_approval
// skill, the approval travels as the data part (the body of POST /v1/asks), and the task completes
// with the decision, the arguments to run and both hashes in its data part (status message and
// result artifact), plus a text line saying whether to run the action.

const TOKEN = 'a2a-approvals-token-0123456789';
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
    testEnv({ ASKGATE_API_TOKEN: TOKEN, ASKGATE_DEFAULT_TO: 'test:a2a-approvals', ASKGATE_A2A_WAIT_SECONDS: '30' }),
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

const email = {
  action: 'send_email',
  arguments: { to: 'finance@example.com', subject: 'Q3 report' },
  summary: 'Send the Q3 report to finance',
  decisions: ['approve', 'reject', 'request_changes', 'edit'],
};
const send = (data: unknown) =>
  SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data }] } });
const dataOf = (parts: Part[] | undefined) =>
  parts?.find((p) => p.content?.$case === 'data')?.content?.value as Record<string, unknown> | undefined;
const textOf = (parts: Part[] | undefined) => parts?.find((p) => p.content?.$case === 'text')?.content?.value;
const completed = (id: string) =>
  eventually(async () => {
    const task = await a2a.getTask(GetTaskRequest.fromJSON({ id }));
    return task.status?.state === TaskState.TASK_STATE_COMPLETED ? task : undefined;
  });
let runs = 0;
const approvalTask = async () =>
  (await a2a.sendMessage(send({ runId: `a2a-approval-${++runs}`, approval: email }))) as Task;

describe('A2A: approvals', () => {
  it('the card (1.0 and v0.3) has a request_approval skill saying what to send and what comes back', async () => {
    for (const headers of [{ 'A2A-Version': '1.0' }, {}] as Record<string, string>[]) {
      const card = await (await fetch(`${app.url}/.well-known/agent-card.json`, { headers })).json();
      expect(card.description).toContain('authorize one exact action');
      expect(card.skills.map((s: { id: string }) => s.id)).toEqual(['ask_user', 'request_approval']);
      const skill = card.skills[1];
      for (const part of ['approval is {action', 'effectiveHash', 'RFC 8785', 'request_changes'])
        expect(skill.description).toContain(part);
      expect(JSON.parse(skill.examples[0]).approval.action).toBe('send_email');
    }
  });

  it('approve: the task completes with the decision, the arguments and both hashes; assertApproved passes', async () => {
    const task = await approvalTask();
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const view = (await api.get(`/v1/asks/${task.id}`)).body;
    expect(view.approval).toMatchObject({
      action: 'send_email',
      actionHash: actionHash(email.action, email.arguments),
    });
    await eventually(async () => channel.delivered.find((d) => d.askId === task.id));
    expect((await api.post(`/v1/asks/${task.id}/answer`, { decision: 'approve', by: 'alice' })).status).toBe(200);
    const done = await completed(task.id);
    const hash = actionHash(email.action, email.arguments);
    const expected = {
      status: 'answered',
      decision: 'approve',
      arguments: email.arguments,
      actionHash: hash,
      effectiveHash: hash,
    };
    expect(dataOf(done.status?.message?.parts)).toMatchObject(expected);
    expect(dataOf(done.artifacts[0]!.parts)).toMatchObject(expected);
    expect(textOf(done.status?.message?.parts)).toMatch(/^Approved: run the action with exactly the arguments/);
    const result = dataOf(done.artifacts[0]!.parts) as AskResult;
    expect(assertApproved(result, email.action, email.arguments)).toEqual(email.arguments);
  });

  it('edit and reject: the edited arguments to run; a rejection with the person’s reason', async () => {
    const edit = await approvalTask();
    const edited = { ...email.arguments, to: 'cfo@example.com' };
    await api.post(`/v1/asks/${edit.id}/answer`, { decision: 'edit', arguments: edited });
    const editedDone = await completed(edit.id);
    expect(dataOf(editedDone.artifacts[0]!.parts)).toMatchObject({
      decision: 'edit',
      arguments: edited,
      effectiveHash: actionHash(email.action, edited),
    });
    expect(textOf(editedDone.status?.message?.parts)).toMatch(/^Approved with changes/);

    const reject = await approvalTask();
    await api.post(`/v1/asks/${reject.id}/answer`, { decision: 'reject', reason: 'wrong quarter' });
    const rejected = await completed(reject.id);
    expect(dataOf(rejected.artifacts[0]!.parts)).toMatchObject({ decision: 'reject', reason: 'wrong quarter' });
    // The person's words stay in the data part.
    expect(textOf(rejected.status?.message?.parts)).toBe(
      'Rejected: do not run the action; the reason is in the data part.',
    );
  });

  it('an invalid approval is refused (-32602), naming the field', async () => {
    await expect(a2a.sendMessage(send({ approval: { ...email, decisions: ['reject'] } }))).rejects.toMatchObject({
      name: 'RequestMalformedError',
      message: expect.stringContaining('approval.decisions: must offer approve'),
    });
  });
});
