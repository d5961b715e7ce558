// Placing audit bodies in the chain: each entry carries its position, the previous entry's hash and
// its own. Pure: the shell gives the hash (SHA-256 over the RFC 8785 canonical JSON).
import type { AuditBody } from './entry.js';

/** The `prev` of the chain's first entry. */
export const GENESIS_HASH = `sha256:${'0'.repeat(64)}`;

/** Version of the entry format; part of every entry (and so of its hash). */
export const AUDIT_FORMAT = 1;

/** One entry of the audit chain as stored and exported. */
export interface AuditEntry extends AuditBody {
  v: typeof AUDIT_FORMAT;
  /** Position in the deployment's chain, from 1, without gaps. */
  seq: number;
  /** The previous entry's `hash` ({@link GENESIS_HASH} for the first). */
  prev: string;
  /** When the sequencer appended it (ms-precise; never earlier than the entry before). */
  recordedAt: string;
  /** `sha256:<hex>` of the RFC 8785 canonical JSON of this entry without `hash`. */
  hash: string;
}

/** The chain's last entry as far as appending goes. */
export interface ChainHead {
  seq: number;
  hash: string;
  /** `recordedAt` of the last entry, in ms (0 for an empty chain). */
  ms: number;
}

/** The head of a chain with nothing in it. */
export const EMPTY_HEAD: ChainHead = { seq: 0, hash: GENESIS_HASH, ms: 0 };

/** Hashes an entry without its `hash`: `sha256:<hex>` of its canonical JSON. */
export type EntryHasher = (unhashed: Omit<AuditEntry, 'hash'>) => string;

/**
 * `bodies` placed after `head` at time `nowMs` (kept at or after the head's time, so the chain's
 * times never go back even when replicas' clocks differ), and the head after them.
 */
export function chainEntries(
  head: ChainHead,
  bodies: readonly AuditBody[],
  nowMs: number,
  hashOf: EntryHasher,
): { entries: AuditEntry[]; head: ChainHead } {
  const ms = Math.max(nowMs, head.ms);
  const recordedAt = new Date(ms).toISOString();
  let { seq, hash } = head;
  const entries = bodies.map((body) => {
    const unhashed = { ...body, v: AUDIT_FORMAT, seq: ++seq, prev: hash, recordedAt } as const;
    hash = hashOf(unhashed);
    return { ...unhashed, hash };
  });
  return { entries, head: { seq, hash, ms } };
}
