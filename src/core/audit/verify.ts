// Offline verification of an audit export (JSON Lines ending with a checkpoint). Pure: the shell
// gives the hash and the signature check. It names the first entry, in file order, that was
// changed, removed, inserted or reordered, then checks the checkpoint against what the lines hold.
import type { AuditEntry, EntryHasher } from './chain.js';

/** The last line of an export: what it covers, and (signed) that askgate wrote exactly that. */
export interface AuditCheckpoint {
  type: 'checkpoint';
  v: 1;
  /** The range asked for (ISO times, `recordedAt` of the entries). */
  from: string;
  to: string;
  count: number;
  /** The `prev` of the first entry: the hash of the entry before the range (trimmed or not exported). */
  anchor: string;
  /** The hash of the last entry (the anchor when the range is empty). */
  lastHash: string;
  firstSeq?: number;
  lastSeq?: number;
  /** False when the range held more than one response may carry: continue with `next`. */
  complete: boolean;
  /** The `after` of the request that continues this one. */
  next?: string;
  /** When the checkpoint was made. */
  madeAt: string;
  signed: boolean;
  /** First 16 hex digits of the SHA-256 of the public key (SPKI DER). */
  keyId?: string;
  /** Ed25519 over the RFC 8785 canonical JSON of the checkpoint without `signature`, base64. */
  signature?: string;
}

/** What went wrong, for the first problem found. */
export type AuditProblem =
  'malformed' | 'changed' | 'removed' | 'inserted' | 'reordered' | 'anchor' | 'checkpoint' | 'signature';

/** The outcome of {@link verifyAuditLines}. */
export type AuditVerdict =
  | {
      ok: true;
      count: number;
      lastHash: string;
      signature: 'valid' | 'unsigned' | 'not_checked';
      checkpoint: AuditCheckpoint;
    }
  | { ok: false; problem: AuditProblem; line: number; seq?: number; message: string };

/** What {@link verifyAuditLines} needs. */
export interface VerifyOptions {
  hashOf: EntryHasher;
  /** Checks a signature over the checkpoint without it; absent: no public key was given. */
  checkSignature?: (unsigned: Omit<AuditCheckpoint, 'signature'>, signature: string) => boolean;
  /** The hash the first entry must follow (the `lastHash` of a checkpoint the auditor kept). */
  anchor?: string;
}

const fail = (problem: AuditProblem, line: number, message: string, seq?: number): AuditVerdict => ({
  ok: false,
  problem,
  line,
  message,
  ...(seq !== undefined && { seq }),
});

const isEntry = (v: unknown): v is AuditEntry => {
  const e = v as Partial<AuditEntry> | null;
  return (
    !!e &&
    typeof e === 'object' &&
    Number.isSafeInteger(e.seq) &&
    typeof e.hash === 'string' &&
    typeof e.prev === 'string'
  );
};

const name = (e: AuditEntry, line: number) => `entry ${e.seq} (${String(e.id)}, line ${line})`;

/** Verifies the lines of an export (empty lines ignored); see the module comment. */
export function verifyAuditLines(text: readonly string[], opts: VerifyOptions): AuditVerdict {
  const lines = text.map((l, i) => ({ l: l.trim(), n: i + 1 })).filter((x) => x.l !== '');
  const parsed: { v: unknown; n: number }[] = [];
  for (const { l, n } of lines) {
    try {
      parsed.push({ v: JSON.parse(l) as unknown, n });
    } catch {
      return fail('malformed', n, `line ${n} is not JSON`);
    }
  }
  const last = parsed.pop();
  const cp = last?.v as AuditCheckpoint | undefined;
  if (!last || !cp || cp.type !== 'checkpoint')
    return fail('checkpoint', last?.n ?? 0, 'no checkpoint line at the end: the export is cut or is not one');
  const entries: { e: AuditEntry; n: number }[] = [];
  for (const { v, n } of parsed) {
    if ((v as { type?: unknown })?.type === 'checkpoint')
      return fail('inserted', n, `line ${n} is a checkpoint in the middle of the entries`);
    if (!isEntry(v)) return fail('malformed', n, `line ${n} is not an audit entry (seq, prev and hash)`);
    entries.push({ e: v, n });
  }
  const entryVerdict = checkEntries(entries, opts);
  if (entryVerdict) return entryVerdict;
  return checkCheckpoint(cp, last.n, entries, opts);
}

