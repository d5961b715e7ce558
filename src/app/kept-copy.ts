import type { AskStore, KeptRecord } from '../core/ports.js';
import type { AskRecord } from '../core/schemas.js';

/**
 * The one rule for a kept copy of a record (the store's: `store.kept`, `store.peek`): it may let
 * the work go on, since the commit's compare-and-set rejects a stale one, but it never turns the
 * work away: a verdict on it that does not go on is made again on a fresh read (the record may
 * have moved on, or be gone). `judge` has no effects: it may run twice. Without a kept copy it
 * runs once, on the read.
 */
export async function keptOrFresh<V>(
  kept: KeptRecord | null | undefined | PromiseLike<KeptRecord | null>,
  read: () => Promise<AskRecord | null>,
  judge: (record: AskRecord | null) => V,
  goesOn: (verdict: V) => boolean,
): Promise<V> {
  const copy = await kept;
  if (copy) {
    // Shared, and read-only by its type: core only reads the record it is given (it builds a
    // new one for every change), so the copy goes in as it is.
    const verdict = judge(copy as AskRecord);
    if (goesOn(verdict)) return verdict;
  }
  return judge(await read());
}

/** What {@link judgeAsk} reads: the store's kept copy, and the record itself. */
export type KeptCopies = Pick<AskStore, 'kept' | 'get'>;

/**
 * {@link keptOrFresh} of ask `askId`, starting from the store's kept copy: the only way the shell
 * saves a read of a record. `fromKept` false: a fresh read only (the work must not start from a
 * copy that may be stale, e.g. a queued job another run may have done already, or a retry after a
 * compare-and-set found the copy stale).
 */
export function judgeAsk<V>(
  store: KeptCopies,
  askId: string,
  judge: (record: AskRecord | null) => V,
  goesOn: (verdict: V) => boolean,
  fromKept = true,
): Promise<V> {
  return keptOrFresh(fromKept ? store.kept(askId) : null, () => store.get(askId), judge, goesOn);
}
