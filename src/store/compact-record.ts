import type { AskRecord, HistoryEntry } from '../core/schemas.js';

/**
 * The compact stored form of a record (see `encodeAsk`): the JSON leaves out what the key and the
 * header already say (id, run id, rev, status) and every field equal to its default, which
 * {@link expandRecord} fills in again:
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
  const {
    id: _id,
    runId: _runId,
    rev: _rev,
    status: _status,
    to,
    targets,
    expiresAt,
    result,
    partial,
    deliveries,
    history,
    questions,
    ...rest
  } = record;
  const out: Record<string, unknown> = {
    ...rest,
    createdAt: toMs(record.createdAt),
    questions: questions.map(({ multiSelect, ...q }) => (multiSelect ? { ...q, multiSelect } : q)),
  };
  if (record.version === 1) delete out.version;
  if (!sameJson(to, targets?.[0] ?? null)) out.to = to;
  if (targets === undefined) out.targets = null;
  else if (targets.length > 0) out.targets = targets;
  if (expiresAt !== deadlineOf(record.createdAt, record.timeoutSeconds)) out.expiresAt = expiresAt;
  if (result !== null) out.result = result;
  if (Object.keys(partial).length > 0) out.partial = partial;
  if (deliveries.length > 0) out.deliveries = deliveries.map((d, i) => compactDelivery(d, targets?.[i]));
  if (history.length > 0 && sameJson(history[0], createdEntry(record.createdAt, to))) {
    if (history.length > 1) out.later = history.slice(1).map(compactEntry);
  } else out.history = history.map(compactEntry);
  return JSON.stringify(out);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The record of a compact JSON value (parsed) and the fields kept outside it; anything not shaped
 * like a compact record is returned as it is, for the schema to reject.
 */
export function expandRecord(
  compact: unknown,
  head: { id: string; runId: string; rev: number; status: string },
): unknown {
  if (!isObject(compact)) return compact;
  const { later, ...fields } = compact;
  if (typeof fields.createdAt === 'number') fields.createdAt = fromMs(fields.createdAt);
  fields.version ??= 1;
  const targets = fields.targets === null ? undefined : (fields.targets ?? []);
  const to = 'to' in fields ? fields.to : Array.isArray(targets) && targets.length > 0 ? targets[0] : null;
  const record: Record<string, unknown> = {
    ...fields,
    ...head,
    to,
    targets,
    expiresAt: fields.expiresAt ?? deadlineOf(fields.createdAt, fields.timeoutSeconds),
    result: fields.result ?? null,
    partial: fields.partial ?? {},
    deliveries: Array.isArray(fields.deliveries)
      ? fields.deliveries.map((d, i) => expandDelivery(d, Array.isArray(targets) ? targets[i] : undefined))
      : (fields.deliveries ?? []),
    history:
      'history' in fields
        ? expandEntries(fields.history)
        : later !== undefined && !Array.isArray(later)
          ? later // not a compact history: for the schema to reject
          : [createdEntry(fields.createdAt, to), ...((expandEntries(later ?? []) as unknown[]) ?? [])],
  };
  if (record.targets === undefined) delete record.targets;
  if (record.expiresAt === undefined) delete record.expiresAt;
  if (Array.isArray(fields.questions))
    record.questions = fields.questions.map((q) =>
      isObject(q) && q.multiSelect === undefined ? { ...q, multiSelect: false } : q,
    );
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
  return { ...entry, at: toMs(entry.at) };
}

/** History entries with their times back as ISO times; anything else as it is. */
function expandEntries(entries: unknown): unknown {
  if (!Array.isArray(entries)) return entries;
  return entries.map((e) => (isObject(e) && typeof e.at === 'number' ? { ...e, at: fromMs(e.at) } : e));
}

type Delivery = AskRecord['deliveries'][number];
type Target = NonNullable<AskRecord['targets']>[number];
const PLACE = ['channel', 'chat', 'thread', 'users'] as const;

function compactDelivery(delivery: Delivery, target: Target | undefined): Record<string, unknown> {
  const { finalized, message, ...d } = delivery;
  const out: Record<string, unknown> = { ...d };
  if (target && PLACE.every((k) => sameJson(delivery[k], target[k]))) for (const k of PLACE) delete out[k];
  if (message) {
    const { chat, ...ref } = message;
    out.message = chat === delivery.chat ? ref : message;
  }
  if (finalized !== 'no') out.finalized = finalized;
  return out;
}

function expandDelivery(delivery: unknown, target: unknown): unknown {
  if (!isObject(delivery)) return delivery;
  const out: Record<string, unknown> = { ...delivery };
  if (out.channel === undefined && isObject(target))
    for (const k of PLACE) if (target[k] !== undefined) out[k] = target[k];
  if (isObject(out.message) && out.message.chat === undefined) out.message = { chat: out.chat, ...out.message };
  if (out.finalized === undefined) out.finalized = 'no';
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
