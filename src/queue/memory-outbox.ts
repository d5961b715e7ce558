import type { Logger, Outbox, OutboxHandlers, OutboxJob } from '../core/ports.js';
import { DEFAULT_BACKOFF, isPermanent, retryDelayMs, type BackoffPolicy, isDeferral } from './backoff.js';
import { DEFAULT_OUTBOX_ATTEMPTS, outboxJobData, outboxJobId } from './jobs.js';

/** Options of {@link MemoryOutbox}. */
export interface MemoryOutboxOptions extends Partial<BackoffPolicy> {
  /** Jobs run in parallel (default 20). */
  concurrency?: number;
  /** Attempts per job, the first included (default 8). */
  attempts?: number;
  /** Receives errors thrown by `giveUp` (as `{ err }`). */
  logger: Logger;
}

interface Entry {
  job: OutboxJob;
  attemptsMade: number;
  /** Rate-limit waits so far; they do not count as attempts (see isDeferral). */
  deferrals: number;
  timer: NodeJS.Timeout | null;
}

/**
 * In-process outbox for the embedded mode (no Redis), with the BullMQ outbox's semantics: one
 * job per id while it waits or runs, retries with the shared backoff (honouring
 * `retryAfterMs`), no retry for permanent errors, `giveUp` once. Nothing survives a restart.
 */
export class MemoryOutbox implements Outbox {
  private readonly entries = new Map<string, Entry>();
  private readonly ready: string[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private handlers: OutboxHandlers | null = null;
  private active = 0;
  private closed = false;
  private readonly concurrency: number;
  private readonly attempts: number;
  private readonly policy: BackoffPolicy;
  private readonly logger: Logger;

  constructor(opts: MemoryOutboxOptions) {
    this.concurrency = opts.concurrency ?? 20;
    this.attempts = opts.attempts ?? DEFAULT_OUTBOX_ATTEMPTS;
    this.policy = {
      baseDelayMs: opts.baseDelayMs ?? DEFAULT_BACKOFF.baseDelayMs,
      maxDelayMs: opts.maxDelayMs ?? DEFAULT_BACKOFF.maxDelayMs,
    };
    this.logger = opts.logger;
  }

  /** Queues the job unless a job with the same id is waiting, delayed or running. */
  async enqueue(job: OutboxJob): Promise<void> {
    if (this.closed) throw new Error('MemoryOutbox is closed');
    const id = outboxJobId(job);
    if (this.entries.has(id)) return;
    this.entries.set(id, {
      job: outboxJobData(job),
      attemptsMade: 0,
      deferrals: 0,
      timer: null,
    });
    this.ready.push(id);
    this.pump();
  }

  /** Starts running queued jobs. */
  async start(handlers: OutboxHandlers): Promise<void> {
    if (this.handlers) throw new Error('MemoryOutbox already started');
    if (this.closed) throw new Error('MemoryOutbox is closed');
    this.handlers = handlers;
    this.pump();
  }

  /** Drops waiting and delayed jobs and waits for running ones. */
  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.entries.values()) if (entry.timer) clearTimeout(entry.timer);
    this.entries.clear();
    this.ready.length = 0;
    await Promise.all(this.inFlight);
  }

  private pump(): void {
    const handlers = this.handlers;
    if (!handlers) return;
    while (!this.closed && this.active < this.concurrency && this.ready.length > 0) {
      const id = this.ready.shift()!;
      const entry = this.entries.get(id);
      if (!entry) continue;
      this.active += 1;
      const run = this.runOnce(id, entry, handlers).finally(() => {
        this.inFlight.delete(run);
        this.active -= 1;
        this.pump();
      });
      this.inFlight.add(run);
    }
  }

  private async runOnce(id: string, entry: Entry, handlers: OutboxHandlers): Promise<void> {
    try {
      await handlers.run(entry.job);
      this.entries.delete(id);
    } catch (thrown) {
      const err = thrown instanceof Error ? thrown : new Error(String(thrown));
      if (isDeferral(err, entry.deferrals)) entry.deferrals += 1;
      else entry.attemptsMade += 1;
      if (isPermanent(err) || entry.attemptsMade >= this.attempts) {
        this.entries.delete(id);
        await handlers.giveUp(entry.job, err).catch((giveUpErr: unknown) => {
          const { askId, kind, index } = entry.job;
          this.logger.error(
            { askId, job: kind, index, err: giveUpErr instanceof Error ? giveUpErr : new Error(String(giveUpErr)) },
            'outbox give-up failed',
          );
        });
        return;
      }
      if (this.closed) return;
      entry.timer = setTimeout(
        () => {
          entry.timer = null;
          this.ready.push(id);
          this.pump();
        },
        retryDelayMs(Math.max(1, entry.attemptsMade), err, this.policy),
      );
      entry.timer.unref();
    }
  }
}
