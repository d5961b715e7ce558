import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Agent,
  RunResult,
  RunState,
  Runner,
  Usage,
  tool,
  type AgentOutputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
} from '@openai/agents';
import { z } from 'zod';
import { startTestApp, testEnv } from '../helpers/app.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { AskgateClient } from '../../src/client/index.js';
import {
  approveWithPerson,
  askUserTool,
  type ApprovalRecord,
  type ApproveWithPersonOptions,
} from '../../src/adapters/openai-agents.js';
import type { RunningAskgate } from '../../src/main.js';
import { Person, closeApp } from './adapters-person.js';
import { actionHash } from '../../src/client/index.js';

// The real OpenAI Agents SDK (Agent, Runner, tool(), needsApproval, RunState.approve/reject) with a
// scripted Model instead of OpenAI: no network. A real askgate, answered through the test channel.

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

type Step = (request: ModelRequest) => AgentOutputItem[];

/** A Model that answers each request with the next scripted step and keeps the requests it got. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly steps: Step[]) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const step = this.steps.shift();
    if (!step) throw new Error('the script has no more steps');
    return { usage: new Usage(), output: step(request) };
  }
  getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not scripted');
  }
}

const call =
  (name: string, args: unknown, callId = 'call_1'): Step =>
  () => [{ type: 'function_call', callId, name, arguments: JSON.stringify(args), status: 'completed' }];
/** The final message: the last tool output the model read, so tests see what the tool returned. */
const finish: Step = (request) => {
  const items = Array.isArray(request.input) ? request.input : [];
  const outputs = items.filter((i) => i.type === 'function_call_result');
  const last = outputs.at(-1) as { output?: { text?: string } | string } | undefined;
  const text = typeof last?.output === 'string' ? last.output : (last?.output?.text ?? 'none');
  return [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] }];
};

function runnerFor(model: Model) {
  return new Runner({ modelProvider: { getModel: () => model }, tracingDisabled: true });
}

const deployArgs = { env: 'production', version: 'v2.3' };

/** An agent whose `deploy` tool needs approval; `ran` records the calls that really ran. */
function deployAgent(extraTools: ReturnType<typeof askUserTool>[] = []) {
  const ran: unknown[] = [];
  const deploy = tool({
    name: 'deploy',
    description: 'Deploy a version',
    parameters: z.object({ env: z.string(), version: z.string() }),
    needsApproval: true,
    execute: async (args) => (ran.push(args), `deployed ${args.version} to ${args.env}`),
  });
  return { agent: new Agent({ name: 'Release', instructions: 'Ship it.', tools: [deploy, ...extraTools] }), ran };
}

async function approvalRun(
  decide: (person: Person) => Promise<unknown>,
  args: unknown = deployArgs,
  timeoutSeconds?: number,
  extra: Partial<ApproveWithPersonOptions> = {},
) {
  const chat = `oa-${++n}`;
  const person = new Person(channel, sdk, chat);
  const model = new ScriptedModel([call('deploy', args), finish]);
  const runner = runnerFor(model);
  const { agent, ran } = deployAgent();
  const decisions: ApprovalRecord[] = [];
  const handle = approveWithPerson(sdk, {
    runId: `oa-run-${n}`,
    to: { channel: 'test', chat },
    ...(timeoutSeconds ? { timeoutSeconds } : {}),
    run: (a, state) => runner.run(a, state),
    onDecision: (d) => decisions.push(d),
    ...extra,
  });
  const first = await runner.run(agent, 'Deploy v2.3');
  expect(first.interruptions.map((i) => i.name)).toEqual(['deploy']);
  const [final, asked] = await Promise.all([handle(agent, first), decide(person)]);
  return { final, ran, decisions, asked, model };
}

