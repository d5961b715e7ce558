// What one audit entry says about one history entry of an ask. Pure: the caller gives the digest
// (SHA-256 in the shell) used for free text and for finding the last audited entry again.
import type { AskRecord, HistoryEntry, Responder } from '../schemas.js';
import { canonicalJson } from '../canonical-json.js';

/** The kinds of audit entries: every history type, with an ask's ending named by what happened. */
export type AuditType =
  | Exclude<HistoryEntry['type'], 'answered' | 'no_answer'>
  | 'answered'
  | 'decided'
  | 'defaulted'
  | 'timed_out'
  | 'cancelled'
  | 'superseded'
  | 'skipped'
  | 'undelivered'
  | 'extended';

/** Who acted: the channel, the person's id there and the name shown for them (when known). */
export interface AuditActor {
  channel?: string;
  userId?: string;
  name?: string;
}

/** An audit entry before it is placed in the chain (no `seq`, `prev`, `recordedAt`, `hash` yet). */
export interface AuditBody {
  /** `<askId>/<n>`: the n-th history entry of the ask (from 0), the same whoever sequences it. */
  id: string;
  type: AuditType;
  /** When the transition happened (the history entry's time). */
  at: string;
  ask: string;
  run: string;
  agent?: string;
  actor?: AuditActor;
  /** Everything else the transition says (see {@link auditBodies}); free text only as the policy allows. */
  detail?: Record<string, unknown>;
}

/** How free text is kept: as it was written (`keep`), or only its digest (`hash`, the default). */
export type AuditTextPolicy = 'hash' | 'keep';

/** What {@link auditBodies} needs besides the record. */
export interface AuditMapping {
  text: AuditTextPolicy;
  /** `sha256:<hex>` of a UTF-8 string. */
  digest: (text: string) => string;
}

/** Where the sequencer is in one ask's history: entries audited, and the digest of the last one. */
export interface AuditCursor {
  count: number;
  last: string;
}

/** The digest that identifies a history entry (its canonical JSON: key order does not matter). */
export const entryDigest = (entry: HistoryEntry, digest: (text: string) => string): string =>
  digest(canonicalJson(entry));

/**
 * The history entries of `record` not audited yet, with their ordinal in the ask's whole history,
 * and the cursor after them. The stored history is capped (first entry kept, oldest after it
 * dropped): when the cursor's last entry is no longer where its count says, it is looked for by
 * digest; when it is gone too (more than the cap happened since it was read), the entries in
 * between are lost to the trail and `gap` says how many at least.
 */
export function freshEntries(
  history: readonly HistoryEntry[],
  cursor: AuditCursor | null,
  digest: (text: string) => string,
): { fresh: { entry: HistoryEntry; ordinal: number }[]; next: AuditCursor | null; gap: boolean } {
  const count = cursor?.count ?? 0;
  let start: number;
  let gap = false;
  if (count === 0) start = 0;
  else if (count <= history.length && entryDigest(history[count - 1]!, digest) === cursor!.last) start = count;
  else {
    const digests = history.map((e) => entryDigest(e, digest));
    const found = digests.lastIndexOf(cursor!.last);
    gap = found < 0;
    start = found >= 0 ? found + 1 : Math.min(1, history.length);
  }
  const fresh = history.slice(start).map((entry, i) => ({ entry, ordinal: count + i }));
  if (fresh.length === 0) return { fresh, next: cursor, gap };
  const last = fresh[fresh.length - 1]!;
  return { fresh, next: { count: last.ordinal + 1, last: entryDigest(last.entry, digest) }, gap };
}

const nameOf = (r: Pick<Responder, 'name' | 'username'> | undefined) => r?.name ?? r?.username;

/** The responder of `record` that is the person of `entry`, if any (for their display name). */
function responderOf(record: AskRecord, entry: HistoryEntry): Responder | undefined {
  if (!entry.userId) return undefined;
  const same = (r: Responder) => r.channel === entry.channel && r.userId === entry.userId;
  const result = record.result;
  const candidates = [
    ...(result?.status === 'answered' ? [result.answeredBy] : []),
    ...(result?.status === 'no_answer' && result.by ? [result.by] : []),
    ...(record.responses ?? []).map((r) => r.answeredBy),
    ...(result?.responses ?? []).map((r) => r.answeredBy),
  ];
  return candidates.find(same);
}

/** Free text as the policy keeps it: itself, or `<name>Sha256` with its digest. */
function text(m: AuditMapping, name: string, value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  const plain = typeof value === 'string' ? value : canonicalJson(value);
  return m.text === 'keep' ? { [name]: value } : { [`${name}Sha256`]: m.digest(plain) };
}

/**
 * Answer values with the person's own words as the policy keeps them: a text question's value and a
 * choice's value that is none of its options become `sha256:<hex>` of the text unless `keep`.
 */
