import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, humanInTheLoopMiddleware, tool } from 'langchain';
import { MemorySaver } from '@langchain/langgraph';
import { ToolMessage } from '@langchain/core/messages';
import { z } from 'zod';
import { startTestApp, testEnv } from '../helpers/app.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { ScriptedChatModel, type ScriptedTurn } from '../fakes/chat-model.js';
import { AskgateClient, actionHash } from '../../src/client/index.js';
import { HitlUndecidedError, hitlDecisionOf, runWithAskgate } from '../../src/adapters/langgraph.js';
import type { RunningAskgate } from '../../src/main.js';
import { Person, closeApp } from './adapters-person.js';

// LangChain's real human-in-the-loop middleware (langchain's createAgent + humanInTheLoopMiddleware,
// on LangGraph's MemorySaver) answered through askgate approvals (issue 36) on Redis: a scripted chat
// model proposes tool calls, the middleware interrupts, runWithAskgate asks a person in the test
// channel and resumes with their decisions; the tools record what really ran, the model what it read.

let redis: TestRedis;
let app: RunningAskgate;
let sdk: AskgateClient;
const channel = new RecordingChannel('test');
let n = 0;

beforeAll(async () => {
  redis = await startRedis();
  app = await startTestApp(testEnv({ REDIS_URL: redis.url }), [channel]);
  sdk = new AskgateClient({ url: app.url });
});

afterAll(async () => {
  await closeApp(app);
  await redis?.stop();
});

type Decisions = ('approve' | 'edit' | 'reject')[];

/** A createAgent with send_email, delete_file and archive under review, and a record of what ran. */
function mailAgent(script: ScriptedTurn[], allowed: { email?: Decisions; del?: Decisions } = {}) {
  const ran: string[] = [];
  const model = new ScriptedChatModel(script);
  const sendEmail = tool(async (args) => (ran.push(`send_email ${JSON.stringify(args)}`), 'sent'), {
    name: 'send_email',
    description: 'Sends an email',
    schema: z.object({ to: z.string(), subject: z.string() }),
  });
  const deleteFile = tool(async (args) => (ran.push(`delete_file ${JSON.stringify(args)}`), 'deleted'), {
    name: 'delete_file',
    description: 'Deletes a file',
    schema: z.object({ path: z.string() }),
  });
  const archive = tool(async (args) => (ran.push(`archive ${JSON.stringify(args)}`), 'archived'), {
    name: 'archive',
    description: 'Archives a folder',
    schema: z.object({ folder: z.string() }),
  });
  const agent = createAgent({
    model,
    tools: [sendEmail, deleteFile, archive],
    middleware: [
      humanInTheLoopMiddleware({
        interruptOn: {
          send_email: {
            allowedDecisions: allowed.email ?? ['approve', 'edit', 'reject'],
            argsSchema: { type: 'object', required: ['to', 'subject'] },
          },
          delete_file: { allowedDecisions: allowed.del ?? ['approve', 'reject'], description: 'Deletes for good' },
          archive: true,
        },
      }),
    ],
    checkpointer: new MemorySaver(),
  });
  /** The tool results the model read, in order. */
  const toolResults = () =>
    model.calls
      .at(-1)!
      .filter((m) => ToolMessage.isInstance(m))
      .map((m) => `${m.name}: ${String(m.content)}`);
  return { agent, ran, model, toolResults };
}

const email = { name: 'send_email', args: { to: 'finance@example.com', subject: 'Q3' } };
const del = { name: 'delete_file', args: { path: '/tmp/q3.csv' } };
const arch = { name: 'archive', args: { folder: 'q3' } };
const start = { messages: [{ role: 'user', content: 'Close Q3' }] };

function setup() {
  const chat = `lc-hitl-${++n}`;
  return { chat, threadId: chat, person: new Person(channel, sdk, chat), to: { channel: 'test', chat } };
}

