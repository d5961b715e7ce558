import type { AskgateClient, StreamedHistoryEvent } from '../client/index.js';

/** What {@link RunState} needs of the SDK client. */
export type RunStateClient = Pick<AskgateClient, 'run' | 'streamRunEvents'>;

/** How {@link RunState} retries (ms). */
export interface RunStateTiming {
  /** First delay before reopening a stream that ended or failed (doubling up to `maxBackoffMs`). */
  backoffMs: number;
  maxBackoffMs: number;
  /** The longest opening the stream and reading the run may take before the attempt counts as failed. */
  openTimeoutMs: number;
}

/** How many ended asks are remembered (to ignore a replayed `created` of an ask that ended). */
const ENDED_KEPT = 1024;

/**
 * What a tool guard knows of one run: which of its asks are open, and whether that is known.
 *
 * It reads the run once (`GET /v1/runs/:runId`) and follows the run's event stream, resuming from the
 * last event id and reading the run again after each reconnect (the read covers whatever the stream
 * missed meanwhile). The state is two monotone facts per ask — seen open (`created`, or the run's
 * current ask read as pending) and ended (`answered`, `no_answer`, or read as ended) — so the order
 * in which the read and the stream's entries (replayed or live) arrive never matters: an ask is open
 * when it was seen open and never seen ended. A read also ends every open ask older (by `version`)
 * than the run's current one (a run has one open ask at most: a newer one supersedes it), so an end
 * the stream skipped (a resume after a trimmed history) cannot leave an ask open for ever.
 *
 * Known once the first read and the stream's opening both succeeded; unknown again when the stream
 * dropped and a reconnect (or its read) failed, until one succeeds.
 */
export class RunState {
  /** Open asks and their versions (a run has at most one; a supersede is briefly two). */
  private readonly open = new Map<string, number>();
  private readonly ended = new Set<string>();
  private isKnown = false;
  private stopped = false;
  private readonly abort = new AbortController();
  private lastEventId: string | undefined;
  private readonly listeners = new Set<() => void>();
  /** Settles once the first attempt to learn the state is over (known or not). */
  readonly firstAttempt: Promise<void>;

  constructor(
    private readonly client: RunStateClient,
    private readonly runId: string,
    private readonly timing: RunStateTiming,
  ) {
    let settle!: () => void;
    this.firstAttempt = new Promise<void>((resolve) => (settle = resolve));
    void this.follow(settle);
  }

  /** True while the open asks are known (read, and the stream is up or was just reopened). */
  get known(): boolean {
    return this.isKnown;
  }

  /** True once {@link close} was called. */
  get closed(): boolean {
    return this.stopped;
  }

  /** The newest open ask, or undefined when none is (meaningful only when {@link known}). */
  get pendingAsk(): string | undefined {
    let newest: string | undefined;
    let version = -1;
    for (const [id, v] of this.open) if (v > version) [newest, version] = [id, v];
    return newest;
  }

  /** Whether `askId` was seen ending. */
  hasEnded(askId: string): boolean {
    return this.ended.has(askId);
  }

  /** Calls `listener` after every change of the state (an ask opened or ended, known or not); returns its remover. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops following (closes the stream); the state becomes unknown. */
  close(): void {
    this.stopped = true;
    this.abort.abort();
    this.isKnown = false;
    this.changed();
  }

  /**
   * An ask of this run seen elsewhere (the agent's own `create`): counted at once, before the
   * stream shows it. `ended` when it was seen ended.
   */
  note(ask: { id: string; version: number; status: string }): void {
    this.saw(ask.id, ask.version, ask.status !== 'pending');
  }

  /**
   * Opens the stream, reads the run, takes entries until the stream ends, and again. A stream that
   * ends (askgate closes each after an hour, a replica restarts) is reopened after `backoffMs` and
   * the state kept meanwhile; only a failed reopen (or read) makes it unknown, retried with backoff.
   */
  private async follow(firstDone: () => void): Promise<void> {
    let delay = this.timing.backoffMs;
    while (!this.stopped) {
      let onOpen!: () => void;
      const opened = new Promise<void>((resolve) => (onOpen = resolve));
      // Each attempt's own signal: its connection is closed whatever ended the attempt.
      const attempt = new AbortController();
      const events = this.client.streamRunEvents(this.runId, {
        signal: AbortSignal.any([this.abort.signal, attempt.signal]),
        onOpen,
        ...(this.lastEventId === undefined ? {} : { lastEventId: this.lastEventId }),
      });
      let up = false;
      let upAt = 0;
      // An askgate that accepts the connection and never answers must not keep the old state known.
      const late = setTimeout(() => attempt.abort(), this.timing.openTimeoutMs);
      const gaveUp = new Promise<never>((_, reject) =>
        attempt.signal.addEventListener('abort', () => reject(new Error('no answer in time')), { once: true }),
      );
      gaveUp.catch(() => undefined);
      try {
        // The request goes out on the first next(); the run is read once askgate accepted the
        // stream, so an ask that opens or ends in between shows in one or the other.
        const first = events.next();
        first.catch(() => undefined);
        if ((await Promise.race([opened.then(() => 'open' as const), first])) !== 'open') throw new Error('no stream');
        await Promise.race([this.read(), gaveUp]);
        clearTimeout(late);
        up = true;
        upAt = Date.now();
        this.setKnown(true);
        firstDone();
        for (let step = await first; !step.done; step = await events.next()) this.apply(step.value);
      } catch {
        if (!up) this.setKnown(false);
      } finally {
        clearTimeout(late);
        attempt.abort();
        void events.return(undefined).catch(() => undefined);
      }
      if (this.stopped) break;
      firstDone();
      // A stream that stayed up a while starts the backoff over; one that keeps ending at once, or
      // failing, waits longer each time.
      if (up && Date.now() - upAt > 1_000) delay = this.timing.backoffMs;
      await delayed(delay, undefined, this.abort.signal);
      delay = Math.min(delay * 2, this.timing.maxBackoffMs);
    }
    firstDone();
  }

  /** Reads the run: its current ask is open or ended. Throws when askgate cannot say. */
  private async read(): Promise<void> {
    let current: { id: string; status: string; version: number } | null;
    try {
      current = (await this.client.run(this.runId)).current;
    } catch (error) {
      // No ask yet: nothing is open (the stream shows the first one when it comes).
      if ((error as { code?: string }).code !== 'not_found') throw error;
      current = null;
    }
    if (!current) return;
    for (const [id, version] of this.open) if (version < current.version) this.saw(id, 0, true);
    this.saw(current.id, current.version, current.status !== 'pending');
  }

  private apply(event: StreamedHistoryEvent): void {
    if (event.id) this.lastEventId = event.id;
    const version = event.version ?? 0;
    if (event.type === 'created') this.saw(event.askId, version, false);
    else if (event.type === 'answered' || event.type === 'no_answer') this.saw(event.askId, version, true);
  }

  private saw(askId: string, version: number, ended: boolean): void {
    if (ended) {
      if (this.ended.has(askId)) return;
      this.ended.add(askId);
      if (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.values().next().value!);
      this.open.delete(askId);
    } else {
      if (this.ended.has(askId) || this.open.has(askId)) return;
      this.open.set(askId, version);
    }
    this.changed();
  }

  private setKnown(known: boolean): void {
    if (this.isKnown === known) return;
    this.isKnown = known;
    this.changed();
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/** Resolves with `value` after `ms` (at once when `signal` aborts). */
function delayed<T>(ms: number, value: T, signal?: AbortSignal): Promise<T> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve(value);
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
