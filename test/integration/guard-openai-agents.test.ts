import { describe, expect, it } from 'vitest';
import {
  Agent,
  Runner,
  Usage,
  tool,
  type AgentOutputItem,
  type FunctionTool,
  type Model,
  type ModelRequest,
  type ModelResponse,
} from '@openai/agents';
import { z } from 'zod';
import { AskgateClient } from '../../src/client/index.js';
import { guardOpenAITool, guardOpenAITools } from '../../src/guard/openai-agents.js';
import type { GuardDecision, ToolGuard } from '../../src/guard/types.js';
import { guardedReleaseAgent } from '../../examples/guard/openai-agents.js';
import { pendingMessage } from '../../src/guard/messages.js';
import {
  checksStarted,
  useGuardWorld,
  endedBlock,
  guardBlockedTools,
  kept,
  openApproval,
  openQuestion,
  testGuard,
  untilReleased,
} from './guard-harness.js';

// askgate/guard on the OpenAI Agents SDK's own loop (Runner.run, function tools) with a scripted
// Model: a real askgate on a real Redis; the real createToolGuard follows the run's event stream.
// Premature actions are counted: every `ship` call is a side effect, and none may happen early.

let sdk: AskgateClient;
let n = 0;
useGuardWorld((client) => (sdk = client));

type Step = (request: ModelRequest) => AgentOutputItem[];

/** A Model that answers each request with the next scripted step. */
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

const calls =
  (...list: [name: string, args: unknown][]): Step =>
  () =>
    list.map(([name, args], i) => ({
      type: 'function_call' as const,
      callId: `call_${i}`,
      name,
      arguments: JSON.stringify(args),
      status: 'completed' as const,
    }));
/** The tool outputs the model read, by tool call id, ending the run with them as its output. */
const finish: Step = (request) => {
  const items = Array.isArray(request.input) ? request.input : [];
  const outputs = items
    .filter((i) => i.type === 'function_call_result')
    .map((i) => {
      const out = (i as { output?: { text?: string } | string }).output;
      return typeof out === 'string' ? out : (out?.text ?? '');
    });
  return [
    {
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: JSON.stringify(outputs) }],
    },
  ];
};
const runnerFor = (steps: Step[]) =>
  new Runner({ modelProvider: { getModel: () => new ScriptedModel(steps) }, tracingDisabled: true });

/** A counting side effect: every call is an action taken. */
function shipper() {
  const shipped: string[] = [];
  return { shipped, ship: async (version: string) => (shipped.push(version), `deployed ${version}`) };
}

describe('guardOpenAITools in Runner.run (the docs example, examples/guard/openai-agents.ts)', () => {
  it('while an ask is open deploy does not run and the model reads why; get_status runs; after the answer deploy runs once', async () => {
    const runId = `oa-guard-${++n}`;
    const ask = await openQuestion(sdk, runId);
    const { shipped, ship } = shipper();
    const { agent, guard } = guardedReleaseAgent(sdk, runId, ship);
    kept(guard);

    const blocked = await runnerFor([calls(['get_status', {}], ['deploy', { version: 'v2.3' }]), finish]).run(
      agent,
      'Ship v2.3',
    );
    expect(shipped).toEqual([]); // premature actions: 0
    expect(JSON.parse(blocked.finalOutput!)).toEqual(['production runs v2.2', pendingMessage('deploy', ask.id)]);
    expect(await guardBlockedTools(sdk, ask.id)).toEqual(['deploy']); // noted on the ask, get_status not

    await sdk.answer(ask.id, { answers: { window: ['Yes'] } });
    await untilReleased(guard, 'deploy');
    const released = await runnerFor([calls(['deploy', { version: 'v2.3' }]), finish]).run(agent, 'Ship v2.3');
    expect(shipped).toEqual(['v2.3']);
    expect(JSON.parse(released.finalOutput!)).toEqual(['deployed v2.3']);
  });

  it('a run with no open ask runs every tool', async () => {
    const { shipped, ship } = shipper();
    const { agent, guard } = guardedReleaseAgent(sdk, `oa-guard-none-${++n}`, ship);
    kept(guard);
    await runnerFor([calls(['deploy', { version: 'v1' }]), finish]).run(agent, 'Ship v1');
    expect(shipped).toEqual(['v1']);
  });
});

describe('an approval decides what a held call does', () => {
  async function heldRun(decision: 'approve' | 'reject') {
    const runId = `oa-guard-approval-${++n}`;
    const approval = await openApproval(sdk, runId, 'deploy', { version: 'v2.3' });
    const guard = testGuard(sdk, runId, { hold: true });
    const { shipped, ship } = shipper();
    const deploy = tool({
      name: 'deploy',
      description: 'Deploy a version to production',
      parameters: z.object({ version: z.string() }),
      execute: ({ version }) => ship(version),
    });
    const agent = new Agent({ name: 'Release', tools: guardOpenAITools([deploy], guard) });
    const running = runnerFor([calls(['deploy', { version: 'v2.3' }]), finish]).run(agent, 'Ship v2.3');
    await checksStarted(guard, 1);
    await new Promise((r) => setTimeout(r, 100)); // the held call waits: nothing ran yet
    expect(shipped).toEqual([]);
    const answered = await sdk.answer(
      approval.id,
      decision === 'reject' ? { decision, reason: 'not today' } : { decision },
    );
    expect(answered.status).toBe('answered');
    const result = await running;
    return { shipped, output: JSON.parse(result.finalOutput!) as string[], guard, approval };
  }

  it('reject: the held call never runs; the model reads the decision', async () => {
    const { shipped, output, guard, approval } = await heldRun('reject');
    expect(shipped).toEqual([]);
    expect(output).toEqual([endedBlock(guard, approval.id)]);
  });

  it('approve: the held call runs once, with the arguments the model gave', async () => {
    const { shipped, output } = await heldRun('approve');
    expect(shipped).toEqual(['v2.3']);
    expect(output).toEqual(['deployed v2.3']);
  });
});

