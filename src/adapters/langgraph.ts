/**
 * askgate for LangGraph (`askgate/langgraph`; peer dependency `@langchain/langgraph`): a node
 * asks a person with {@link askPerson} (LangGraph's `interrupt()`), and {@link runWithAskgate}
 * runs the compiled graph, asks through askgate at each such interrupt and resumes the thread
 * with `new Command({resume})`. The graph needs a checkpointer (e.g. `MemorySaver`) and the
 * thread a `thread_id`: LangGraph keeps the paused state there between the two invocations.
 */
import { Command, INTERRUPT, interrupt } from '@langchain/langgraph';
import type { AskgateClient, AskInput, AskResult } from '../client/index.js';
import { askBase, askOptions, eventKey, type AskTarget, type RequestedBy } from './shared.js';
import { hitlRequestOf, resolveHitl, type HitlDecision } from './langgraph-hitl.js';

export type { AskTarget, RequestedBy } from './shared.js';
export {
  hitlRequestOf,
  hitlApprovalAsk,
  hitlDecisionOf,
  resolveHitl,
  HitlUndecidedError,
  type HitlActionRequest,
  type HitlDecision,
  type HitlDecisionType,
  type HitlOptions,
  type HitlRequest,
  type HitlReviewConfig,
} from './langgraph-hitl.js';

/**
 * What a node hands to `interrupt()` to ask a person: askgate questions (1–3; each a choice with
 * 2–4 options or a typed kind such as `{kind: 'number', min: 1}`), as `{questions}` (the body of an
 * ask without its run and target).
 */
export interface AskPayload {
  questions: AskInput['questions'];
  /** Seconds the person has for this question (overrides the runner's). */
  timeoutSeconds?: number;
}

/**
 * True when an interrupt's value is an {@link AskPayload}: an object whose `questions` is a
 * non-empty list of `{question, options: [...]}` or `{question, kind: "<kind>"}` (a typed
 * question). Other interrupts are left to the caller.
 */
export function isAskPayload(value: unknown): value is AskPayload {
  if (value === null || typeof value !== 'object') return false;
  const questions = (value as { questions?: unknown }).questions;
  return (
    Array.isArray(questions) &&
    questions.length > 0 &&
    questions.every(
      (q) =>
        q !== null &&
        typeof q === 'object' &&
        typeof (q as { question?: unknown }).question === 'string' &&
        (Array.isArray((q as { options?: unknown }).options) || typeof (q as { kind?: unknown }).kind === 'string'),
    )
  );
}

/**
 * Inside a node: asks a person and returns their answer (an `AskResult`: `answered` with
 * `answers` keyed by question id and `values` with JSON types, e.g. a number for a number
 * question, or `no_answer` with a reason). It pauses the graph with
 * `interrupt()`; on resume LangGraph re-runs the node from its start and this returns the
 * result, so work before it must be safe to repeat.
 */
export function askPerson(questions: AskInput['questions'], opts: { timeoutSeconds?: number } = {}): AskResult {
  const payload: AskPayload = {
    questions,
    ...(opts.timeoutSeconds ? { timeoutSeconds: opts.timeoutSeconds } : {}),
  };
  return interrupt<AskPayload, AskResult>(payload);
}

/** The part of a compiled LangGraph graph the runner uses. */
export interface InvokableGraph {
  invoke(input: unknown, config: { configurable: { thread_id: string } } & Record<string, unknown>): Promise<unknown>;
}

/** One interrupt as LangGraph reports it in `__interrupt__`. */
interface PendingInterrupt {
  id?: string;
  value?: unknown;
}

/** Options of {@link runWithAskgate}. */
export interface RunWithAskgateOptions extends Omit<AskTarget, 'runId'> {
  /** The LangGraph thread (`configurable.thread_id`). */
  threadId: string;
  /** The askgate run (default: the thread id; it must match askgate's run id rules). */
  runId?: string;
  /** More of the graph's config (`recursionLimit`, other `configurable` keys, ...). */
  config?: Record<string, unknown>;
  /** Resumes before giving up (default 50). */
  maxRounds?: number;
  /**
   * The person who asked for the agent's actions (`{channel, userId}`, e.g. the chat user who sent
   * the request): the middleware's approval asks name them, and their own decision is refused.
   */
  requestedBy?: RequestedBy;
}

