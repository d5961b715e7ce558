import { AskgateApiError, type AskgateClient, type AskView } from '../../src/client/index.js';
import type { GuardDecision, ToolGuard } from '../../src/guard/types.js';

// TEST-ONLY stand-in for the run-state guard (`createToolGuard`, built on the `guard` branch): it
// reads the run's real state from a real askgate on every check (`GET /v1/runs/:runId`) instead of
// following its event stream. It exists so the framework adapters are tested against real state
// before the real guard lands; the adapters only see the ToolGuard contract.

/** A guard under test: every decision it made is kept, with how many checks began. */
export interface TestGuard extends ToolGuard {
  /** Every decision, in order, with the tool's name. */
  readonly decisions: { tool: string; decision: GuardDecision }[];
  /** How many checks have begun (a held one counts before it resolves). */
  readonly started: number;
  /** The blocked decisions of `tool`, in order. */
  blocked(tool: string): Extract<GuardDecision, { run: false }>[];
  /** Resolves once the guard would let `tool` run (the answer reached it); not kept in `decisions`. */
  released(tool: string): Promise<void>;
}

/** The guard the framework tests run with (see {@link standInGuard}), its decisions recorded. */
export function testGuard(
  client: AskgateClient,
  runId: string,
  opts: { allow?: readonly string[]; hold?: boolean } = {},
): TestGuard {
  return recording(standInGuard(client, runId, opts));
}

function recording(inner: ToolGuard): TestGuard {
  const decisions: TestGuard['decisions'] = [];
  let started = 0;
  return {
    decisions,
    get started() {
      return started;
    },
    blocked: (tool) => decisions.flatMap((d) => (d.tool === tool && !d.decision.run ? [d.decision] : [])),
    async released(tool) {
      for (let i = 0; i < 200; i++) {
        if ((await inner.check(tool)).run) return;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`${tool} stayed blocked`);
    },
    async check(tool) {
      started++;
      const decision = await inner.check(tool);
      decisions.push({ tool, decision });
      return decision;
    },
    close: () => inner.close(),
  };
}

/**
 * TEST-ONLY: while the run has a pending ask, tools not in `allow` are blocked. With `hold`, a call
 * of the tool an open approval names waits for that approval: approve runs it, any other end
 * blocks it.
 */
export function standInGuard(
  client: AskgateClient,
  runId: string,
  opts: { allow?: readonly string[]; hold?: boolean } = {},
): ToolGuard {
  return {
    async check(tool): Promise<GuardDecision> {
      let current: AskView | null;
      try {
        current = (await client.run(runId)).current;
      } catch (error) {
        if (error instanceof AskgateApiError && error.status === 404) return { run: true }; // no ask yet
        return { run: false, reason: 'state_unknown', message: `${tool} did not run: askgate is unreachable.` };
      }
      if (!current || current.status !== 'pending' || opts.allow?.includes(tool)) return { run: true };
      if (opts.hold && current.approval?.action === tool) {
        let ask = current;
        while (ask.status === 'pending') ask = await client.get(ask.id, { wait: 10 });
        if (ask.result?.status === 'answered' && ask.result.decision === 'approve') return { run: true };
        const how = ask.result?.status === 'answered' ? `the person decided ${ask.result.decision}` : 'no answer came';
        return { run: false, reason: 'ask_ended', askId: ask.id, message: `${tool} did not run: ${how}.` };
      }
      return {
        run: false,
        reason: 'ask_pending',
        askId: current.id,
        message: `${tool} did not run: the run is waiting for a person's answer (ask ${current.id}).`,
      };
    },
    close() {},
  };
}

/** Opens a question on the run (the run is now waiting for a person). */
export function openQuestion(client: AskgateClient, runId: string): Promise<AskView> {
  return client.create({
    runId,
    questions: [
      { id: 'window', header: 'Deploy', question: 'Deploy v2.3 now?', options: [{ label: 'Yes' }, { label: 'No' }] },
    ],
  });
}

/** Opens an approval of `action` with `args` on the run. */
export function openApproval(
  client: AskgateClient,
  runId: string,
  action: string,
  args: Record<string, unknown>,
): Promise<AskView> {
  return client.create({ runId, approval: { action, arguments: args } });
}

/** Resolves once `guard` has started `count` checks (a held check has begun waiting). */
export async function checksStarted(guard: Pick<TestGuard, 'started'>, count: number): Promise<void> {
  for (let i = 0; i < 500 && guard.started < count; i++) await new Promise((r) => setTimeout(r, 10));
  if (guard.started < count) throw new Error(`only ${guard.started} of ${count} checks started`);
}

/** The message of the one blocked `deploy` call, checked to be an open ask's block naming `askId`. */
export function pendingBlock(guard: TestGuard, askId: string): string {
  const [block, ...more] = guard.blocked('deploy');
  if (!block || more.length || block.reason !== 'ask_pending' || block.askId !== askId)
    throw new Error(`not one ask_pending block for ${askId}: ${JSON.stringify(guard.blocked('deploy'))}`);
  return block.message;
}

/** The message of the one blocked `deploy` call, checked to be a held call whose ask `askId` ended without approval. */
export function endedBlock(guard: TestGuard, askId: string): string {
  const [block, ...more] = guard.blocked('deploy');
  if (!block || more.length || block.reason !== 'ask_ended' || block.askId !== askId)
    throw new Error(`not one ask_ended block for ${askId}: ${JSON.stringify(guard.blocked('deploy'))}`);
  return block.message;
}
