import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Annotation, END, MemorySaver, START, StateGraph, interrupt } from '@langchain/langgraph';
import { startTestApp, testEnv } from '../helpers/app.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { AskgateClient, actionHash } from '../../src/client/index.js';
import { runWithAskgate, type HitlDecision, type HitlRequest } from '../../src/adapters/langgraph.js';
import type { RunningAskgate } from '../../src/main.js';
import { Person, closeApp } from './adapters-person.js';

// LangChain's human-in-the-loop middleware interrupts answered through askgate approvals (issue 36),
// on the real LangGraph (StateGraph, interrupt(), Command({resume}), MemorySaver). The `langchain`
// package (createAgent, humanInTheLoopMiddleware) is not installed here: the graph's node raises
// the middleware's interrupt value and applies its resume `{decisions}` as the middleware does
// (approve runs the call, edit runs editedAction.args, reject returns the message to the model).

let app: RunningAskgate;
let sdk: AskgateClient;
const channel = new RecordingChannel('test');
let n = 0;

beforeAll(async () => {
  app = await startTestApp(testEnv(), [channel]);
  sdk = new AskgateClient({ url: app.url });
});

afterAll(async () => {
  await closeApp(app);
});

const Mail = Annotation.Root({
  calls: Annotation<{ name: string; args: Record<string, unknown> }[]>(),
  log: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
});
const reviewConfigs = [
  {
    actionName: 'send_email',
    allowedDecisions: ['approve', 'edit', 'reject'],
    argsSchema: { type: 'object', required: ['to'] },
  },
  { actionName: 'delete_file', allowedDecisions: ['approve', 'reject'] },
];

/** What the middleware does with one decision: run the call (as given or edited) or hand back the message. */
const apply = (call: { name: string; args: Record<string, unknown> }, d: HitlDecision): string =>
  d.type === 'approve'
    ? `ran ${call.name} ${JSON.stringify(call.args)}`
    : d.type === 'edit'
      ? `ran ${d.editedAction.name} ${JSON.stringify(d.editedAction.args)}`
      : `rejected ${call.name}: ${d.message ?? ''}`;

/** `batched`: one interrupt for every call (the middleware's default); else one interrupt per call. */
function mailGraph(batched: boolean) {
  return new StateGraph(Mail)
    .addNode('tools', (state) => {
      const described = (c: { name: string; args: Record<string, unknown> }) => ({
        ...c,
        description: `Tool execution requires approval: ${c.name}`,
      });
      if (batched) {
        const request: HitlRequest = { actionRequests: state.calls.map(described), reviewConfigs };
        const { decisions } = interrupt<HitlRequest, { decisions: HitlDecision[] }>(request);
        return { log: state.calls.map((c, i) => apply(c, decisions[i]!)) };
      }
      const log = state.calls.map((c) => {
        const { decisions } = interrupt<HitlRequest, { decisions: HitlDecision[] }>({
          actionRequests: [described(c)],
          reviewConfigs,
        });
        return apply(c, decisions[0]!);
      });
      return { log };
    })
    .addEdge(START, 'tools')
    .addEdge('tools', END)
    .compile({ checkpointer: new MemorySaver() });
}

const calls = [
  { name: 'send_email', args: { to: 'finance@example.com', subject: 'Q3' } },
  { name: 'delete_file', args: { path: '/tmp/q3.csv' } },
];

describe.each([
  ['batched', true],
  ['per call', false],
])('humanInTheLoopMiddleware interrupts (%s) resolved with askgate approvals', (_mode, batched) => {
  it('one approval ask per action, in order, with the allowed decisions; an edit and a rejection resume the graph', async () => {
    const chat = `lg-hitl-${++n}`;
    const person = new Person(channel, sdk, chat);
    const run = runWithAskgate(
      sdk,
      mailGraph(batched),
      { calls },
      { threadId: `lg-hitl-${n}`, to: { channel: 'test', chat } },
    );
    const email = await person.reply('edit: {"to": "cfo@example.com", "subject": "Q3"}');
    const del = await person.reply('reject: keep the CSV');
    const final = await run;
    expect(email.view.approval).toMatchObject({
      action: 'send_email',
      summary: 'Tool execution requires approval: send_email',
      hash: actionHash('send_email', calls[0]!.args).slice(7, 15),
      decisions: ['approve', 'reject', 'request_changes', 'edit'],
    });
    expect(del.view.approval).toMatchObject({
      action: 'delete_file',
      decisions: ['approve', 'reject', 'request_changes'],
    });
    expect(final.log).toEqual([
      'ran send_email {"to":"cfo@example.com","subject":"Q3"}',
      'rejected delete_file: The user rejected delete_file: keep the CSV',
    ]);
  });

  it('approve runs the call as proposed; an edit against argsSchema is refused in the chat until it fits', async () => {
    const chat = `lg-hitl-${++n}`;
    const person = new Person(channel, sdk, chat);
    const run = runWithAskgate(
      sdk,
      mailGraph(batched),
      { calls: [calls[0]!] },
      { threadId: `lg-hitl-${n}`, to: { channel: 'test', chat } },
    );
    const asked = await person.nextAsk();
    // An edit without the required "to" is not a decision: the ask stays open.
    const messageId = (await sdk.get(asked.askId)).deliveries[0]!.message!.messageId;
    const invalid = await channel.sink!.text({
      channel: 'test',
      chat,
      replyTo: messageId,
      privateChat: false,
      user: person.user,
      text: 'edit: {"subject": "Q4"}',
    });
    expect(invalid.kind).not.toBe('recorded');
    expect((await sdk.get(asked.askId)).status).toBe('pending');
    await channel.sink!.button({ channel: 'test', token: asked.view.buttons![0]!.token, user: person.user, chat });
    expect((await run).log).toEqual(['ran send_email {"to":"finance@example.com","subject":"Q3"}']);
  });
});
