import { describe, expect, it } from 'vitest';
import { generateText, stepCountIs, tool, type ToolSet } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { AskgateClient } from '../../src/client/index.js';
import { guardAiTool, guardAiTools } from '../../src/guard/ai-sdk.js';
import type { GuardDecision, ToolGuard } from '../../src/guard/types.js';
import { guardedRelease } from '../../examples/guard/ai-sdk.js';
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

// askgate/guard on the Vercel AI SDK's own tool loop (generateText with stopWhen) with a scripted
// MockLanguageModelV4 (ai/test): a real askgate on a real Redis; the real createToolGuard follows
// the run's event stream. Every `ship` call is a side effect, counted: none may happen early.

let sdk: AskgateClient;
let n = 0;
useGuardWorld((client) => (sdk = client));

type Call = [name: string, args: unknown];
// The provider spec's types through the mock (`@ai-sdk/provider` is ai's own dependency, not ours).
type LanguageModelV4CallOptions = Parameters<MockLanguageModelV4['doGenerate']>[0];
type LanguageModelV4GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** The tool results of the last tool message of the prompt, as the model reads them. */
function lastResults(options: LanguageModelV4CallOptions): unknown[] {
  const last = options.prompt.at(-1);
  if (last?.role !== 'tool') return [];
  return last.content.flatMap((p) => (p.type === 'tool-result' ? [p.output] : []));
}

