import { describe, expect, it } from 'vitest';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { StructuredTool, tool } from '@langchain/core/tools';
import { Command } from '@langchain/langgraph';
import { ToolNode, createReactAgent } from '@langchain/langgraph/prebuilt';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { AskgateClient } from '../../src/client/index.js';
import { guardLangChainTool, guardLangChainTools } from '../../src/guard/langgraph.js';
import type { GuardDecision, ToolGuard } from '../../src/guard/types.js';
import { guardedReleaseGraph } from '../../examples/guard/langgraph.js';
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

// askgate/guard on LangGraph's own loop (createReactAgent: a model node and a ToolNode) with a
// scripted chat model: a real askgate on a real Redis; the real createToolGuard follows the run's
// event stream. Every `ship` call is a side effect, counted: none may happen early.

let sdk: AskgateClient;
let n = 0;
useGuardWorld((client) => (sdk = client));

type Call = [name: string, args: Record<string, unknown>];

/**
 * A chat model that answers each call with the next scripted turn: tool calls, or (`'final'`, or
 * when the script is over) the tool results it read, as JSON.
 */
class ScriptedChatModel extends BaseChatModel {
  private readonly turns: (Call[] | 'final')[];
  private step = 0;
  constructor(...turns: (Call[] | 'final')[]) {
    super({});
    this.turns = turns;
  }
  _llmType() {
    return 'scripted';
  }
  bindTools() {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const turn = this.turns.shift();
    const step = this.step++;
    const message =
      turn && turn !== 'final'
        ? new AIMessage({
            content: '',
            tool_calls: turn.map(([name, args], i) => ({
              id: `call_${step}_${i}`,
              name,
              args,
              type: 'tool_call',
            })),
          })
        : new AIMessage(JSON.stringify(lastResults(messages)));
    return { generations: [{ text: '', message }] };
  }
}

/** The tool messages after the last AI message with tool calls: what the model read. */
function lastResults(messages: BaseMessage[]): string[] {
  const results: string[] = [];
  for (const m of [...messages].reverse()) {
    if (!ToolMessage.isInstance(m)) break;
    results.unshift(String(m.content));
  }
  return results;
}

const finalOf = (state: { messages: BaseMessage[] }) => JSON.parse(String(state.messages.at(-1)!.content)) as string[];

/** A counting side effect: every call is an action taken. */
function shipper() {
  const shipped: string[] = [];
  return { shipped, ship: async (version: string) => (shipped.push(version), `deployed ${version}`) };
}
const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

describe('guardLangChainTools in createReactAgent (the docs example, examples/guard/langgraph.ts)', () => {
  it('while an ask is open deploy does not run and the model reads why; get_status runs; after the answer deploy runs once', async () => {
    const runId = `lg-guard-${++n}`;
    const open = await openQuestion(sdk, runId);
    const { shipped, ship } = shipper();
    const llm = new ScriptedChatModel(
      [
        ['get_status', {}],
        ['deploy', { version: 'v2.3' }],
      ],
      'final',
      [['deploy', { version: 'v2.3' }]],
      'final',
    );
    const { graph, guard } = guardedReleaseGraph(llm, sdk, runId, ship);
    kept(guard);
    const blocked = await graph.invoke(ask('Ship v2.3'));
    expect(shipped).toEqual([]); // premature actions: 0
    expect(finalOf(blocked)).toEqual(['production runs v2.2', pendingMessage('deploy', open.id)]);
    const toolMessages = blocked.messages.filter((m) => ToolMessage.isInstance(m)) as ToolMessage[];
    expect(toolMessages.map((m) => [m.name, m.status, m.tool_call_id])).toEqual([
      ['get_status', 'success', 'call_0_0'],
      ['deploy', 'success', 'call_0_1'],
    ]);
    expect(await guardBlockedTools(sdk, open.id)).toEqual(['deploy']);

    await sdk.answer(open.id, { answers: { window: ['Yes'] } });
    await untilReleased(guard, 'deploy');
    const released = await graph.invoke(ask('Ship v2.3'));
    expect(shipped).toEqual(['v2.3']);
    expect(finalOf(released)).toEqual(['deployed v2.3']);
  });

  it('an approval holds the call: reject never runs it, approve runs it once', async () => {
    for (const decision of ['reject', 'approve'] as const) {
      const runId = `lg-guard-approval-${++n}`;
      const approval = await openApproval(sdk, runId, 'deploy', { version: 'v2.3' });
      const guard = testGuard(sdk, runId, { hold: true });
      const { shipped, ship } = shipper();
      const deploy = tool(({ version }) => ship(version), {
        name: 'deploy',
        description: 'Deploy a version to production',
        schema: z.object({ version: z.string() }),
      });
      const graph = createReactAgent({
        llm: new ScriptedChatModel([['deploy', { version: 'v2.3' }]]),
        tools: guardLangChainTools([deploy], guard),
      });
      const running = graph.invoke(ask('Ship v2.3'));
      await checksStarted(guard, 1);
      await new Promise((r) => setTimeout(r, 100));
      expect(shipped).toEqual([]);
      await sdk.answer(approval.id, decision === 'reject' ? { decision, reason: 'freeze' } : { decision });
      const final = finalOf(await running);
      if (decision === 'reject') {
        expect(shipped).toEqual([]);
        expect(final).toEqual([endedBlock(guard, approval.id)]);
      } else {
        expect(shipped).toEqual(['v2.3']);
        expect(final).toEqual(['deployed v2.3']);
      }
    }
  });
});