describe('the wrapped tool keeps the SDK’s behaviour', () => {
  const fixed = (decision: GuardDecision): ToolGuard & { names: string[] } => {
    const names: string[] = [];
    return { names, check: async (name) => (names.push(name), decision), close() {} };
  };
  const blockedDecision: GuardDecision = { run: false, reason: 'ask_pending', message: 'blocked: wait' };

  function deployTool(opts: { needsApproval?: boolean; timeoutMs?: number } = {}) {
    const ran: unknown[] = [];
    const deploy = tool({
      name: 'deploy',
      description: 'Deploy a version',
      parameters: z.object({ version: z.string() }),
      ...opts,
      execute: async (args, context) => (ran.push({ args, context: context?.context }), `deployed ${args.version}`),
    });
    return { deploy, ran };
  }

  it('every field but invoke is the original’s; other tool kinds come back as they are', () => {
    const { deploy } = deployTool({ needsApproval: true, timeoutMs: 5000 });
    const guarded = guardOpenAITool(deploy, fixed({ run: true })) as unknown as FunctionTool;
    for (const key of Reflect.ownKeys(deploy).filter((k) => k !== 'invoke'))
      expect([key, guarded[key as keyof FunctionTool]]).toEqual([key, deploy[key as keyof FunctionTool]]);
    expect(guarded.invoke).not.toBe(deploy.invoke);
    const hosted = { type: 'hosted_tool', name: 'web_search', providerData: {} } as const;
    expect(guardOpenAITools([hosted], fixed(blockedDecision))[0]).toBe(hosted);
  });

  it('run passes the same run context and input; the result is unchanged', async () => {
    const { deploy, ran } = deployTool();
    const guard = fixed({ run: true });
    const agent = new Agent<{ team: string }>({ name: 'R', tools: guardOpenAITools([deploy], guard) });
    const result = await runnerFor([calls(['deploy', { version: 'v9' }]), finish]).run(agent, 'go', {
      context: { team: 'core' },
    });
    expect(ran).toEqual([{ args: { version: 'v9' }, context: { team: 'core' } }]);
    expect(JSON.parse(result.finalOutput!)).toEqual(['deployed v9']);
    expect(guard.names).toEqual(['deploy']);
  });

  it('needsApproval still interrupts first; the guard decides when the approved call would run', async () => {
    const { deploy, ran } = deployTool({ needsApproval: true });
    const guard = fixed(blockedDecision);
    const agent = new Agent({ name: 'R', tools: guardOpenAITools([deploy], guard) });
    const runner = runnerFor([calls(['deploy', { version: 'v3' }]), finish]);
    const first = await runner.run(agent, 'go');
    expect(first.interruptions.map((i) => i.name)).toEqual(['deploy']);
    expect(guard.names).toEqual([]); // not asked before the SDK's approval
    first.state.approve(first.interruptions[0]!);
    const resumed = await runner.run(agent, first.state);
    expect(ran).toEqual([]);
    expect(JSON.parse(resumed.finalOutput!)).toEqual(['blocked: wait']);
  });

  it('invalid input is refused as without the guard (the model reads the SDK’s error)', async () => {
    const { deploy, ran } = deployTool();
    const agent = new Agent({ name: 'R', tools: guardOpenAITools([deploy], fixed({ run: true })) });
    const result = await runnerFor([calls(['deploy', { version: 3 }]), finish]).run(agent, 'go');
    expect(ran).toEqual([]);
    expect(JSON.parse(result.finalOutput!)[0]).toMatch(/error/i);
  });

  it('a guard that throws never runs the tool: the run fails with its error (as any failing invoke)', async () => {
    const { deploy, ran } = deployTool();
    const failing: ToolGuard = { check: () => Promise.reject(new Error('guard broke')), close() {} };
    const agent = new Agent({ name: 'R', tools: guardOpenAITools([deploy], failing) });
    await expect(runnerFor([calls(['deploy', { version: 'v4' }]), finish]).run(agent, 'go')).rejects.toThrow(
      /guard broke/,
    );
    expect(ran).toEqual([]);
  });

  it('a call held past the SDK’s timeoutMs never runs late', async () => {
    const { deploy, ran } = deployTool({ timeoutMs: 100 });
    let release!: (d: GuardDecision) => void;
    const held: ToolGuard = { check: () => new Promise((r) => (release = r)), close() {} };
    const agent = new Agent({ name: 'R', tools: guardOpenAITools([deploy], held) });
    const result = await runnerFor([calls(['deploy', { version: 'v5' }]), finish]).run(agent, 'go');
    expect(JSON.parse(result.finalOutput!)[0]).toMatch(/timed out/i);
    release({ run: true });
    await new Promise((r) => setTimeout(r, 50));
    expect(ran).toEqual([]);
  });
});