/** A model that makes the scripted tool calls, one turn per step, then answers with what it read. */
function scriptedModel(...turns: Call[][]) {
  let step = 0;
  return new MockLanguageModelV4({
    doGenerate: async (options): Promise<LanguageModelV4GenerateResult> => {
      const turn = turns[step++];
      if (turn)
        return {
          content: turn.map(([toolName, args], i) => ({
            type: 'tool-call',
            toolCallId: `call_${step}_${i}`,
            toolName,
            input: JSON.stringify(args),
          })),
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        };
      return {
        content: [{ type: 'text', text: JSON.stringify(lastResults(options)) }],
        finishReason: { unified: 'stop', raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

const text = (value: string) => ({ type: 'text', value });

/** A counting side effect: every call is an action taken. */
function shipper() {
  const shipped: string[] = [];
  return { shipped, ship: async (version: string) => (shipped.push(version), `deployed ${version}`) };
}

describe('guardAiTools in generateText (the docs example, examples/guard/ai-sdk.ts)', () => {
  it('while an ask is open deploy does not run and the model reads why; get_status runs; after the answer deploy runs once', async () => {
    const runId = `ai-guard-${++n}`;
    const ask = await openQuestion(sdk, runId);
    const { shipped, ship } = shipper();
    const { run, guard } = guardedRelease(sdk, runId, ship);
    kept(guard);

    const model = scriptedModel([
      ['get_status', {}],
      ['deploy', { version: 'v2.3' }],
    ]);
    const blocked = await run(model, 'Ship v2.3');
    expect(shipped).toEqual([]); // premature actions: 0
    expect(JSON.parse(blocked.text)).toEqual([text('production runs v2.2'), text(pendingMessage('deploy', ask.id))]);
    expect(await guardBlockedTools(sdk, ask.id)).toEqual(['deploy']);

    await sdk.answer(ask.id, { answers: { window: ['Yes'] } });
    await untilReleased(guard, 'deploy');
    const released = await run(scriptedModel([['deploy', { version: 'v2.3' }]]), 'Ship v2.3');
    expect(shipped).toEqual(['v2.3']);
    expect(JSON.parse(released.text)).toEqual([text('deployed v2.3')]);
  });

  it('an approval holds the call: reject never runs it, approve runs it once', async () => {
    for (const decision of ['reject', 'approve'] as const) {
      const runId = `ai-guard-approval-${++n}`;
      const approval = await openApproval(sdk, runId, 'deploy', { version: 'v2.3' });
      const guard = testGuard(sdk, runId, { hold: true });
      const { shipped, ship } = shipper();
      const tools = guardAiTools(
        {
          deploy: tool({
            description: 'Deploy a version to production',
            inputSchema: z.object({ version: z.string() }),
            execute: ({ version }) => ship(version),
          }),
        },
        guard,
      );
      const running = generateText({
        model: scriptedModel([['deploy', { version: 'v2.3' }]]),
        tools,
        stopWhen: stepCountIs(5),
        prompt: 'Ship v2.3',
      });
      await checksStarted(guard, 1);
      await new Promise((r) => setTimeout(r, 100));
      expect(shipped).toEqual([]);
      await sdk.answer(approval.id, decision === 'reject' ? { decision, reason: 'freeze' } : { decision });
      const result = JSON.parse((await running).text);
      expect([shipped, result]).toEqual(
        decision === 'reject' ? [[], [text(endedBlock(guard, approval.id))]] : [['v2.3'], [text('deployed v2.3')]],
      );
    }
  });
});

describe('the wrapped tool keeps the AI SDK’s behaviour', () => {
  const fixed = (decision: GuardDecision): ToolGuard & { names: string[] } => {
    const names: string[] = [];
    return { names, check: async (name) => (names.push(name), decision), close() {} };
  };
  const blocked: GuardDecision = { run: false, reason: 'ask_pending', message: 'blocked: wait' };
  const run = (tools: ToolSet, turn: Call[], abortSignal?: AbortSignal) =>
    generateText({
      model: scriptedModel(turn),
      tools,
      stopWhen: stepCountIs(3),
      prompt: 'go',
      ...(abortSignal ? { abortSignal } : {}),
    });

  it('the key is the name the guard is asked; every field but execute is the tool’s own', async () => {
    const ran: unknown[] = [];
    const deploy = tool({
      description: 'Deploy',
      inputSchema: z.object({ version: z.string() }),
      execute: async (input, options) => (ran.push([input, options.toolCallId]), { ok: input.version }),
    });
    const guard = fixed({ run: true });
    const tools = guardAiTools({ ship_it: deploy }, guard);
    expect(Object.keys(tools)).toEqual(['ship_it']);
    expect([tools.ship_it.description, tools.ship_it.inputSchema]).toEqual([deploy.description, deploy.inputSchema]);
    const result = await run(tools, [['ship_it', { version: 'v9' }]]);
    expect(guard.names).toEqual(['ship_it']);
    expect(ran).toEqual([[{ version: 'v9' }, 'call_1_0']]);
    expect(JSON.parse(result.text)).toEqual([{ type: 'json', value: { ok: 'v9' } }]); // unchanged result
  });

  it('a tool without execute comes back as it is', () => {
    const clientSide = tool({ description: 'Asked in the UI', inputSchema: z.object({}), outputSchema: z.string() });
    expect(guardAiTool('confirm', clientSide, fixed(blocked))).toBe(clientSide);
  });

  it('a streaming tool stays one: run streams its outputs, blocked yields the message', async () => {
    const ran: string[] = [];
    const progress = tool({
      description: 'Deploy with progress',
      inputSchema: z.object({ version: z.string() }),
      async *execute({ version }) {
        ran.push(version);
        yield 'starting';
        yield `deployed ${version}`;
      },
    });
    const ok = await run(guardAiTools({ progress }, fixed({ run: true })), [['progress', { version: 'v1' }]]);
    expect(JSON.parse(ok.text)).toEqual([text('deployed v1')]);
    const no = await run(guardAiTools({ progress }, fixed(blocked)), [['progress', { version: 'v2' }]]);
    expect(JSON.parse(no.text)).toEqual([text('blocked: wait')]);
    expect(ran).toEqual(['v1']);
  });

  it('toModelOutput maps a run’s output; a blocked call reaches the model as its text', async () => {
    const mapped = tool({
      description: 'Deploy',
      inputSchema: z.object({ version: z.string() }),
      execute: async ({ version }) => ({ version, url: `https://x/${version}` }),
      toModelOutput: ({ output }) => ({ type: 'text', value: `live at ${output.url}` }),
    });
    const ok = await run(guardAiTools({ mapped }, fixed({ run: true })), [['mapped', { version: 'v1' }]]);
    expect(JSON.parse(ok.text)).toEqual([text('live at https://x/v1')]);
    const no = await run(guardAiTools({ mapped }, fixed(blocked)), [['mapped', { version: 'v1' }]]);
    expect(JSON.parse(no.text)).toEqual([text('blocked: wait')]);
  });

  it('invalid input is refused by the SDK before the guard is asked; nothing runs', async () => {
    const ran: unknown[] = [];
    const deploy = tool({
      description: 'Deploy',
      inputSchema: z.object({ version: z.string() }),
      execute: async (input) => ran.push(input),
    });
    const guard = fixed({ run: true });
    const result = await run(guardAiTools({ deploy }, guard), [['deploy', { version: 3 }]]);
    expect(ran).toEqual([]);
    expect(guard.names).toEqual([]);
    expect(JSON.parse(result.text)[0].type).toBe('error-text');
  });

  it('a guard that throws never runs the tool (the model reads a tool error)', async () => {
    const ran: unknown[] = [];
    const deploy = tool({
      description: 'Deploy',
      inputSchema: z.object({ version: z.string() }),
      execute: async (input) => ran.push(input),
    });
    const failing: ToolGuard = { check: () => Promise.reject(new Error('guard broke')), close() {} };
    const result = await run(guardAiTools({ deploy }, failing), [['deploy', { version: 'v4' }]]);
    expect(ran).toEqual([]);
    expect(JSON.parse(result.text)).toEqual([{ type: 'error-text', value: 'Error: guard broke' }]);
  });

  it('a call held while the run is aborted never runs late', async () => {
    const ran: unknown[] = [];
    const deploy = tool({
      description: 'Deploy',
      inputSchema: z.object({ version: z.string() }),
      execute: async (input) => ran.push(input),
    });
    let release!: (d: GuardDecision) => void;
    const held: ToolGuard = { check: () => new Promise((r) => (release = r)), close() {} };
    const controller = new AbortController();
    const running = run(guardAiTools({ deploy }, held), [['deploy', { version: 'v5' }]], controller.signal);
    await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    release({ run: true });
    await expect(running).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 20));
    expect(ran).toEqual([]);
  });
});