function maskValues(record: AskRecord, values: Record<string, unknown>, m: AuditMapping): Record<string, unknown> {
  if (m.text === 'keep') return values;
  const own = (id: string, v: unknown): unknown => {
    const q = record.questions.find((x) => x.id === id) as
      { kind?: string; options?: readonly { label: string }[] } | undefined;
    if (typeof v !== 'string' || !q) return v;
    const free =
      q.kind === 'text' || ((q.kind === undefined || q.kind === 'choice') && !q.options?.some((o) => o.label === v));
    return free ? m.digest(v) : v;
  };
  return Object.fromEntries(
    Object.entries(values).map(([id, v]) => [id, Array.isArray(v) ? v.map((x) => own(id, x)) : own(id, v)]),
  );
}

/** What an ending or answer adds: values, decision, hashes, and the text as the policy allows. */
function outcomeDetail(record: AskRecord, m: AuditMapping): { type: AuditType; detail: Record<string, unknown> } {
  const result = record.result;
  if (result?.status === 'answered') {
    const approval = record.approval;
    if (approval) {
      return {
        type: 'decided',
        detail: {
          decision: result.decision,
          action: approval.action,
          actionHash: result.actionHash ?? approval.actionHash,
          effectiveHash: result.effectiveHash,
          ...text(m, 'reason', result.reason),
        },
      };
    }
    const values = maskValues(record, result.values ?? result.answers, m);
    return { type: 'answered', detail: { values, ...text(m, 'raw', result.raw) } };
  }
  if (result?.status === 'no_answer') {
    const defaulted = result.reason === 'timeout' && (result.defaults !== undefined || result.decision !== undefined);
    const type: AuditType = defaulted ? 'defaulted' : result.reason === 'timeout' ? 'timed_out' : result.reason;
    return {
      type,
      detail: {
        ...(result.values || result.defaults ? { values: result.values ?? result.defaults } : {}),
        ...(result.decision ? { decision: result.decision } : {}),
        ...(record.approval ? { action: record.approval.action, actionHash: record.approval.actionHash } : {}),
      },
    };
  }
  return { type: 'answered', detail: {} };
}

/** What one person's response (`agree` > 1) adds: their values or decision, text as the policy allows. */
function responseDetail(record: AskRecord, entry: HistoryEntry, m: AuditMapping): Record<string, unknown> {
  const response = (record.responses ?? (record.result?.responses as typeof record.responses) ?? []).find(
    (r) => r.answeredBy.channel === entry.channel && r.answeredBy.userId === entry.userId && r.answeredAt === entry.at,
  );
  if (!response) return {};
  return {
    ...(response.decision ? { decision: response.decision } : { values: maskValues(record, response.answers, m) }),
    ...(record.approval ? { action: record.approval.action, actionHash: record.approval.actionHash } : {}),
    ...text(m, 'reason', response.reason),
    ...text(m, 'raw', response.raw),
  };
}

/** The fields of a history entry every type carries over (never free text: history holds none). */
function plainDetail(entry: HistoryEntry): Record<string, unknown> {
  const { type: _t, at: _a, channel: _c, userId: _u, ...rest } = entry;
  return rest;
}

/** What a `created` entry adds: the kind of ask, its questions' ids, an approval's action and hash. */
function createdDetail(record: AskRecord): Record<string, unknown> {
  return {
    kind: record.approval ? 'approval' : 'questions',
    ...(record.approval
      ? { action: record.approval.action, actionHash: record.approval.actionHash }
      : { questions: record.questions.map((q) => q.id) }),
    expiresAt: record.expiresAt,
    targets: record.targets.map((t) => t.channel),
  };
}

/**
 * The audit bodies of `fresh` history entries of `record`. An ending (`answered`, `no_answer`)
 * becomes what happened (`decided` for an approval, `defaulted`, `timed_out`, `cancelled`, ...) with
 * the normalized values, an approval's action and both hashes; free text (an approval's reason,
 * what people wrote for typed questions) only when the policy keeps it, else its digest.
 */
export function auditBodies(
  record: AskRecord,
  fresh: readonly { entry: HistoryEntry; ordinal: number }[],
  m: AuditMapping,
): AuditBody[] {
  return fresh.map(({ entry, ordinal }) => {
    let type: AuditType = entry.type as AuditType;
    let detail: Record<string, unknown> = plainDetail(entry);
    if (entry.type === 'created') detail = { ...detail, ...createdDetail(record) };
    else if (entry.type === 'answered' || entry.type === 'no_answer') {
      const outcome = outcomeDetail(record, m);
      type = outcome.type;
      detail = { ...detail, ...outcome.detail };
    } else if (entry.type === 'response') detail = { ...detail, ...responseDetail(record, entry, m) };
    const responder = responderOf(record, entry);
    const actor: AuditActor = { channel: entry.channel, userId: entry.userId, name: nameOf(responder) };
    const hasActor = actor.channel !== undefined || actor.userId !== undefined;
    const cleaned = Object.fromEntries(Object.entries(detail).filter(([, v]) => v !== undefined));
    return {
      id: `${record.id}/${ordinal}`,
      type,
      at: entry.at,
      ask: record.id,
      run: record.runId,
      ...(record.agent !== undefined && { agent: record.agent }),
      ...(hasActor && { actor: JSON.parse(JSON.stringify(actor)) as AuditActor }),
      ...(Object.keys(cleaned).length > 0 && { detail: cleaned }),
    };
  });
}
