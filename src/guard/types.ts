/**
 * The tool guard's contract (`askgate/guard`): what a framework adapter needs from a guard, so the
 * adapters and the guard that follows a run's state are built apart. A guard answers one question
 * per tool call — may this call run now? — from state it already holds (no request per call in the
 * common case).
 */

/** Which tools may run while an ask is open: names, or a predicate on the tool's name. */
export type GuardAllow = readonly string[] | ((toolName: string) => boolean);

/** Why a call did not run. */
export type GuardBlockReason =
  /** The run has an open ask (or approval) and the tool is not allowed meanwhile. */
  | 'ask_pending'
  /** askgate could not be reached and the run's state is unknown (the guard fails closed). */
  | 'state_unknown'
  /** The call was held for an ask that ended without an answer (cancelled, superseded, timed out). */
  | 'ask_ended';

/** The guard's decision for one call. */
export type GuardDecision =
  | { run: true }
  | {
      run: false;
      reason: GuardBlockReason;
      /** The ask the call waits for, when known. */
      askId?: string;
      /** The model-readable result to return instead of running the tool (deterministic text). */
      message: string;
    };

/** What every framework adapter calls around a tool's execution. */
export interface ToolGuard {
  /**
   * Decides one call of `toolName`. Resolves at once from the kept state, or (when the guard holds
   * calls) once the ask the call waits for ends. A blocked call is recorded in the run's history.
   */
  check(toolName: string): Promise<GuardDecision>;
  /** Stops following the run (closes the event stream). */
  close(): void;
}
