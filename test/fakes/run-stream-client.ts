import type { RunView, StreamedHistoryEvent } from '../../src/client/index.js';

type Current = { id: string; status: string; version: number } | null;

/**
 * A stand-in for the SDK client's run read and run event stream, driven by the test: what `run()`
 * answers (or that it fails), and each stream's entries, opening, end or failure. For the guard's
 * ordering cases a real askgate cannot produce on demand (a read older than the stream, a skipped end).
 */
export class RunStreamClient {
  /** What the next `run()` answers: the current ask, or an error to throw. */
  current: Current | Error = null;
  /** Holds `run()` until released (a read slower than the stream). */
  runGate: Promise<void> = Promise.resolve();
  /** Streams opened so far, newest last. */
  readonly streams: FakeStream[] = [];
  /** Whether new streams open (else they fail as a refused connection would). */
  reachable = true;
  /** New streams neither open nor fail until aborted (an askgate that accepts and never answers). */
  hangs = false;
  reads = 0;

  async run(runId: string): Promise<RunView> {
    this.reads++;
    await this.runGate;
    const current = this.current;
    if (current instanceof Error) throw current;
    return { runId, current: current as RunView['current'], history: [] };
  }

  streamRunEvents(
    _runId: string,
    opts: { signal?: AbortSignal; lastEventId?: string; onOpen?: () => void } = {},
  ): AsyncGenerator<StreamedHistoryEvent> {
    const stream = new FakeStream(opts.lastEventId, opts.signal);
    this.streams.push(stream);
    const { reachable, hangs } = this;
    return (async function* () {
      if (!reachable) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      if (hangs) {
        await new Promise((resolve) => opts.signal?.addEventListener('abort', resolve, { once: true }));
        throw new Error('aborted');
      }
      opts.onOpen?.();
      yield* stream.entries();
    })();
  }

  /** The newest stream. */
  get last(): FakeStream {
    return this.streams.at(-1)!;
  }
}

/** One open stream: entries pushed by the test, ended or failed by it (or by the caller's abort). */
export class FakeStream {
  private readonly queue: (StreamedHistoryEvent | 'end' | Error)[] = [];
  private wake: (() => void) | null = null;
  aborted = false;

  constructor(
    readonly lastEventId: string | undefined,
    signal: AbortSignal | undefined,
  ) {
    signal?.addEventListener('abort', () => {
      this.aborted = true;
      this.push('end');
    });
  }

  /** Sends an entry of ask `askId` (version `version`, position `index`). */
  entry(type: StreamedHistoryEvent['type'], askId: string, version: number, index: number): void {
    const at = new Date().toISOString();
    this.push({ type, at, askId, version, index, id: `${version}.${index}` });
  }

  end(): void {
    this.push('end');
  }

  fail(): void {
    this.push(new Error('socket hang up'));
  }

  private push(item: StreamedHistoryEvent | 'end' | Error): void {
    this.queue.push(item);
    this.wake?.();
  }

  async *entries(): AsyncGenerator<StreamedHistoryEvent> {
    for (;;) {
      const item = this.queue.shift();
      if (item === undefined) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = null;
        continue;
      }
      if (item === 'end') return;
      if (item instanceof Error) throw item;
      yield item;
    }
  }
}
