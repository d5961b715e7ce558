import type { AskRecord, HistoryEntry } from '../core/schemas.js';
import { deadlineOf, fromMs, isDeadline, toMs } from './iso-times.js';

/**
 * The compact stored form of a record (see `encodeAsk`, which then shortens its keys with
 * key-names.ts and marks the value with a `~`): the JSON leaves out what the key and the header already say (id, run id, rev,
 * status) and every field equal to its default, which {@link expandRecord} fills in again:
 * - `to` is never stored: it is the first of `targets` (null without one); `targets`: [];
 * - `version`: 1; `expiresAt`: `createdAt` + `timeoutSeconds`;
 * - times (`createdAt`, each history entry's `at`) are stored as epoch ms when that is exact;
 * - `history`: starts with the `created` entry at `createdAt` (with the first target's channel); the
 *   entries after it are stored as `later`, and a history that does not start so as `history`;
 * - `result` null, `partial` {}, `deliveries` [] and in each delivery `finalized` 'no', and in each
 *   choice question `multiSelect` false;
 * - a delivery's `channel`, `chat`, `thread` and `users`: those of the target of the same index
 *   (a delivery stored without `channel` has them all from there), and its message's `chat`: its own.
 *
 * `questions` come last (read in any order), or not at all without `withQuestions`.
 *
 * Values are also shortened at known places, never one a user chose:
 * - a history entry's `at`: ms after `createdAt` (after the epoch if `createdAt` is not stored as
 *   ms) when that gives it back exactly, else its ISO text;
 * - an entry of a type in {@link CHANNEL_TYPES}: no `channel` when it is the first target's, and
 *   `channel: null` when it has none (while there is a target); other types keep theirs as they are;
 * - an entry's `type`, a delivery's `status` and `finalized`: their number in {@link HISTORY_TYPE_CODES},
 *   {@link DELIVERY_STATUS_CODES} and {@link FINALIZED_CODES} (schema values are strings: a number is a code).
 */
export function compactRecord(record: AskRecord, withQuestions = true): string {
  const { targets, createdAt, history } = record;
  const to = targets[0] ?? null;
  const ms = toMs(createdAt);
  const r = record as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  // Plain loops rather than rest and spread: this runs on every write.
  for (const k in r) {
    const v = r[k];
    if (v === undefined || k in DERIVED) continue;
    if (k === 'version') {
      if (v !== 1) out.version = v;
    } else if (k === 'createdAt') out.createdAt = ms;
    else out[k] = v;
  }
  if (targets.length > 0) out.targets = targets;
  if (!isDeadline(record.expiresAt, createdAt, record.timeoutSeconds)) out.expiresAt = record.expiresAt;
  if (record.result !== null) out.result = record.result;
  for (const _ in record.partial) {
    out.partial = record.partial;
    break;
  }
  if (record.deliveries.length > 0) out.deliveries = record.deliveries.map((d, i) => compactDelivery(d, targets[i]));
  const entry = codedEntry(typeof ms === 'number' ? ms : 0, to?.channel);
  if (history.length > 0 && isCreatedEntry(history[0]!, createdAt, to)) {
    if (history.length > 1) out.later = history.slice(1).map(entry);
  } else out.history = history.map(entry);
  // Last, so that a caller can append them from a cache (see `encodeAsk`): they never change.
  if (withQuestions) out.questions = compactQuestions(record.questions);
  return JSON.stringify(out);
}

/** The questions as stored: a choice's `multiSelect` left out when false. */
export function compactQuestions(questions: AskRecord['questions']): unknown[] {
  return questions.map((q) => ('multiSelect' in q && !q.multiSelect ? without(q, 'multiSelect') : q));
}

/** Fields {@link compactRecord} writes in their own way (or not at all). */
const DERIVED: Record<string, true> = {
  id: true,
  runId: true,
  rev: true,
  status: true,
  to: true,
  targets: true,
  questions: true,
  expiresAt: true,
  result: true,
  partial: true,
  deliveries: true,
  history: true,
};

/** A shallow copy of `obj` without the key `drop`. */
function without(obj: object, drop: string): Record<string, unknown> {
  const o = obj as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k in o) if (k !== drop && o[k] !== undefined) out[k] = o[k];
  return out;
}