describe('the same guarded tools in LangChain’s createAgent (its own ToolNode)', () => {
  it('blocked while the ask is open, run after the answer', async () => {
    const runId = `lg-guard-agent-${++n}`;
    const open = await openQuestion(sdk, runId);
    const guard = testGuard(sdk, runId);
    const shipped: string[] = [];
    const deploy = tool(async ({ version }) => (shipped.push(version), `deployed ${version}`), {
      name: 'deploy',
      description: 'Deploy a version',
      schema: z.object({ version: z.string() }),
    });
    const agentFor = (...turns: Call[][]) =>
      createAgent({ model: new ScriptedChatModel(...turns), tools: guardLangChainTools([deploy], guard) });
    const input = { messages: [{ role: 'user' as const, content: 'Ship v2.3' }] };
    const blocked = await agentFor([['deploy', { version: 'v2.3' }]]).invoke(input);
    expect(shipped).toEqual([]);
    expect(finalOf(blocked)).toEqual([pendingMessage('deploy', open.id)]);
    await sdk.answer(open.id, { answers: { window: ['No'] } });
    await untilReleased(guard, 'deploy');
    expect(finalOf(await agentFor([['deploy', { version: 'v2.3' }]]).invoke(input))).toEqual(['deployed v2.3']);
    expect(shipped).toEqual(['v2.3']);
  });
});

