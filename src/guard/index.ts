/**
 * `askgate/guard`: keeps an agent's tools from acting while its run waits for a person. See
 * {@link createToolGuard} (the {@link ToolGuard} the framework adapters use) and {@link guardTools}
 * (plain async functions).
 */
import type { AskgateClient } from '../client/index.js';
import { RunState } from './run-state.js';
import { endedMessage, endedWhy, pendingMessage, unknownMessage } from './messages.js';
import { BlockRecorder } from './recorder.js';
import type { GuardAllow, GuardDecision, ToolGuard } from './types.js';

export type { GuardAllow, GuardBlockReason, GuardDecision, ToolGuard } from './types.js';

/** The SDK client calls a guard makes (an {@link AskgateClient} has them all). */
export type GuardClient = Pick<AskgateClient, 'run' | 'streamRunEvents' | 'get' | 'recordGuardBlocked'>;

/** Options of {@link createToolGuard}. */
export interface ToolGuardOptions {
  /** The SDK client (its token must be allowed on `/v1`). */
  client: GuardClient;
  /** The run whose asks hold the tools back. */
  runId: string;
  /** Tools that run even while an ask is open: read-only lookups only (names, or a predicate on the name). */
  allow?: GuardAllow;
  /**
   * UNSAFE: run every tool when askgate cannot be reached and the run's state is unknown. By
   * default the guard fails closed: such calls are blocked (`state_unknown`). With `failOpen` an
   * outage of askgate lets the agent act on what it was asking a person about.
   */
  failOpen?: boolean;
  /**
   * Hold a blocked call until its ask ends instead of returning at once: an answer (for an
   * approval, `approve`) releases it and the tool runs; a cancelled, superseded, timed-out,
   * skipped, rejected, changes-requested or edited ask returns a blocked result (`ask_ended`).
   */
  hold?: boolean;
  /** The longest a call is held, in ms (default 600 000); then it is blocked (`ask_pending`). */
  holdTimeoutMs?: number;
  /** How long calls made before the run's state is first known wait for it, in ms (default 5 000). */
  startTimeoutMs?: number;
  /** First reconnect delay of the event stream, in ms (default 100; doubles up to 5 000). */
  backoffMs?: number;
  /**
   * The longest opening the event stream and reading the run may take, in ms (default 10 000): an
   * askgate that accepts connections and never answers makes the state unknown after this.
   */
  openTimeoutMs?: number;
}

/** A {@link ToolGuard} that follows one run. */
export interface RunGuard extends ToolGuard {
  /** Resolves once the first attempt to learn the run's state is over: true when it is known. */
  ready(): Promise<boolean>;
  /** Whether the run's state is known now (false: non-allowed calls are blocked, `state_unknown`). */
  readonly known: boolean;
  /**
   * Tells the guard about an ask of its run this process just created (the view `create` returns),
   * so a tool called right after counts it before the event stream shows it (a few ms later).
   */
  track(ask: { id: string; runId: string; version: number; status: string }): void;
}

const RUN: GuardDecision = Object.freeze({ run: true });
const RUN_NOW: Promise<GuardDecision> = Promise.resolve(RUN);

/**
 * A guard of run `runId`: while the run has an open ask (or approval), a call of a tool not in
 * `allow` does not run; its decision carries a deterministic message for the model (nothing was
 * executed, which ask it waits for, try again after the answer), and the call is recorded on the
 * ask (`guard_blocked`, the tool's name only). When nothing is open, tools run.
 *
 * The guard reads the run once and follows its event stream (reconnecting with backoff, reading
 * the run again after each reconnect), so a call costs no request when the state is known, and an
 * answer is seen as soon as askgate streams it. Blocked calls are recorded in the background, one
 * request at a time, at most 32 waiting (more are dropped); a failed record never lets a call run.
 */