/** Whether `entry` is the one a new ask starts with (see {@link createdEntry}). */
function isCreatedEntry(entry: HistoryEntry, createdAt: string, to: Target | null): boolean {
  let keys = 0;
  for (const k in entry) if (entry[k as keyof HistoryEntry] !== undefined) keys++;
  return (
    entry.type === 'created' && entry.at === createdAt && (to ? entry.channel === to.channel && keys === 3 : keys === 2)
  );
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const EARLY = ['policy', 'reminded', 'escalated', 'responses', 'partials'] as const;
/** After `timeoutSeconds`, as in the schema: how long the ask may wait (`async`), and its extensions. */
const WAIT = ['async', 'extended'] as const;
const LATE = ['idempotencyKey', 'callbackUrl', 'locale', 'timeZone', 'push'] as const;

/**
 * The record of a compact JSON value and the fields kept outside it; anything not shaped like a
 * compact record is returned as it is, for the schema to reject. Takes `compact` over: it must be
 * a value just parsed (its objects are completed in place, the cheap way). Keys come in the
 * schema's order, as a checked record's do.
 */
export function expandRecord(
  compact: unknown,
  head: { id: string; runId: string; rev: number; status: string },
): unknown {
  if (!isObject(compact)) return compact;
  const c = compact;
  const createdAt = typeof c.createdAt === 'number' ? fromMs(c.createdAt) : c.createdAt;
  const targets = c.targets ?? [];
  const to = Array.isArray(targets) && targets.length > 0 ? targets[0] : null;
  if (Array.isArray(c.questions))
    for (const q of c.questions)
      if (isObject(q) && (q.kind === undefined || q.kind === 'choice') && q.multiSelect === undefined)
        q.multiSelect = false;
  const deliveries = Array.isArray(c.deliveries)
    ? c.deliveries.map((d, i) => expandDelivery(d, Array.isArray(targets) ? targets[i] : undefined))
    : (c.deliveries ?? []);
  const entries = uncodeEntries(
    typeof c.createdAt === 'number' ? c.createdAt : 0,
    isObject(to) ? to.channel : undefined,
  );
  const history =
    c.history !== undefined
      ? entries(c.history)
      : c.later !== undefined && !Array.isArray(c.later)
        ? c.later // not a compact history: for the schema to reject
        : [createdEntry(createdAt, to), ...(entries(c.later ?? []) as unknown[])];
  const record: Record<string, unknown> = {
    id: head.id,
    runId: head.runId,
    version: c.version ?? 1,
    rev: head.rev,
    status: head.status,
    questions: c.questions,
    to,
    targets,
  };
  for (const k of EARLY) if (c[k] !== undefined) record[k] = c[k];
  record.createdAt = createdAt;
  const expiresAt = c.expiresAt ?? deadlineOf(createdAt, c.timeoutSeconds);
  if (expiresAt !== undefined) record.expiresAt = expiresAt;
  record.timeoutSeconds = c.timeoutSeconds;
  for (const k of WAIT) if (c[k] !== undefined) record[k] = c[k];
  record.result = c.result ?? null;
  record.partial = c.partial ?? {};
  record.deliveries = deliveries;
  for (const k of LATE) if (c[k] !== undefined) record[k] = c[k];
  record.history = history;
  // Every other field comes back as stored (`agent`, `partialRaw`, and any added later):
  // a field this reader does not name must never be dropped on a cold read.
  for (const k in c) if (!(k in record) && !(k in READ_APART) && c[k] !== undefined) record[k] = c[k];
  return record;
}

/** Fields {@link expandRecord} reads in its own way (or that the key and header carry). */
const READ_APART: Record<string, true> = { later: true, id: true, runId: true, rev: true, status: true };

/**
 * STORED FORMAT (coded form): the number of each value of a history entry's `type`, a delivery's
 * `status` and its `finalized` is its index here. A number, once given, names its value forever:
 * append new values at the end; never reorder, reuse or remove one. A value without a number is
 * stored as its text.
 */
export const HISTORY_TYPE_CODES = (
  'created delivered delivery_failed reply_rejected hint_sent partial answered no_answer finalized ' +
  'finalize_failed webhook_delivered webhook_failed reminded escalated response guard_blocked delivery_status extended'
).split(' ') as readonly HistoryEntry['type'][];
/** See {@link HISTORY_TYPE_CODES}. */
export const DELIVERY_STATUS_CODES: readonly Delivery['status'][] = ['pending', 'sent', 'failed'];
/** See {@link HISTORY_TYPE_CODES}. */
export const FINALIZED_CODES: readonly Delivery['finalized'][] = ['no', 'done', 'failed'];

/**
 * STORED FORMAT (coded form): the entry types whose `channel` is left out when it is that of `to`
 * and stored as null when absent: those core always writes with one (a delivery's or a responder's).
 * It says what a missing `channel` means: never change it once released. The other types (`created`,
 * `no_answer`, webhook, reminder, escalation), with a channel sometimes or never, keep theirs as is.
 */
export const CHANNEL_TYPES: ReadonlySet<string> = new Set(
  'delivered delivery_failed reply_rejected hint_sent partial answered finalized finalize_failed response'.split(' '),
);

/** Value → number, for each table of codes. */
const codesOf = (values: readonly string[]): ReadonlyMap<unknown, number> => new Map(values.map((v, i) => [v, i]));
const TYPE_NUMBERS = codesOf(HISTORY_TYPE_CODES);
const STATUS_NUMBERS = codesOf(DELIVERY_STATUS_CODES);
const FINALIZED_NUMBERS = codesOf(FINALIZED_CODES);

/** The value of `v` if it is a code of `table`; anything else as it is (for the schema to judge). */
function uncode(v: unknown, table: readonly string[]): unknown {
  return typeof v === 'number' ? (table[v] ?? v) : v;
}

/** The coded form of history entries (see {@link compactRecord}), `createdMs` and `to`'s channel given. */
function codedEntry(createdMs: number, toChannel: string | undefined) {
  return (entry: HistoryEntry): Record<string, unknown> => {
    const e = entry as unknown as Record<string, unknown>;
    const ownChannel = toChannel !== undefined && CHANNEL_TYPES.has(entry.type);
    const out: Record<string, unknown> = {};
    for (const k in e) {
      const v = e[k];
      if (v === undefined) continue;
      if (k === 'type') out.type = TYPE_NUMBERS.get(v) ?? v;
      else if (k === 'at') {
        const ms = toMs(entry.at);
        // Exact when adding the difference back gives the same ms (it may not, far from 1970).
        out.at = typeof ms === 'number' && createdMs + (ms - createdMs) === ms ? ms - createdMs : entry.at;
      } else if (k !== 'channel' || !ownChannel || v !== toChannel) out[k] = v;
    }
    if (ownChannel && entry.channel === undefined) out.channel = null;
    return out;
  };
}

/**
 * History entries of the coded form back as they were (keys in the schema's order); anything not
 * shaped like them as it is. The inverse of {@link codedEntry}.
 */
function uncodeEntries(createdMs: number, toChannel: unknown) {
  const channelOfTo = typeof toChannel === 'string' ? toChannel : undefined;
  return (entries: unknown): unknown => {
    if (!Array.isArray(entries)) return entries;
    for (let i = 0; i < entries.length; i++) {
      const e: unknown = entries[i];
      if (!isObject(e)) continue;
      const type = uncode(e.type, HISTORY_TYPE_CODES);
      const out: Record<string, unknown> = { type, at: typeof e.at === 'number' ? fromMs(createdMs + e.at) : e.at };
      let channel = e.channel;
      if (channelOfTo !== undefined && typeof type === 'string' && CHANNEL_TYPES.has(type))
        channel = channel === undefined ? channelOfTo : channel === null ? undefined : channel;
      if (channel !== undefined) out.channel = channel;
      // (`__proto__`, no field of an entry, is not copied: assigned, it would set out's prototype.)
      for (const k in e) if (k !== 'type' && k !== 'at' && k !== 'channel' && k !== '__proto__') out[k] = e[k];
      entries[i] = out;
    }
    return entries;
  };
}

type Delivery = AskRecord['deliveries'][number];
type Target = AskRecord['targets'][number];
const PLACE = ['channel', 'chat', 'thread', 'users'] as const;
const PLACE_KEYS: Record<string, boolean> = { channel: true, chat: true, thread: true, users: true };

function compactDelivery(delivery: Delivery, target: Target | undefined): Record<string, unknown> {
  const atTarget = target !== undefined && PLACE.every((k) => sameJson(delivery[k], target[k]));
  const d = delivery as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k in d) {
    const v = d[k];
    if (v === undefined || (k === 'finalized' && v === 'no') || (atTarget && PLACE_KEYS[k])) continue;
    out[k] = k === 'message' && delivery.message?.chat === delivery.chat ? without(delivery.message, 'chat') : v;
  }
  if (out.status !== undefined) out.status = STATUS_NUMBERS.get(out.status) ?? out.status;
  if (out.finalized !== undefined) out.finalized = FINALIZED_NUMBERS.get(out.finalized) ?? out.finalized;
  return out;
}