/**
 * Runs the graph on a thread; while it stops on askgate interrupts ({@link askPerson}, or the
 * `humanInTheLoopMiddleware`'s tool approvals, batched or per call: one approval ask per action,
 * resumed with `{decisions}`), asks a person for each (one at a time: askgate keeps one open ask
 * per run) and resumes with every answer keyed by interrupt id. Returns the graph's last output:
 * its final state, or — when it also stops on an interrupt that is not an askgate question — the
 * output with `__interrupt__`, for the caller to handle. `createAgent` agents run here as they are
 * (they are compiled graphs; give them a checkpointer). How actions map to decisions, and what a
 * rejection in a batch means: ./langgraph-hitl.ts.
 *
 * Pass `input: null` to continue a thread that is already paused (after a crash of this process):
 * LangGraph reports the same interrupts with the same ids, and the idempotency key (thread +
 * interrupt id) finds the same asks, answered or still open, instead of asking again.
 * Aborting `signal` cancels the open ask and rejects with an `AbortError`; the thread stays paused.
 */
export async function runWithAskgate(
  client: AskgateClient,
  graph: InvokableGraph,
  input: unknown,
  opts: RunWithAskgateOptions,
): Promise<any> {
  const runId = opts.runId ?? opts.threadId;
  const extra = opts.config ?? {};
  const config = {
    ...extra,
    configurable: { ...((extra.configurable as Record<string, unknown>) ?? {}), thread_id: opts.threadId },
  };
  const maxRounds = opts.maxRounds ?? 50;
  let output = await graph.invoke(input, config);
  for (let round = 0; ; round++) {
    const pending = interruptsOf(output);
    const ours = (p: PendingInterrupt) => p.id !== undefined && (isAskPayload(p.value) || hitlRequestOf(p.value));
    if (pending.length === 0 || !pending.every(ours)) return output;
    if (round >= maxRounds) throw new Error(`runWithAskgate: still interrupted after ${maxRounds} resumes`);
    // Keyed by LangGraph's interrupt ids; no prototype, so no id can reach Object.prototype.
    const resume: Record<string, AskResult | { decisions: HitlDecision[] }> = Object.create(null);
    for (const p of pending) {
      const hitl = isAskPayload(p.value) ? undefined : hitlRequestOf(p.value);
      if (hitl) {
        const hitlOpts = opts.requestedBy ? { requestedBy: opts.requestedBy } : {};
        resume[p.id!] = await resolveHitl(client, hitl, targetOf(runId, opts), [opts.threadId, p.id!], hitlOpts);
        continue;
      }
      const payload = p.value as AskPayload;
      const target: AskTarget = {
        runId,
        ...(opts.to ? { to: opts.to } : {}),
        ...(opts.timeoutSeconds ? { timeoutSeconds: opts.timeoutSeconds } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.onCreated ? { onCreated: opts.onCreated } : {}),
        ...(payload.timeoutSeconds ? { timeoutSeconds: payload.timeoutSeconds } : {}),
      };
      resume[p.id!] = await client.ask(
        { ...askBase(target), questions: payload.questions },
        askOptions(target, eventKey('langgraph', opts.threadId, p.id!)),
      );
    }
    output = await graph.invoke(new Command({ resume }), config);
  }
}

/** Where the runner asks, from its options. */
function targetOf(runId: string, opts: RunWithAskgateOptions): AskTarget {
  return {
    runId,
    ...(opts.to ? { to: opts.to } : {}),
    ...(opts.timeoutSeconds ? { timeoutSeconds: opts.timeoutSeconds } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.onCreated ? { onCreated: opts.onCreated } : {}),
  };
}

function interruptsOf(output: unknown): PendingInterrupt[] {
  if (output === null || typeof output !== 'object') return [];
  const list = (output as Record<string, unknown>)[INTERRUPT];
  return Array.isArray(list) ? (list as PendingInterrupt[]) : [];
}