describe('approveWithPerson: needsApproval routed to a person', () => {
  it('Approve runs the tool and the run finishes with its output', async () => {
    const { final, ran, decisions, asked } = await approvalRun((p) => p.tap('Approve'));
    const request = asked as Awaited<ReturnType<Person['tap']>>;
    // An approval ask: the tool and its exact arguments, with their hash.
    expect(request.view.approval).toMatchObject({
      action: 'deploy',
      lines: ['env: production', 'version: v2.3'],
      hash: actionHash('deploy', deployArgs).slice(7, 15),
      decisions: ['approve', 'reject', 'request_changes'],
    });
    expect(request.view.buttons?.map((b) => b.label)).toEqual(['Approve', 'Reject…', 'Request changes…', 'Skip']);
    expect(ran).toEqual([deployArgs]);
    expect(final.finalOutput).toBe('deployed v2.3 to production');
    expect(final.interruptions).toEqual([]);
    expect(decisions).toEqual([{ tool: 'deploy', callId: 'call_1', decision: { kind: 'approved' } }]);
  });

  it('a rejection does not run the tool; the model reads the person’s reason', async () => {
    const { final, ran, decisions } = await approvalRun((p) => p.reply('reject: not during the freeze'));
    expect(ran).toEqual([]);
    expect(decisions[0]!.decision).toEqual({ kind: 'rejected', reason: 'not during the freeze' });
    expect(final.finalOutput).toBe(
      'The user rejected this deploy call: "not during the freeze". Do not retry it; continue without it or ask the user what to do instead.',
    );
  });

  it('requested changes are not an approval; the model reads what to change', async () => {
    const { final, ran, decisions } = await approvalRun((p) => p.reply('request changes: only after the 5pm freeze'));
    expect(ran).toEqual([]);
    expect(decisions[0]!.decision).toEqual({ kind: 'changes_requested', reason: 'only after the 5pm freeze' });
    expect(final.finalOutput).toBe(
      'The user did not approve this deploy call and asked for changes: "only after the 5pm freeze"',
    );
  });

  it('requestedBy: the person who asked for the run cannot approve it; someone else can', async () => {
    const { ran, decisions } = await approvalRun(
      async (p) => {
        const request = await p.nextAsk();
        const approve = request.view.buttons!.find((b) => b.label === 'Approve')!;
        const own = await channel.sink!.button({ channel: 'test', token: approve.token, user: p.user, chat: p.chat });
        expect(own).toMatchObject({ kind: 'invalid', hint: 'You requested this action: someone else must decide.' });
        const typed = await channel.sink!.text({
          channel: 'test',
          chat: p.chat,
          replyTo: (await sdk.get(request.askId)).deliveries[0]!.message!.messageId,
          privateChat: false,
          user: p.user,
          text: 'approve',
        });
        expect(typed.kind).not.toBe('recorded');
        expect((await sdk.get(request.askId)).status).toBe('pending');
        await sdk.answer(request.askId, { decision: 'approve', by: 'erin' });
      },
      deployArgs,
      undefined,
      { requestedBy: { channel: 'test', userId: 'u-person' } },
    );
    expect(ran).toEqual([deployArgs]);
    expect(decisions[0]!.decision).toEqual({ kind: 'approved' });
  });

  it('a typed "approve" approves', async () => {
    const { ran } = await approvalRun((p) => p.reply('approve'));
    expect(ran).toEqual([deployArgs]);
  });

  it('skip and timeout are rejections with a message saying why', async () => {
    const skipped = await approvalRun((p) => p.skip());
    expect(skipped.ran).toEqual([]);
    expect(skipped.final.finalOutput).toMatch(/did not answer \(skipped\), so deploy did not run/);

    const timedOut = await approvalRun((p) => p.nextAsk(), deployArgs, 1);
    expect(timedOut.ran).toEqual([]);
    expect(timedOut.final.finalOutput).toMatch(/did not answer \(timeout\)/);
  });

  it('two calls in one turn: one ask each, in order; only the approved one runs', async () => {
    const chat = `oa-${++n}`;
    const person = new Person(channel, sdk, chat);
    const twoCalls: Step = () => [
      ...call('deploy', { env: 'staging', version: 'v1' }, 'call_a')({} as ModelRequest),
      ...call('deploy', { env: 'production', version: 'v1' }, 'call_b')({} as ModelRequest),
    ];
    const runner = runnerFor(new ScriptedModel([twoCalls, finish]));
    const { agent, ran } = deployAgent();
    const handle = approveWithPerson(sdk, {
      runId: `oa-run-${n}`,
      to: { channel: 'test', chat },
      run: (a, state) => runner.run(a, state),
    });
    const first = await runner.run(agent, 'Deploy v1 everywhere');
    expect(first.interruptions).toHaveLength(2);
    const [, staging, production] = await Promise.all([
      handle(agent, first),
      person.tap('Approve'),
      person.reply('reject: not production'),
    ]);
    expect(staging.view.approval?.lines).toContain('env: staging');
    expect(production.view.approval?.lines).toContain('env: production');
    expect(ran).toEqual([{ env: 'staging', version: 'v1' }]);
    // Each approval was its own ask on the run, never superseding the other.
    const { history } = await sdk.run(`oa-run-${n}`);
    expect(history.map((a) => a.result?.status)).toEqual(['answered', 'answered']);
  });

  it('a restarted handler on the same saved state finds the same ask instead of asking again', async () => {
    const chat = `oa-${++n}`;
    const person = new Person(channel, sdk, chat);
    const runner = runnerFor(new ScriptedModel([call('deploy', deployArgs, 'call_saved'), finish, finish]));
    const { agent, ran } = deployAgent();
    const opts = {
      runId: `oa-run-${n}`,
      to: { channel: 'test', chat },
      run: (a: Agent<any, any>, state: RunState<any, any>) => runner.run(a, state),
    };
    const first = await runner.run(agent, 'Deploy v2.3');
    const saved = first.state.toString();
    await Promise.all([approveWithPerson(sdk, opts)(agent, first), person.tap('Approve')]);
    const deliveries = channel.delivered.length;

    // The process died before recording that it resumed: a new one loads the saved state.
    const state = (await RunState.fromString(agent, saved)) as RunState<unknown, Agent<any, any>>;
    const restored = new RunResult(state);
    expect(restored.interruptions).toHaveLength(1);
    const again = await approveWithPerson(sdk, opts)(agent, restored);
    expect(again.finalOutput).toBe('deployed v2.3 to production');
    expect(channel.delivered.length).toBe(deliveries);
    expect((await sdk.run(opts.runId)).history).toHaveLength(1);
    expect(ran).toHaveLength(2); // the restored state had not run it yet: the SDK runs it once more
  });

  it('hostile arguments reach the person whole, bound to their hash; the reject text is the model’s', async () => {
    const hostile = { env: 'prod\u0000\u202e\u200b\nrm -rf /', note: 'x'.repeat(2000) };
    const { asked, ran } = await approvalRun((p) => p.reply('reject: no'), hostile);
    const view = (asked as Awaited<ReturnType<Person['tap']>>).view;
    expect(view.approval?.action).toBe('deploy');
    expect(view.approval?.hash).toBe(actionHash('deploy', hostile).slice(7, 15));
    expect(ran).toEqual([]);
  });

  // KNOWN GAP (core, issue 36): core/approval's view puts argument values into the chat text as they
  // are, NUL, RLO and zero-width characters included (the old one-line question stripped them). The
  // arguments must not be changed (their hash binds the decision), so the view must escape them.
  // Core shows hidden characters as \u escapes (the hash still covers the arguments as sent).
  it('what the chat shows carries no control or invisible characters', async () => {
    const hostile = { env: 'prod\u0000\u202e\u200b\nrm -rf /' };
    const { asked } = await approvalRun((p) => p.reply('reject: no'), hostile);
    const question = (asked as Awaited<ReturnType<Person['tap']>>).view.questions[0]!.question;
    expect(question).not.toMatch(/[\u0000\u202e\u200b]/);
  });
});

