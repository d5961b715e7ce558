import type { AskRecord, HistoryEntry } from '../core/schemas.js';

/**
 * The compact stored form of a record (see `encodeAsk`, which then shortens its keys with
 * key-names.ts): the JSON leaves out what the key and the header already say (id, run id, rev,
 * status) and every field equal to its default, which {@link expandRecord} fills in again:
 * - `to`: the first of `targets`, else null; `targets`: [] (absent from a record written before
 *   fan-out: stored as null, so that absence survives the round trip);
 * - `version`: 1; `expiresAt`: `createdAt` + `timeoutSeconds`;
 * - times (`createdAt`, each history entry's `at`) are stored as epoch ms when that is exact;
 * - `history`: starts with the `created` entry at `createdAt` (with the channel of `to`); the
 *   entries after it are stored as `later`, and a history that does not start so as `history`;
 * - `result` null, `partial` {}, `deliveries` [] and in each delivery `finalized` 'no', and in each
 *   question `multiSelect` false;
 * - a delivery's `channel`, `chat`, `thread` and `users`: those of the target of the same index
 *   (a delivery stored without `channel` has them all from there), and its message's `chat`: its own.
 */
export function compactRecord(record: AskRecord): string {
  const { to, targets, createdAt, history } = record;
  const r = record as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  // Plain loops rather than rest and spread: this runs on every write.
  for (const k in r) {
    const v = r[k];
    if (v === undefined || k in DERIVED) continue;
    if (k === 'version') {
      if (v !== 1) out.version = v;
    } else if (k === 'createdAt') out.createdAt = toMs(createdAt);
    else if (k === 'questions')
      out.questions = record.questions.map((q) => (q.multiSelect ? q : without(q, 'multiSelect')));
    else out[k] = v;
  }
  if (!sameJson(to, targets?.[0] ?? null)) out.to = to;
  if (targets === undefined) out.targets = null;
  else if (targets.length > 0) out.targets = targets;
  if (record.expiresAt !== deadlineOf(createdAt, record.timeoutSeconds)) out.expiresAt = record.expiresAt;
  if (record.result !== null) out.result = record.result;
  for (const _ in record.partial) {
    out.partial = record.partial;
    break;
  }
  if (record.deliveries.length > 0) out.deliveries = record.deliveries.map((d, i) => compactDelivery(d, targets?.[i]));
  if (history.length > 0 && isCreatedEntry(history[0]!, createdAt, to)) {
    if (history.length > 1) out.later = history.slice(1).map(compactEntry);
  } else out.history = history.map(compactEntry);
  return JSON.stringify(out);
}

/** Fields {@link compactRecord} writes in their own way (or not at all). */
const DERIVED: Record<string, true> = {
  id: true,
  runId: true,
  rev: true,
  status: true,
  to: true,
  targets: true,
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
function isCreatedEntry(entry: HistoryEntry, createdAt: string, to: AskRecord['to']): boolean {
  let keys = 0;
  for (const k in entry) if (entry[k as keyof HistoryEntry] !== undefined) keys++;
  return (
    entry.type === 'created' && entry.at === createdAt && (to ? entry.channel === to.channel && keys === 3 : keys === 2)
  );
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const EARLY = ['policy', 'reminded', 'escalated', 'responses', 'partials'] as const;
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
  const targets = c.targets === null ? undefined : (c.targets ?? []);
  const to = c.to !== undefined ? c.to : Array.isArray(targets) && targets.length > 0 ? targets[0] : null;
  if (Array.isArray(c.questions))
    for (const q of c.questions) if (isObject(q) && q.multiSelect === undefined) q.multiSelect = false;
  const deliveries = Array.isArray(c.deliveries)
    ? c.deliveries.map((d, i) => expandDelivery(d, Array.isArray(targets) ? targets[i] : undefined))
    : (c.deliveries ?? []);
  const history =
    c.history !== undefined
      ? expandEntries(c.history)
      : c.later !== undefined && !Array.isArray(c.later)
        ? c.later // not a compact history: for the schema to reject
        : [createdEntry(createdAt, to), ...(expandEntries(c.later ?? []) as unknown[])];
  const record: Record<string, unknown> = {
    id: head.id,
    runId: head.runId,
    version: c.version ?? 1,
    rev: head.rev,
    status: head.status,
    questions: c.questions,
    to,
  };
  if (targets !== undefined) record.targets = targets;
  for (const k of EARLY) if (c[k] !== undefined) record[k] = c[k];
  record.createdAt = createdAt;
  const expiresAt = c.expiresAt ?? deadlineOf(createdAt, c.timeoutSeconds);
  if (expiresAt !== undefined) record.expiresAt = expiresAt;
  record.timeoutSeconds = c.timeoutSeconds;
  record.result = c.result ?? null;
  record.partial = c.partial ?? {};
  record.deliveries = deliveries;
  for (const k of LATE) if (c[k] !== undefined) record[k] = c[k];
  record.history = history;
  return record;
}

/** An ISO time as epoch ms when that gives it back exactly (13 digits instead of 24 characters). */
function toMs(iso: string): string | number {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) && new Date(ms).toISOString() === iso ? ms : iso;
}

function fromMs(ms: number): unknown {
  const date = new Date(ms);
  return Number.isFinite(date.getTime()) ? date.toISOString() : ms;
}

function compactEntry(entry: HistoryEntry): Record<string, unknown> {
  const at = toMs(entry.at);
  if (at === entry.at) return entry;
  const out = without(entry, '');
  out.at = at;
  return out;
}

/** History entries with their times back as ISO times; anything else as it is. */
function expandEntries(entries: unknown): unknown {
  if (!Array.isArray(entries)) return entries;
  for (const e of entries) if (isObject(e) && typeof e.at === 'number') e.at = fromMs(e.at);
  return entries;
}

type Delivery = AskRecord['deliveries'][number];
type Target = NonNullable<AskRecord['targets']>[number];
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
  return out;
}

function expandDelivery(delivery: unknown, target: unknown): unknown {
  if (!isObject(delivery)) return delivery;
  const d = delivery;
  const place = d.channel === undefined && isObject(target) ? target : d;
  const out: Record<string, unknown> = { channel: place.channel, chat: place.chat };
  if (place.thread !== undefined) out.thread = place.thread;
  out.status = d.status;
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
  out.finalized = d.finalized ?? 'no';
  const users = place.users;
  if (users !== undefined) out.users = place === d ? users : Array.isArray(users) ? users.slice() : users;
  if (d.step !== undefined) out.step = d.step;
  if (d.reminded !== undefined) out.reminded = d.reminded;
  return out;
}

/** `createdAt` + `timeoutSeconds` as an ISO time, or undefined when either is not one. */
function deadlineOf(createdAt: unknown, timeoutSeconds: unknown): string | undefined {
  if (typeof createdAt !== 'string' || typeof timeoutSeconds !== 'number') return undefined;
  const at = Date.parse(createdAt) + timeoutSeconds * 1000;
  return Number.isFinite(at) && Math.abs(at) <= 8.64e15 ? new Date(at).toISOString() : undefined;
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
