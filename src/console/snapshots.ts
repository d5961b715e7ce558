import type { AskStore } from '../core/ports.js';
import type { AskRecord } from '../core/schemas.js';
import type { ConsoleAsk } from './view.js';

/** Asks sent to a console when it connects: every pending one among these, and the newest finished. */
const SNAPSHOT_SCAN = 300;
const SNAPSHOT_FINISHED = 100;

interface Read {
  /** The change count when the read began. */
  version: number;
  done: Promise<Buffer>;
}

/**
 * The asks a console starts from, read once per change and shared by every console that
 * connects meanwhile: the serialized `asks` list (the rest of the `snapshot` event after its
 * per-stream head), one Buffer for all.
 *
 * Correctness rests on the order of reads and announcements. A change is announced (the hub calls
 * {@link invalidate}) after it was committed, so a read that began after every announcement so far
 * holds every change announced so far; a stream that registers for announcements before it asks
 * here receives every later one after its snapshot. So a stream may take a snapshot, cached or in
 * flight, only while nothing was announced since its read began; otherwise a new read begins (one
 * at a time: the streams that came meanwhile share the next).
 */
export class ConsoleSnapshots {
  private version = 0;
  private cached: { version: number; chunk: Buffer } | null = null;
  private reading: Read | null = null;

  constructor(
    private readonly store: Pick<AskStore, 'recent'>,
    /** The console view of a record, or null to leave it out. */
    private readonly view: (record: AskRecord) => ConsoleAsk | null,
  ) {}

  /** Forgets the current snapshot: something changed (or changes may have gone unseen). */
  invalidate(): void {
    this.version++;
    this.cached = null;
  }

  /** The serialized asks as of a read that began after the latest {@link invalidate}. */
  async current(): Promise<Buffer> {
    for (;;) {
      if (this.cached?.version === this.version) return this.cached.chunk;
      const reading = this.reading;
      if (reading?.version === this.version) return reading.done;
      if (reading) {
        await reading.done.catch(() => undefined);
        continue;
      }
      return this.read().done;
    }
  }

  private read(): Read {
    const version = this.version;
    const done = this.store
      .recent(SNAPSHOT_SCAN)
      .then((recent) => {
        const pending = recent.filter((r) => r.status === 'pending');
        const finished = recent.filter((r) => r.status !== 'pending').slice(0, SNAPSHOT_FINISHED);
        const asks = [...pending, ...finished].flatMap((r) => this.view(r) ?? []);
        const chunk = Buffer.from(`${JSON.stringify(asks)}}\n\n`);
        if (this.version === version) this.cached = { version, chunk };
        return chunk;
      })
      .finally(() => {
        if (this.reading === read) this.reading = null;
      });
    const read: Read = { version, done };
    this.reading = read;
    return read;
  }
}