export function createToolGuard(opts: ToolGuardOptions): RunGuard {
  const { client, runId } = opts;
  const allowed = allowCheck(opts.allow);
  const holdTimeoutMs = opts.holdTimeoutMs ?? 600_000;
  const state = new RunState(client, runId, {
    backoffMs: opts.backoffMs ?? 100,
    maxBackoffMs: 5_000,
    openTimeoutMs: opts.openTimeoutMs ?? 10_000,
  });
  const recorder = new BlockRecorder(client, runId);
  const started = withTimeout(state.firstAttempt, opts.startTimeoutMs ?? 5_000);
  let first = true;
  void started.then(() => (first = false));
  /** Each ended ask's verdict for held calls (null: released), read once. */
  const verdicts = new Map<string, Promise<string | null>>();

  const unknown = (tool: string, record = true): GuardDecision => {
    // A closed guard follows nothing: it blocks, failOpen or not.
    if (opts.failOpen && !state.closed) return RUN;
    if (record) recorder.add(tool, undefined);
    return { run: false, reason: 'state_unknown', message: unknownMessage(tool) };
  };

  /** The decision from the kept state (a promise only when the call is held). */
  const decide = (tool: string): GuardDecision | Promise<GuardDecision> => {
    if (!state.known) return unknown(tool);
    const askId = state.pendingAsk;
    if (askId === undefined) return RUN;
    recorder.add(tool, askId);
    if (opts.hold) return held(tool, askId, Date.now() + holdTimeoutMs);
    return { run: false, reason: 'ask_pending', askId, message: pendingMessage(tool, askId) };
  };

  const verdict = (askId: string): Promise<string | null> => {
    let kept = verdicts.get(askId);
    if (!kept) {
      kept = client.get(askId).then(
        (view) => endedWhy(view.result),
        () => {
          verdicts.delete(askId); // read again for the next call held for it
          return 'its result could not be read';
        },
      );
      verdicts.set(askId, kept);
      if (verdicts.size > 64) verdicts.delete(verdicts.keys().next().value!);
    }
    return kept;
  };

  const held = async (tool: string, askId: string, deadline: number): Promise<GuardDecision> => {
    for (let current = askId; ;) {
      if (!(await endOf(state, current, deadline))) {
        if (!state.known) return unknown(tool, false);
        return { run: false, reason: 'ask_pending', askId: current, message: pendingMessage(tool, current) };
      }
      const why = await verdict(current);
      if (why !== null)
        return { run: false, reason: 'ask_ended', askId: current, message: endedMessage(tool, current, why) };
      // Released; a newer ask opened meanwhile holds the call in turn.
      if (!state.known) return unknown(tool, false);
      const next = state.pendingAsk;
      if (next === undefined) return RUN;
      current = next;
    }
  };

  return {
    check(tool: string): Promise<GuardDecision> {
      if (allowed(tool)) return RUN_NOW;
      if (first && !state.known) return started.then(() => decide(tool));
      const decision = decide(tool);
      return decision === RUN ? RUN_NOW : Promise.resolve(decision);
    },
    close(): void {
      state.close();
      recorder.close();
    },
    ready: () => started.then(() => state.known),
    track(ask) {
      if (ask.runId === runId) state.note(ask);
    },
    get known() {
      return state.known;
    },
  };
}

/** A function a tool runs: any arguments, a promise of its result. */
// `any[]`, not `unknown[]`: a function of (env: string) must be assignable (parameters are contravariant).
export type ToolFunction = (...args: any[]) => Promise<unknown>;

/** What {@link guardTools} returns: the same tools (a blocked call resolves to its message), the guard and `close`. */
export type GuardedTools<T extends Record<string, ToolFunction>> = {
  [K in keyof T]: (...args: Parameters<T[K]>) => Promise<Awaited<ReturnType<T[K]>> | string>;
} & { readonly guard: RunGuard; close(): void };

/**
 * Wraps plain async tool functions with one {@link createToolGuard}: the same keys, each calling
 * its function only when the guard lets it run, else resolving to the decision's message (a string
 * the model reads) without calling it. `guard` and `close()` are non-enumerable (a tool may not be
 * named so).
 */
export function guardTools<T extends Record<string, ToolFunction>>(tools: T, opts: ToolGuardOptions): GuardedTools<T> {
  for (const name of ['guard', 'close'])
    if (Object.hasOwn(tools, name)) throw new TypeError(`guardTools: a tool may not be named "${name}"`);
  const guard = createToolGuard(opts);
  const out: Record<string, ToolFunction> = {};
  for (const [name, fn] of Object.entries(tools)) {
    out[name] = async (...args: unknown[]) => {
      const decision = await guard.check(name);
      return decision.run ? Reflect.apply(fn, tools, args) : decision.message;
    };
  }
  Object.defineProperties(out, { guard: { value: guard }, close: { value: () => guard.close() } });
  return out as GuardedTools<T>;
}

/** `allow` as a test on a tool's name. */
function allowCheck(allow: GuardAllow | undefined): (tool: string) => boolean {
  if (allow === undefined) return () => false;
  if (typeof allow === 'function') return (tool) => allow(tool) === true;
  const names = new Set(allow);
  return (tool) => names.has(tool);
}

/** Resolves when `askId` is seen ended (true), or at `deadline` or when the guard closes while it is not (false). */
function endOf(state: RunState, askId: string, deadline: number): Promise<boolean> {
  if (state.hasEnded(askId)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ended: boolean) => {
      clearTimeout(timer);
      off();
      resolve(ended);
    };
    const timer = setTimeout(() => done(false), Math.max(0, deadline - Date.now()));
    const off = state.onChange(() => {
      if (state.hasEnded(askId)) done(true);
      else if (state.closed) done(false);
    });
  });
}

/** `promise`, or nothing more after `ms`. */
function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref?.();
    void promise.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
