// The events of an ask and what a transition returns: shared by lifecycle.ts and the transitions it delegates to.
import type { AskRecord, Answers, HistoryEntry, MessageRef, Responder } from './schemas.js';
import type { Effect } from './effects.js';
import type { Issue } from './errors.js';
import type { Decision } from './approval/decisions.js';

/** Everything that can happen to an ask. */
export type AskEvent =
  /**
   * Answers to some or all questions; the ask resolves once every question has one. `raw`: what the
   * person wrote for a typed question where it differs from the kept value (kept, never logged).
   */
  | { type: 'answer'; answers: Answers; by: Responder; chat?: string; raw?: Readonly<Record<string, string>> }
  /** A decision on an approval (core/approval/decide.ts). */
  | DecideEvent
  | { type: 'skip'; by: Responder; chat?: string }
  | { type: 'timeout' }
  | { type: 'cancel' }
  | { type: 'supersede' }
  | { type: 'delivered'; index: number; message: MessageRef }
  | { type: 'delivery_failed'; index: number; error: string }
  | { type: 'finalized'; index: number; ok: boolean }
  /**
   * The platform reported how a sent message fared (core/delivery-status.ts): the delivery is the
   * one whose message is `messageId` in `chat` on `channel`; `reason` (failed): a short code, never
   * anyone's words.
   */
  | {
      type: 'delivery_status';
      channel: string;
      chat: string;
      messageId: string;
      status: 'delivered' | 'read' | 'failed';
      reason?: string;
    }
  /** Policy step: reminder n (1–3) falls due. */
  | { type: 'remind'; n: number }
  /** Policy step: escalation step n (1–3) falls due. */
  | { type: 'escalate'; n: number }
  /** Delivery `index` showed reminder n (or gave up on it). */
  | { type: 'reminder_posted'; index: number; n: number }
  /** A history note that changes nothing else (a rejected reply, a hint sent, a webhook result). */
  | { type: 'note'; entry: Omit<HistoryEntry, 'at'> }
  /** A tool call the run's guard did not run while the ask was open (core/guard-blocked.ts). */
  | { type: 'guard_blocked'; tool: string }
  /** The deadline moves to `at` (epoch ms), asked by `by` (core/extend.ts). */
  | { type: 'extend'; at: number; by: Responder };

/** What a transition meant for whoever caused it. */
export type TransitionOutcome =
  | { code: 'resolved' }
  | { code: 'partial'; missing: string[] }
  /** `agree` > 1: the person's response is recorded; `matching` of `needed` agree so far. */
  | { code: 'counted'; matching: number; needed: number }
  | { code: 'updated' }
  | { code: 'already_resolved' }
  | { code: 'forbidden' }
  | { code: 'expired' }
  | { code: 'invalid'; issues: Issue[] };

/** A committed change (`changed`) or a refusal that leaves the record as it was. */
export type TransitionResult =
  | { kind: 'changed'; record: AskRecord; effects: Effect[]; outcome: TransitionOutcome }
  | { kind: 'unchanged'; outcome: TransitionOutcome };

/** A decision as the shell hands it over: edited arguments come with their hash (computed outside core). */
export interface DecideEvent {
  type: 'decide';
  decision: Decision;
  /** The person's words (required to reject or request changes). */
  reason?: string;
  /** `edit`: the arguments to run instead, checked against the approval's schema by the shell. */
  arguments?: Record<string, unknown>;
  /** `edit`: `sha256:<hex>` of `{action, arguments}` with the edited arguments. */
  effectiveHash?: string;
  by: Responder;
  chat?: string;
}