function expandDelivery(delivery: unknown, target: unknown): unknown {
  if (!isObject(delivery)) return delivery;
  const d = delivery;
  const place = d.channel === undefined && isObject(target) ? target : d;
  const out: Record<string, unknown> = { channel: place.channel, chat: place.chat };
  if (place.thread !== undefined) out.thread = place.thread;
  out.status = uncode(d.status, DELIVERY_STATUS_CODES);
  const message = d.message;
  if (message !== undefined)
    out.message =
      isObject(message) && message.chat === undefined
        ? {
            chat: out.chat,
            messageId: message.messageId,
            ...(message.thread === undefined ? {} : { thread: message.thread }),
          }
        : message;
  if (d.error !== undefined) out.error = d.error;
  out.finalized = uncode(d.finalized ?? 'no', FINALIZED_CODES);
  const users = place.users;
  if (users !== undefined) out.users = place === d ? users : Array.isArray(users) ? users.slice() : users;
  if (d.step !== undefined) out.step = d.step;
  if (d.reminded !== undefined) out.reminded = d.reminded;
  if (d.reached !== undefined) out.reached = d.reached;
  return out;
}

/** The history entry a new ask starts with (core/new-ask.ts). */
function createdEntry(createdAt: unknown, to: unknown): HistoryEntry {
  const channel = isObject(to) && typeof to.channel === 'string' ? { channel: to.channel } : {};
  return { type: 'created', at: createdAt as string, ...channel };
}

/** Whether two JSON values are equal (objects compared key by key, in any order). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (!isObject(a) || !isObject(b) || Array.isArray(b)) return false;
  const keys = Object.keys(a).filter((k) => a[k] !== undefined);
  return (
    keys.length === Object.keys(b).filter((k) => b[k] !== undefined).length && keys.every((k) => sameJson(a[k], b[k]))
  );
}
