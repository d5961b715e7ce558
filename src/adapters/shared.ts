/**
 * What the framework adapters share: safe idempotency keys, approval questions built from
 * untrusted tool arguments, and the reading of an approval's result. No framework is imported here.
 */
import { createHash } from 'node:crypto';
import type { AskInput, AskOptions, AskResult, AskView, Target } from '../client/index.js';
import { shorten, stripInvisible } from '../core/text.js';
import { ownValue } from '../core/own.js';

/** Where and how every adapter asks. */
export interface AskTarget {
  /** The askgate run: one pending ask per run (a new ask supersedes it). */
  runId: string;
  /** Where to ask; leave it out for askgate's default target (`ASKGATE_DEFAULT_TO`) or the console. */
  to?: Target;
  /** How long the person has, in seconds (askgate clamps it; default: the server's). */
  timeoutSeconds?: number;
  /** Aborting cancels the open ask and rejects with an `AbortError`. */
  signal?: AbortSignal;
  /** Called with each ask once it exists. */
  onCreated?: (ask: AskView) => void;
}

/**
 * The person who asked for an agent's actions (`{channel, userId}`: the channel's name and its user
 * id, e.g. `{channel: 'slack', userId: 'U123'}`; `api` for `by` through the HTTP API). Approval asks
 * carry it as `requestedBy`, and askgate refuses that person's own decision: someone else decides.
 */
export interface RequestedBy {
  channel: string;
  userId: string;
}

/**
 * When a typed question fits better than options, as the adapters' tool descriptions say it (MCP's
 * `ask_user` says the same in its own words): every typed kind and its constraints.
 */
export const TYPED_GUIDANCE =
  'When the answer is a number, a date, a time, an address, a link or free text, do not invent options: set kind "number" (min, max, integer, unit), "date" (min, max as "YYYY-MM-DD"), "time" (min, max as "HH:MM"), "datetime" (min, max as ISO 8601 with an offset), "email", "url" or "text" (minLength, maxLength up to 4000, pattern: RE2 matched against the whole answer), e.g. {"question": "How many replicas?", "kind": "number", "min": 1, "max": 10, "integer": true}. Typed questions take no options; the reply is read in the user\'s language and checked, and they are asked again until it fits.';

/** The label of the approving option of an approval question. */
export const APPROVE = 'Approve';
/** The label of the rejecting option of an approval question. */
export const REJECT = 'Reject';
/** The question id of an approval question. */
export const DECISION = 'decision';

/**
 * An Idempotency-Key for one framework event (a tool call, an interrupt): a hash of its parts,
 * so ids of any length or alphabet give a valid key, and the same event always gives the same
 * key (a retried or resumed run finds the same ask instead of asking twice).
 */
export function eventKey(framework: string, ...parts: string[]): string {
  const digest = createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
  return `askgate-${framework}-${digest}`;
}

/** Untrusted text as one line a person can read: no control or invisible characters, at most `max` graphemes. */
export function shownLine(text: string, max: number): string {
  return shorten(stripInvisible(text.replace(/\s+/g, ' ')).trim(), max);
}

/** A plain JSON object (not null, not an array): what untrusted framework values are read as. */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Tool arguments (a JSON string from the model) as a short `key: value, ...` summary. */
export function summariseArgs(raw: string | undefined, max = 300): string {
  if (raw === undefined || raw.trim() === '') return '';
  let text = raw;
  try {
    const parsed: unknown = JSON.parse(raw);
    text = isObject(parsed)
      ? Object.entries(parsed)
          .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
          .join(', ')
      : JSON.stringify(parsed);
  } catch {
    // Not JSON: shown as sent.
  }
  return shownLine(text, max);
}

/** A one-question ask with Approve/Reject buttons (the person may also answer in their own words or skip). */
export function approvalAsk(question: string, target: AskTarget, header = 'Approval'): AskInput {
  return {
    ...askBase(target),
    questions: [
      {
        id: DECISION,
        header,
        question: shownLine(question, 1000) || 'Approve?',
        options: [{ label: APPROVE }, { label: REJECT }],
      },
    ],
  };
}

/** `runId`, `to` and `timeoutSeconds` of an ask, only when set. */
export function askBase(target: AskTarget): Pick<AskInput, 'runId' | 'to' | 'timeoutSeconds'> {
  return {
    runId: target.runId,
    ...(target.to ? { to: target.to } : {}),
    ...(target.timeoutSeconds ? { timeoutSeconds: Math.max(1, Math.round(target.timeoutSeconds)) } : {}),
  };
}

/** The SDK's ask options for one event. */
export function askOptions(target: AskTarget, idempotencyKey: string): AskOptions {
  return {
    idempotencyKey,
    ...(target.signal ? { signal: target.signal } : {}),
    ...(target.onCreated ? { onCreated: target.onCreated } : {}),
  };
}

/** What a person decided on an approval question (or an approval ask). */
export type Decision =
  | { kind: 'approved' }
  /** `reason`: the person's words, on an approval ask. */
  | { kind: 'rejected'; reason?: string }
  /** An approval ask answered with request_changes: `reason` says what to change. */
  | { kind: 'changes_requested'; reason: string }
  /** They answered in their own words: not an approval; `text` is what they wrote. */
  | { kind: 'comment'; text: string }
  | { kind: 'no_answer'; reason: Extract<AskResult, { status: 'no_answer' }>['reason'] };

/**
 * An approval ask (issue 36) for one tool call: the tool's name as the action and its arguments as
 * the model sent them (a JSON object; anything else as `{input: <text>}`), so the person sees them
 * whole with their hash, and decides approve, reject or request changes, saying why. With
 * `requestedBy`, that person's own decision is refused.
 */
export function actionApprovalAsk(
  action: string,
  rawArgs: string | undefined,
  target: AskTarget,
  requestedBy?: RequestedBy,
): AskInput {
  return {
    ...askBase(target),
    approval: {
      action: shownLine(action, 100) || 'tool',
      arguments: argumentsOf(rawArgs),
      decisions: ['approve', 'reject', 'request_changes'],
      ...(requestedBy ? { requestedBy } : {}),
    },
  };
}

/** A tool call's arguments as the JSON object an approval shows: the parsed object, else `{input: <text>}`. */
export function argumentsOf(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (isObject(parsed)) return parsed;
  } catch {
    // Not JSON: shown as sent.
  }
  return { input: raw };
}

/** Reads the result of an {@link actionApprovalAsk}: only approve approves (edit is not offered). */
export function decisionOfApproval(result: AskResult): Decision {
  if (result.status === 'no_answer') return { kind: 'no_answer', reason: result.reason };
  if (result.decision === 'approve') return { kind: 'approved' };
  if (result.decision === 'request_changes') return { kind: 'changes_requested', reason: result.reason ?? '' };
  return { kind: 'rejected', ...(result.reason ? { reason: result.reason } : {}) };
}

/** Reads the result of an {@link approvalAsk}. Only a tap (or reply) naming "Approve" approves. */
export function decisionOf(result: AskResult): Decision {
  if (result.status === 'no_answer') return { kind: 'no_answer', reason: result.reason };
  const value = ownValue(result.answers, DECISION)?.[0] ?? '';
  if (value === APPROVE) return { kind: 'approved' };
  if (value === REJECT) return { kind: 'rejected' };
  return { kind: 'comment', text: value };
}