function checkEntries(entries: { e: AuditEntry; n: number }[], opts: VerifyOptions): AuditVerdict | null {
  const lineOfSeq = new Map<number, number[]>();
  entries.forEach(({ e }, i) => lineOfSeq.set(e.seq, [...(lineOfSeq.get(e.seq) ?? []), i]));
  const laterHas = (seq: number, i: number) => (lineOfSeq.get(seq) ?? []).some((j) => j > i);
  for (let i = 0; i < entries.length; i++) {
    const { e, n } = entries[i]!;
    const { hash, ...unhashed } = e;
    if (opts.hashOf(unhashed) !== hash)
      return fail('changed', n, `${name(e, n)} was changed: its content does not match its hash`, e.seq);
    if (i === 0) {
      if (opts.anchor !== undefined && e.prev !== opts.anchor)
        return fail('anchor', n, `${name(e, n)} does not follow the anchor given: its prev is ${e.prev}`, e.seq);
      continue;
    }
    const p = entries[i - 1]!;
    if (e.seq === p.e.seq + 1) {
      if (e.prev !== p.e.hash)
        return fail('changed', p.n, `${name(p.e, p.n)} was changed: the entry after it recorded another hash`, p.e.seq);
      continue;
    }
    if (e.seq <= p.e.seq) {
      const earlier = (lineOfSeq.get(e.seq) ?? []).find((j) => j < i);
      if (earlier === undefined)
        return fail('reordered', n, `${name(e, n)} is out of order: it comes after entry ${p.e.seq}`, e.seq);
      // Two entries claim one position: the genuine one is the one its successor links to.
      const follower = entries[i + 1]?.e;
      const inserted =
        follower?.prev === e.hash && entries[earlier]!.e.prev === e.prev ? entries[earlier]! : entries[i]!;
      return fail(
        'inserted',
        inserted.n,
        `${name(inserted.e, inserted.n)} was inserted: its position is taken`,
        inserted.e.seq,
      );
    }
    for (let missing = p.e.seq + 1; missing < e.seq; missing++) {
      if (laterHas(missing, i))
        return fail('reordered', n, `${name(e, n)} is out of order: entry ${missing} comes after it`, e.seq);
    }
    return fail('removed', n, `entry ${p.e.seq + 1} was removed (between line ${p.n} and line ${n})`, p.e.seq + 1);
  }
  return null;
}

function checkCheckpoint(
  cp: AuditCheckpoint,
  line: number,
  entries: { e: AuditEntry; n: number }[],
  opts: VerifyOptions,
): AuditVerdict {
  const { signature, ...unsigned } = cp;
  let sig: 'valid' | 'unsigned' | 'not_checked' = 'not_checked';
  if (opts.checkSignature) {
    if (!cp.signed || !signature)
      return fail('signature', line, 'the checkpoint is not signed (askgate had no ASKGATE_AUDIT_SIGNING_KEY)');
    if (!opts.checkSignature(unsigned, signature))
      return fail(
        'signature',
        line,
        'the checkpoint was altered or signed by another key: its signature does not verify',
      );
    sig = 'valid';
  } else if (!cp.signed) sig = 'unsigned';
  const first = entries[0]?.e;
  const lastEntry = entries[entries.length - 1];
  if (first && cp.anchor !== first.prev)
    return fail('checkpoint', line, `the checkpoint's anchor is not the first entry's prev (${first.prev})`);
  if (!first && opts.anchor !== undefined && cp.anchor !== opts.anchor)
    return fail('anchor', line, `the checkpoint's anchor is not the anchor given`);
  if (lastEntry && cp.lastSeq !== undefined && lastEntry.e.seq < cp.lastSeq)
    return fail(
      'removed',
      line,
      `entry ${lastEntry.e.seq + 1} was removed (the checkpoint ends at entry ${cp.lastSeq})`,
      lastEntry.e.seq + 1,
    );
  if (lastEntry && cp.lastSeq !== undefined && lastEntry.e.seq > cp.lastSeq)
    return fail(
      'inserted',
      lastEntry.n,
      `${name(lastEntry.e, lastEntry.n)} was inserted after the checkpoint's last entry ${cp.lastSeq}`,
      lastEntry.e.seq,
    );
  if (cp.count !== entries.length)
    return fail('checkpoint', line, `the checkpoint counts ${cp.count} entries, the file holds ${entries.length}`);
  const lastHash = lastEntry?.e.hash ?? cp.anchor;
  if (cp.lastHash !== lastHash)
    return fail('checkpoint', line, `the checkpoint's lastHash is not the last entry's hash (${lastHash})`);
  for (const { e, n } of entries) {
    if (e.recordedAt < cp.from || e.recordedAt > cp.to)
      return fail(
        'checkpoint',
        n,
        `${name(e, n)} was recorded at ${e.recordedAt}, outside the checkpoint's range`,
        e.seq,
      );
  }
  return { ok: true, count: entries.length, lastHash, signature: sig, checkpoint: cp };
}