describe('humanInTheLoopMiddleware (batched: every call of a turn in one interrupt)', () => {
  it('approve runs the call once with its own arguments; edit runs it with the person’s', async () => {
    const { agent, ran, toolResults } = mailAgent([[email, del]]);
    const { person, threadId, to } = setup();
    const run = runWithAskgate(sdk, agent, start, { threadId, to });
    const first = await person.reply('edit: {"to": "cfo@example.com", "subject": "Q3"}');
    const second = await person.tap('Approve');
    const final = await run;
    expect(first.view.approval).toMatchObject({
      action: 'send_email',
      summary: 'Tool execution requires approval',
      hash: actionHash('send_email', email.args).slice(7, 15),
      decisions: ['approve', 'reject', 'request_changes', 'edit'],
    });
    expect(second.view.approval).toMatchObject({
      action: 'delete_file',
      summary: 'Deletes for good',
      decisions: ['approve', 'reject', 'request_changes'],
    });
    expect(ran).toEqual(['send_email {"to":"cfo@example.com","subject":"Q3"}', 'delete_file {"path":"/tmp/q3.csv"}']);
    expect(toolResults()).toEqual(['send_email: sent', 'delete_file: deleted']);
    expect(final.messages.at(-1).content).toBe('done');
  });

  it('a rejection runs nothing of the turn: the model reads the reason and which approved calls did not run; later calls are not asked', async () => {
    const { agent, ran, toolResults } = mailAgent([[email, del, arch]]);
    const { person, threadId, to } = setup();
    const run = runWithAskgate(sdk, agent, start, { threadId, to });
    await person.tap('Approve');
    await person.reply('reject: keep the CSV until the audit');
    await run;
    expect(ran).toEqual([]);
    // Two asks: archive came after the rejection, so the person was not asked about it.
    expect(channel.delivered.filter((d) => d.target.chat === person.chat)).toHaveLength(2);
    expect(toolResults()).toEqual([
      'delete_file: The user rejected delete_file: keep the CSV until the audit The calls approved before it in this turn did not run either (send_email): propose them again if they are still needed.',
      'archive: Not asked and not run: the user rejected delete_file in the same turn. Propose archive again if it is still needed.',
    ]);
  });

  it('an edit against argsSchema is refused in the chat until it fits; the ask stays open', async () => {
    const { agent, ran } = mailAgent([[email]]);
    const { person, threadId, to } = setup();
    const run = runWithAskgate(sdk, agent, start, { threadId, to });
    const asked = await person.nextAsk();
    expect(asked.view.approval).toMatchObject({ decisions: ['approve', 'reject', 'request_changes', 'edit'] });
    const messageId = (await sdk.get(asked.askId)).deliveries[0]!.message!.messageId;
    const invalid = await channel.sink!.text({
      channel: 'test',
      chat: person.chat,
      replyTo: messageId,
      privateChat: false,
      user: person.user,
      text: 'edit: {"subject": "Q4"}',
    });
    expect(invalid.kind).not.toBe('recorded');
    expect((await sdk.get(asked.askId)).status).toBe('pending');
    await channel.sink!.button({
      channel: 'test',
      token: asked.view.buttons![0]!.token,
      user: person.user,
      chat: person.chat,
    });
    await run;
    expect(ran).toEqual(['send_email {"to":"finance@example.com","subject":"Q3"}']);
  });
});

describe('humanInTheLoopMiddleware (per call: one call per turn, one interrupt each)', () => {
  it('each turn is its own ask; requested changes reach the model as the rejection message', async () => {
    const { agent, ran, model } = mailAgent([[email], [del]]);
    const { person, threadId, to } = setup();
    const run = runWithAskgate(sdk, agent, start, { threadId, to });
    const first = await person.tap('Approve');
    const second = await person.reply('request changes: move it to /archive instead');
    await run;
    expect(first.askId).not.toBe(second.askId);
    expect(second.view.approval).toMatchObject({ action: 'delete_file' });
    expect(ran).toEqual(['send_email {"to":"finance@example.com","subject":"Q3"}']);
    const last = model.calls
      .at(-1)!
      .filter((m) => ToolMessage.isInstance(m))
      .map((m) => String(m.content));
    expect(last).toEqual([
      'sent',
      'The user did not approve delete_file and asked for changes: move it to /archive instead',
    ]);
  });

  it('no answer is a rejection the model reads; the tool does not run', async () => {
    const { agent, ran, toolResults } = mailAgent([[del]]);
    const { person, threadId, to } = setup();
    const run = runWithAskgate(sdk, agent, start, { threadId, to });
    await person.skip();
    await run;
    expect(ran).toEqual([]);
    expect(toolResults()).toEqual([
      'delete_file: Not approved: the user did not answer (skipped), so delete_file did not run.',
    ]);
  });
});

