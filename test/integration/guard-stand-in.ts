import { AskgateApiError, type AskgateClient, type AskView } from '../../src/client/index.js';
import type { GuardDecision, ToolGuard } from '../../src/guard/types.js';

// TEST-ONLY stand-in for the run-state guard (`createToolGuard`, built on the `guard` branch): it
// reads the run's real state from a real askgate on every check (`GET /v1/runs/:runId`) instead of
// following its event stream. It exists so the framework adapters are tested against real state
// before the real guard lands; the adapters only see the ToolGuard contract.

export interface StandInGuard extends ToolGuard {
  /** Every decision it made, in order, with the tool's name. */
  readonly decisions: { tool: string; decision: GuardDecision }[];
  /** How many checks have begun (a held one counts before it resolves). */
  readonly started: number;
}

/**
 * While the run has a pending ask, tools not in `allow` are blocked. With `hold`, a call of the tool
 * an open approval names waits for that approval: approve runs it, any other end blocks it.
 */
export function standInGuard(
  client: AskgateClient,
  runId: string,
  opts: { allow?: readonly string[]; hold?: boolean } = {},
): StandInGuard {
  const decisions: StandInGuard['decisions'] = [];
  const decide = async (tool: string): Promise<GuardDecision> => {
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
  };
  let started = 0;
  return {
    decisions,
    get started() {
      return started;
    },
    async check(tool) {
      started++;
      const decision = await decide(tool);
      decisions.push({ tool, decision });
      return decision;
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
export async function checksStarted(guard: { started: number }, count: number): Promise<void> {
  for (let i = 0; i < 500 && guard.started < count; i++) await new Promise((r) => setTimeout(r, 10));
  if (guard.started < count) throw new Error(`only ${guard.started} of ${count} checks started`);
}
