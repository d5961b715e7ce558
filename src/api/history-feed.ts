import type { AskStore, Logger, ResultBus } from '../core/ports.js';
import type { AskRecord } from '../core/schemas.js';

/** How many asks of a run the event routes replay, and re-read after a resync. */
export const RUN_REPLAY_LIMIT = 50;

/** What a stream gives the feed: it is told each record read for it (and when its ask is gone). */
export interface FeedFollower {
  /** A record of the ask or run followed, as read (maybe older than one already given: compare `rev`). */
  receive(record: AskRecord): void;
  /** The ask followed is gone (expired or deleted). Asks' streams only. */
  gone(): void;
}

/** The caps of {@link HistoryFeed}. */
export interface FeedLimits {
  /** Open streams of one run, and of one ask. */
  perKey: number;
  /** Open streams in this process, of every run and ask. */
  total: number;
}

/** Why {@link HistoryFeed.join} refused a stream. */
export type FeedRefusal = { refused: 'key' | 'total'; limit: number };

/**
 * The one reader behind every event stream of this process. Streams of an ask or a run join it; one
 * history subscription on the result bus while any stream is open; each announced change of an ask
 * that some stream follows (by ask id or run id) is read once (`store.get`) and handed to every
 * such stream. Reads of one ask never overlap (an announcement during a read takes one more read
 * after it), so a later read is never overtaken by an earlier one; after a resync each followed run
 * is read once (`store.history`) and each followed ask once. Reads of different asks run together.
 */
export class HistoryFeed {
  private readonly asks = new Map<string, Set<FeedFollower>>();
  private readonly runs = new Map<string, Set<FeedFollower>>();
  /** Asks being read, and whether another read was asked for meanwhile. */
  private readonly reading = new Map<string, boolean>();
  private total = 0;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly deps: {
      store: Pick<AskStore, 'get' | 'history'>;
      bus: Pick<ResultBus, 'subscribeHistory' | 'onResync'>;
      logger: Pick<Logger, 'warn'>;
      limits: FeedLimits;
    },
  ) {}

  /** Open streams in this process. */
  get size(): number {
    return this.total;
  }

  /** Adds a stream of ask or run `id`; returns its leave function, or why it is refused (a cap is reached). */
  join(kind: 'ask' | 'run', id: string, follower: FeedFollower): (() => void) | FeedRefusal {
    const { perKey, total } = this.deps.limits;
    if (this.total >= total) return { refused: 'total', limit: total };
    const map = kind === 'ask' ? this.asks : this.runs;
    let set = map.get(id);
    if ((set?.size ?? 0) >= perKey) return { refused: 'key', limit: perKey };
    if (!set) map.set(id, (set = new Set()));
    set.add(follower);
    this.total++;
    if (!this.unsubscribe) this.subscribe();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      set.delete(follower);
      if (set.size === 0 && map.get(id) === set) map.delete(id);
      if (--this.total === 0) this.close();
    };
  }

  /** Drops the bus subscription (every stream left, or the server closes). */
  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  private subscribe(): void {
    const offHistory = this.deps.bus.subscribeHistory((askId, runId) => {
      if (this.asks.has(askId) || this.runs.has(runId)) this.read(askId);
    });
    const offResync = this.deps.bus.onResync(() => this.resync());
    this.unsubscribe = () => {
      offHistory();
      offResync();
    };
  }

  /** Reads `askId` now, or once more after the read under way. */
  private read(askId: string): void {
    if (this.reading.has(askId)) {
      this.reading.set(askId, true);
      return;
    }
    this.reading.set(askId, false);
    void this.readUntilQuiet(askId);
  }

  private async readUntilQuiet(askId: string): Promise<void> {
    try {
      do {
        this.reading.set(askId, false);
        try {
          this.dispatch(askId, await this.deps.store.get(askId));
        } catch (error) {
          this.failed(error);
        }
      } while (this.reading.get(askId));
    } finally {
      this.reading.delete(askId);
    }
  }

  /** Announcements may have been lost: every followed ask and run read again. */
  private resync(): void {
    for (const askId of this.asks.keys()) this.read(askId);
    for (const runId of this.runs.keys()) {
      this.deps.store.history(runId, RUN_REPLAY_LIMIT).then(
        (records) => records.forEach((record) => this.handOut(this.runs.get(runId), record)),
        (error: unknown) => this.failed(error),
      );
    }
  }

  private dispatch(askId: string, record: AskRecord | null): void {
    const followers = this.asks.get(askId);
    if (!record) {
      for (const follower of [...(followers ?? [])]) follower.gone();
      return;
    }
    this.handOut(followers, record);
    this.handOut(this.runs.get(record.runId), record);
  }

  private handOut(followers: Set<FeedFollower> | undefined, record: AskRecord): void {
    if (!followers) return;
    // A follower may leave while it receives (its stream closes): iterate over a copy.
    for (const follower of [...followers]) {
      try {
        follower.receive(record);
      } catch (error) {
        this.failed(error);
      }
    }
  }

  private failed(error: unknown): void {
    this.deps.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'event stream read failed');
  }
}
