import { isDone } from '../core/record-state.js';
import type { AskRecord, HistoryEntry } from '../core/schemas.js';
import type { FeedFollower } from './history-feed.js';
import { HistoryCursor } from './history-cursor.js';

/** One history entry as the event routes send it. */
export type Sent = HistoryEntry & { askId: string; index: number; version?: number };

/** One server-sent event: its id, its data and the stored entry it was made from. */
export type Frame = { id: string; data: Sent; entry: HistoryEntry };

/** Each entry's encoded frame as last made, with the key it was made for (`<askId> <id>`). */
const encoded = new WeakMap<HistoryEntry, { key: string; bytes: Buffer }>();

/**
 * The bytes of `frame`. Every stream of an ask or a run is handed the same record object, so the
 * frame is serialised and encoded once per entry and shared (an entry object kept into a later
 * record, at another position after a trim, is made again: the key differs).
 */
export function frameBytes(frame: Frame): Buffer {
  const key = `${frame.data.askId} ${frame.id}`;
  const kept = encoded.get(frame.entry);
  if (kept?.key === key) return kept.bytes;
  const bytes = Buffer.from(`id: ${frame.id}\nevent: ${frame.data.type}\ndata: ${JSON.stringify(frame.data)}\n\n`);
  encoded.set(frame.entry, { key, bytes });
  return bytes;
}

/** Where a follower's frames go once its stream is open. */
export interface FrameSink {
  /** Sends frames (one batch: a slow reader is checked before it, never halfway). */
  write(frames: Frame[]): void;
  /** Ends the stream. */
  end(): void;
}

/**
 * One stream's place in what it follows. Records the feed hands over before the stream is open
 * (while its first read is under way) are kept, newest per ask, and applied once it opens; a
 * record no newer (`rev`) than one already applied for its ask is ignored, so reads that
 * overlap (a resync, the first read) never send an older state after a newer one.
 */
abstract class Follower implements FeedFollower {
  private early: Map<string, AskRecord> | null = new Map();
  private sink: FrameSink | null = null;
  private readonly revs = new Map<string, number>();
  private gonePending = false;

  receive(record: AskRecord): void {
    if (this.early) {
      const kept = this.early.get(record.id);
      if (!kept || kept.rev < record.rev) this.early.set(record.id, record);
      return;
    }
    const frames = this.fresh(record);
    if (frames.length > 0) this.sink?.write(frames);
    if (this.ends(record)) this.sink?.end();
  }

  gone(): void {
    if (this.sink) this.sink.end();
    else this.gonePending = true;
  }

  /** Opens onto `sink`: `first` (the stream's first read, as frames), then what arrived meanwhile. */
  open(sink: FrameSink, first: Frame[]): void {
    this.sink = sink;
    if (first.length > 0) sink.write(first);
    const early = [...(this.early?.values() ?? [])];
    this.early = null;
    for (const record of early) this.receive(record);
    if (this.gonePending) sink.end();
  }

  /** The entries of `record` not sent yet (none when it is not newer than the last applied), marked sent. */
  protected fresh(record: AskRecord): Frame[] {
    const rev = this.revs.get(record.id);
    if (rev !== undefined && record.rev <= rev) return [];
    this.revs.set(record.id, record.rev);
    return this.entries(record);
  }

  /** The frames of `record`'s entries its cursor has not sent yet. */
  protected abstract entries(record: AskRecord): Frame[];

  /** True when the stream ends once `record` is sent. */
  protected ends(_record: AskRecord): boolean {
    return false;
  }
}

/** An ask's stream: ids are history positions; it ends once the ask is done and its last entries sent. */
export class AskFollower extends Follower {
  private readonly cursor: HistoryCursor;

  constructor(lastEventId: string | undefined) {
    super();
    const last = Number.parseInt(lastEventId ?? '-1', 10);
    this.cursor = new HistoryCursor(Number.isFinite(last) && last >= 0 ? last + 1 : 0);
  }

  /** The frames the stream starts with, from its first read of the ask. */
  first(record: AskRecord): Frame[] {
    return this.fresh(record);
  }

  protected entries(record: AskRecord): Frame[] {
    return this.cursor
      .fresh(record.history)
      .map(({ entry, index }) => ({ id: String(index), data: { ...entry, askId: record.id, index }, entry }));
  }

  protected override ends(record: AskRecord): boolean {
    return isDone(record);
  }
}

/** A run's stream: ids are `<version>.<index>`; every ask of the run, each from where `Last-Event-ID` left it. */
export class RunFollower extends Follower {
  private readonly cursors = new Map<string, HistoryCursor>();
  private readonly lastVersion: number | undefined;
  private readonly lastIndex: number | undefined;

  constructor(lastEventId: string | undefined) {
    super();
    [this.lastVersion, this.lastIndex] = (lastEventId ?? '').split('.').map((n) => Number.parseInt(n, 10));
  }

  /** The frames the stream starts with, from its first read of the run's asks, in time order. */
  first(records: readonly AskRecord[]): Frame[] {
    return records.flatMap((record) => this.fresh(record)).sort(chronologically);
  }

  protected entries(record: AskRecord): Frame[] {
    let cursor = this.cursors.get(record.id);
    if (!cursor) this.cursors.set(record.id, (cursor = new HistoryCursor(this.startOf(record))));
    return cursor.fresh(record.history).map(({ entry, index }) => ({
      id: `${record.version}.${index}`,
      data: { ...entry, askId: record.id, version: record.version, index },
      entry,
    }));
  }

  /** Where this stream starts in `record`, given `Last-Event-ID: <version>.<index>`. */
  private startOf(record: AskRecord): number {
    const { lastVersion, lastIndex } = this;
    if (lastVersion === undefined || !Number.isFinite(lastVersion)) return 0;
    if (record.version < lastVersion) return record.history.length;
    if (record.version > lastVersion) return 0;
    return lastIndex !== undefined && Number.isFinite(lastIndex) ? lastIndex + 1 : 0;
  }
}

/** Frames of several asks in time order (ties: older ask, then position). */
function chronologically({ data: a }: Frame, { data: b }: Frame): number {
  return a.at.localeCompare(b.at) || (a.version ?? 0) - (b.version ?? 0) || a.index - b.index;
}
