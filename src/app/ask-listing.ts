import type { AskStore } from '../core/ports.js';
import type { AskRecord } from '../core/schemas.js';
import { askCursor, LIST_LIMIT_MAX, listedAsk, type ListAsksQuery } from '../core/ask-listing.js';

/**
 * Entries of the pending index one listing reads at most: a channel or agent filter that matches few asks
 * returns a short page (with its cursor) instead of reading the whole index in one request.
 */
const SCAN_MAX = 1_000;

/** One page of `GET /v1/asks`: pending asks, oldest first, and the cursor of the next page (null: none). */
export interface AskListing {
  asks: AskRecord[];
  nextCursor: string | null;
}

/** Lists pending asks for `GET /v1/asks`: a run's through the run (it has at most one), else the pending index. */
export async function listPendingAsks(
  store: Pick<AskStore, 'pendingAsks' | 'getRun'>,
  query: ListAsksQuery,
): Promise<AskListing> {
  const after = query.cursor ?? null;
  if (query.runId !== undefined) {
    // A new ask supersedes its run's pending one, so a run has at most one pending ask.
    const { current } = await store.getRun(query.runId, { pendingOnly: true });
    const listed = current !== null && listedAsk(current, query) && (after === null || askCursor(current) > after);
    return { asks: listed ? [current] : [], nextCursor: null };
  }
  const asks: AskRecord[] = [];
  let cursor = after;
  for (let scanned = 0; scanned < SCAN_MAX;) {
    const filtered = query.channel !== undefined || query.agent !== undefined;
    const batch = filtered ? LIST_LIMIT_MAX : query.limit - asks.length;
    const page = await store.pendingAsks(cursor, batch);
    scanned += batch;
    for (const entry of page.asks) {
      if (!listedAsk(entry.record, query)) continue;
      asks.push(entry.record);
      if (asks.length === query.limit) return { asks, nextCursor: entry.cursor };
    }
    if (page.next === null) return { asks, nextCursor: null };
    cursor = page.next;
  }
  return { asks, nextCursor: cursor };
}