describe('humanInTheLoopMiddleware: allowed decisions', () => {
  it('without reject: only approve and edit are offered, and no answer leaves the thread paused (nothing runs)', async () => {
    const { agent, ran } = mailAgent([[email]], { email: ['approve', 'edit'] });
    const { person, threadId, to } = setup();
    // Caught from the start: the run may fail before the skip's own call returns.
    const failed = runWithAskgate(sdk, agent, start, { threadId, to }).then(
      () => undefined,
      (error: unknown) => error,
    );
    const asked = await person.skip();
    expect(await failed).toBeInstanceOf(HitlUndecidedError);
    expect(asked.view.approval).toMatchObject({ decisions: ['approve', 'edit'] });
    expect(ran).toEqual([]);
    const state = await agent.graph.getState({ configurable: { thread_id: threadId } });
    expect(state.tasks.flatMap((t) => t.interrupts)).toHaveLength(1);
  });

  it('without approve: the person’s approve is sent as an edit with the proposed arguments', async () => {
    const { agent, ran } = mailAgent([[email]], { email: ['edit', 'reject'] });
    const { person, threadId, to } = setup();
    const run = runWithAskgate(sdk, agent, start, { threadId, to });
    await person.tap('Approve');
    await run;
    expect(ran).toEqual(['send_email {"to":"finance@example.com","subject":"Q3"}']);
  });
});

describe('humanInTheLoopMiddleware: requestedBy', () => {
  it('the person who asked for the actions cannot approve them; someone else can', async () => {
    const { agent, ran } = mailAgent([[del]]);
    const { person, threadId, to } = setup();
    const run = runWithAskgate(sdk, agent, start, {
      threadId,
      to,
      requestedBy: { channel: 'test', userId: person.user.userId },
    });
    const asked = await person.nextAsk();
    expect(asked.view.approval).toMatchObject({ action: 'delete_file' });
    const own = await channel.sink!.button({
      channel: 'test',
      token: asked.view.buttons![0]!.token,
      user: person.user,
      chat: person.chat,
    });
    expect(own).toMatchObject({ kind: 'invalid', hint: 'You requested this action: someone else must decide.' });
    expect((await sdk.get(asked.askId)).status).toBe('pending');
    await sdk.answer(asked.askId, { decision: 'approve', by: 'erin' });
    await run;
    expect(ran).toEqual(['delete_file {"path":"/tmp/q3.csv"}']);
  });
});

describe('hitlDecisionOf: only an approval bound to the call lets it run', () => {
  const approved = (action: string, args: Record<string, unknown>, decision: 'approve' | 'edit' = 'approve') => ({
    status: 'answered' as const,
    answers: {},
    answeredBy: { channel: 'api', userId: 'erin' },
    answeredAt: '2026-12-07T12:00:00.000Z',
    decision,
    arguments: args,
    actionHash: actionHash(action, args),
    effectiveHash: actionHash(action, args),
  });
  const config = { actionName: 'delete_file', allowedDecisions: ['approve', 'edit', 'reject'] };

  it('approve and edit of this call pass; an approval of other arguments or another action is a rejection', () => {
    expect(hitlDecisionOf(del, approved('delete_file', del.args), config)).toEqual({ type: 'approve' });
    expect(hitlDecisionOf(del, approved('delete_file', { path: '/tmp/x' }, 'edit'), config)).toEqual({
      type: 'edit',
      editedAction: { name: 'delete_file', args: { path: '/tmp/x' } },
    });
    const other = hitlDecisionOf(del, approved('delete_file', { path: '/etc/passwd' }), config);
    expect(other).toMatchObject({ type: 'reject', message: expect.stringMatching(/^Not approved: the action to run/) });
    expect(hitlDecisionOf(del, approved('send_email', del.args), config)).toMatchObject({ type: 'reject' });
    const strict = { ...config, allowedDecisions: ['approve', 'edit'] };
    expect(() => hitlDecisionOf(del, approved('send_email', del.args), strict)).toThrow(HitlUndecidedError);
  });
});