describe('the wrapped tool keeps LangChain’s behaviour', () => {
  const fixed = (decision: GuardDecision): ToolGuard & { names: string[] } => {
    const names: string[] = [];
    return { names, check: async (name) => (names.push(name), decision), close() {} };
  };
  const blocked: GuardDecision = { run: false, reason: 'ask_pending', message: 'blocked: wait' };
  const call = (name: string, args: Record<string, unknown>) => ({ id: 'c1', name, args, type: 'tool_call' as const });

  function deployTool(fields: { returnDirect?: boolean; responseFormat?: 'content' | 'content_and_artifact' } = {}) {
    const ran: unknown[] = [];
    const deploy = tool(
      async ({ version }, config) => {
        ran.push({ version, tag: config?.configurable?.tag });
        return fields.responseFormat === 'content_and_artifact'
          ? [`deployed ${version}`, { id: 7 }]
          : `deployed ${version}`;
      },
      { name: 'deploy', description: 'Deploy a version', schema: z.object({ version: z.string() }), ...fields },
    );
    return { deploy, ran };
  }

  it('name, description, schema, returnDirect and instanceof are the tool’s own', () => {
    const { deploy } = deployTool({ returnDirect: true });
    const guarded = guardLangChainTool(deploy, fixed(blocked));
    expect(guarded).toBeInstanceOf(StructuredTool);
    expect([guarded.name, guarded.description, guarded.schema, guarded.returnDirect]).toEqual([
      'deploy',
      'Deploy a version',
      deploy.schema,
      true,
    ]);
  });

  it('run: the same tool call and config reach the tool; its ToolMessage (with artifact) is unchanged', async () => {
    const { deploy, ran } = deployTool({ responseFormat: 'content_and_artifact' });
    const guarded = guardLangChainTool(deploy, fixed({ run: true }));
    const out = (await guarded.invoke(call('deploy', { version: 'v9' }), {
      configurable: { tag: 't1' },
    })) as ToolMessage;
    expect(ran).toEqual([{ version: 'v9', tag: 't1' }]);
    expect([out.content, out.artifact, out.tool_call_id, out.name]).toEqual(['deployed v9', { id: 7 }, 'c1', 'deploy']);
  });

  it('blocked: a ToolMessage with the message for a tool call, the text for plain input; the tool never runs', async () => {
    const { deploy, ran } = deployTool({ responseFormat: 'content_and_artifact' });
    const guarded = guardLangChainTool(deploy, fixed(blocked));
    const out = (await guarded.invoke(call('deploy', { version: 'v9' }))) as ToolMessage;
    expect(ToolMessage.isInstance(out)).toBe(true);
    expect([out.content, out.artifact, out.tool_call_id, out.name]).toEqual([
      'blocked: wait',
      undefined,
      'c1',
      'deploy',
    ]);
    expect(await guardLangChainTool(deployTool().deploy, fixed(blocked)).invoke({ version: 'v1' })).toBe(
      'blocked: wait',
    );
    expect(ran).toEqual([]);
  });

  it('a tool returning a Command still routes the graph when it runs', async () => {
    const goto = tool(async () => new Command({ update: { messages: [] } }), {
      name: 'handoff',
      description: 'Hand off',
      schema: z.object({}),
    });
    const node = new ToolNode(guardLangChainTools([goto], fixed({ run: true })));
    const out = await node.invoke({ messages: [new AIMessage({ content: '', tool_calls: [call('handoff', {})] })] });
    expect(out[0]).toBeInstanceOf(Command);
  });

  it('invalid input: ToolNode reports the schema error; a blocked call does not hide it; nothing runs', async () => {
    const { deploy, ran } = deployTool();
    for (const decision of [{ run: true } as const, blocked]) {
      const node = new ToolNode(guardLangChainTools([deploy], fixed(decision)));
      const out = await node.invoke({
        messages: [new AIMessage({ content: '', tool_calls: [call('deploy', { version: 3 })] })],
      });
      expect(out.messages[0].status).toBe('error');
      expect(String(out.messages[0].content)).toMatch(/did not match expected schema/);
    }
    expect(ran).toEqual([]);
  });

  it('a guard that throws never runs the tool (ToolNode reports the error to the model)', async () => {
    const { deploy, ran } = deployTool();
    const failing: ToolGuard = { check: () => Promise.reject(new Error('guard broke')), close() {} };
    const node = new ToolNode(guardLangChainTools([deploy], failing));
    const out = await node.invoke({
      messages: [new AIMessage({ content: '', tool_calls: [call('deploy', { version: 'v4' })] })],
    });
    expect([out.messages[0].status, String(out.messages[0].content)]).toEqual([
      'error',
      expect.stringMatching(/guard broke/),
    ]);
    expect(ran).toEqual([]);
  });

  it('a call held while the run is aborted never runs late', async () => {
    const { deploy, ran } = deployTool();
    let release!: (d: GuardDecision) => void;
    const held: ToolGuard = { check: () => new Promise((r) => (release = r)), close() {} };
    const controller = new AbortController();
    const node = new ToolNode(guardLangChainTools([deploy], held), { handleToolErrors: false });
    const running = node.invoke(
      { messages: [new AIMessage({ content: '', tool_calls: [call('deploy', { version: 'v5' })] })] },
      { signal: controller.signal },
    );
    await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    release({ run: true });
    await expect(running).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 20));
    expect(ran).toEqual([]);
  });
});