describe('askUserTool: a tool the model calls to ask a person', () => {
  /** Every field of a question null, as a strict schema makes the model send them. */
  const unset = {
    kind: null,
    options: null,
    multiSelect: null,
    minLength: null,
    maxLength: null,
    pattern: null,
    min: null,
    max: null,
    integer: null,
    unit: null,
  };
  const args = {
    questions: [
      {
        ...unset,
        id: 'window',
        header: 'Deploy',
        question: 'When should I deploy?',
        options: [
          { label: 'Tonight (Recommended)', description: 'low traffic' },
          { label: 'Now', description: null },
        ],
      },
    ],
    timeoutSeconds: null,
  };

  async function askRun(modelArgs: unknown, person?: (p: Person) => Promise<unknown>, signal?: AbortSignal) {
    const chat = `oa-ask-${++n}`;
    const model = new ScriptedModel([call('ask_user', modelArgs, `call_ask_${n}`), finish]);
    const agent = new Agent({
      name: 'Asker',
      instructions: 'Ask first.',
      tools: [askUserTool(sdk, { runId: `oa-ask-run-${n}`, to: { channel: 'test', chat } })],
    });
    const running = runnerFor(model).run(agent, 'Deploy when the user wants', signal ? { signal } : {});
    const [result] = await Promise.all([running, person?.(new Person(channel, sdk, chat))]);
    return { result, model, runId: `oa-ask-run-${n}` };
  }

  it('the model gets the answer as JSON; the tool is offered with a strict JSON schema', async () => {
    const { result, model } = await askRun(args, (p) => p.tap('Now'));
    expect(JSON.parse(result.finalOutput!)).toEqual({
      status: 'answered',
      answers: { window: ['Now'] },
      values: { window: ['Now'] },
    });
    const offered = model.requests[0]!.tools.find((t) => t.name === 'ask_user') as {
      strict?: boolean;
      parameters: unknown;
    };
    expect(offered.strict).toBe(true);
    expect(JSON.stringify(offered.parameters)).toContain('"multiSelect"');
  });

  it('typed questions: kind and constraints reach askgate; the model reads values with JSON types', async () => {
    const typed = {
      questions: [
        {
          ...unset,
          id: 'replicas',
          header: 'Scale',
          question: 'How many replicas?',
          kind: 'number',
          min: '1',
          max: '10',
          integer: true,
        },
        { ...unset, id: 'day', header: 'Day', question: 'Which day?', kind: 'date', min: '2026-12-01' },
      ],
      timeoutSeconds: null,
    };
    const { result } = await askRun(typed, async (p) => {
      const asked = await p.nextAsk();
      expect((await sdk.get(asked.askId)).questions).toEqual([
        {
          id: 'replicas',
          header: 'Scale',
          question: 'How many replicas?',
          kind: 'number',
          min: 1,
          max: 10,
          integer: true,
        },
        { id: 'day', header: 'Day', question: 'Which day?', kind: 'date', min: '2026-12-01' },
      ]);
      await sdk.answer(asked.askId, { values: { replicas: 4, day: '2026-12-08' } });
    });
    expect(JSON.parse(result.finalOutput!)).toEqual({
      status: 'answered',
      answers: { replicas: ['4'], day: ['2026-12-08'] },
      values: { replicas: 4, day: '2026-12-08' },
    });
  });

  it('a field of another kind comes back to the model as text naming it; nothing is asked', async () => {
    const before = channel.delivered.length;
    const bad = {
      questions: [{ ...unset, id: 'n', header: 'N', question: 'How many?', kind: 'number', min: 'ten' }],
      timeoutSeconds: null,
    };
    const { result } = await askRun(bad);
    expect(result.finalOutput).toContain('Invalid ask_user arguments: questions.0.min: must be a number');
    expect(channel.delivered.length).toBe(before);
  });

  it('a free-text answer passes through as the person wrote it', async () => {
    const { result } = await askRun(args, (p) => p.reply('next Tuesday, after the demo'));
    expect(JSON.parse(result.finalOutput!)).toMatchObject({ answers: { window: ['next Tuesday, after the demo'] } });
  });

  it('invalid arguments come back to the model as text naming the field; nothing is asked', async () => {
    const before = channel.delivered.length;
    const bad = {
      ...args,
      questions: [
        {
          ...args.questions[0]!,
          options: [
            { label: 'Other', description: null },
            { label: 'Now', description: null },
          ],
        },
      ],
    };
    const { result } = await askRun(bad);
    expect(result.finalOutput).toMatch(/^Invalid ask_user arguments: questions\.0\.options\.0\.label: /);
    expect(channel.delivered.length).toBe(before);
  });

  it('aborting the run cancels the open ask', async () => {
    const controller = new AbortController();
    const outcome = askRun(
      args,
      async (p) => {
        await p.nextAsk();
        controller.abort();
      },
      controller.signal,
    );
    await expect(outcome).rejects.toThrow();
    const runId = `oa-ask-run-${n}`;
    const { history } = await sdk.run(runId);
    const view = await sdk.get(history[0]!.id);
    expect(view.result).toMatchObject({ status: 'no_answer', reason: 'cancelled' });
  });
});
