import type { Logger, Outbox, OutboxHandlers, OutboxJob } from '../core/ports.js';
import { isDeferral, isPermanent, retryDelayMs, type BackoffPolicy } from './backoff.js';
import { outboxJobData, outboxJobId } from './jobs.js';

/** A durable outbox that can take over a job that already failed in-process (BullOutbox). */
export interface RetryingOutbox extends Outbox {
  /** Queues `job` to run after `delayMs` with the attempts left after `attemptsMade`. */
  retryLater(job: OutboxJob, retry: { delayMs: number; attemptsMade: number; deferrals: number }): Promise<void>;
  /** Attempts per job, the first included. */
  readonly attemptsPerJob: number;
  readonly backoff: BackoffPolicy;
}

/**
 * How long a tally refresh waits in the queue: a burst of answers is rendered once (one job id
 * while it waits), and an answer that ends the ask meanwhile leaves only the outcome edit.
 */
export const REFRESH_DELAY_MS = 100;

/**
 * Jobs run in-process at once by default (ASKGATE_OUTBOX_INLINE_CONCURRENCY): a job over the limit
 * costs a BullMQ add, two moves and a wake, so the limit is set well above the platform calls a busy
 * process has in flight (cycles/s × a call's latency); 256 open calls cost Node little.
 */
export const DEFAULT_INLINE_CONCURRENCY = 256;

/** Options of {@link InlineOutbox}. */
export interface InlineOutboxOptions {
  /** The durable queue: retries, spill-over beyond `concurrency`, jobs enqueued while closing. */
  queue: RetryingOutbox;
  /** Jobs run in-process at once at most (0: every job goes to the queue; default {@link DEFAULT_INLINE_CONCURRENCY}). */
  concurrency?: number;
  /**
   * Called when a job that failed in-process could be neither handed to the queue nor given up
   * (Redis unavailable): main.ts makes the ask due for the reconciler, which re-drives it.
   */
  onLost?: (job: OutboxJob) => Promise<void>;
  logger: Logger;
}

/**
 * Runs outbox jobs in this process right after the commit that queued them, instead of a round
 * trip through BullMQ (add, two moveToActive, moveToFinished and a worker wake per job). The
 * first attempt runs here, as `justQueued` (no other run of it can have started: it may start
 * from the store's kept copy); a retryable failure goes to the queue with the attempts left and the
 * normal backoff, a permanent one (or the last attempt) gives up here. Durability comes from
 * the write-ahead sweep marks, not from the queue: a crash mid-run leaves the ask marked, and
 * the reconciler re-queues whatever the record still needs (`jobsFor`: deliveries, outcome
 * edits, webhooks, reminders). A refresh (the tally of an open ask) is not re-driven, so it
 * keeps going through the queue. `enqueue` resolves once
 * the job is started, not finished; `close` waits for the jobs in flight.
 */
export class InlineOutbox implements Outbox {
  private handlers: OutboxHandlers | null = null;
  private readonly running = new Map<string, Promise<void>>();
  private closing: Promise<void> | null = null;

  constructor(private readonly opts: InlineOutboxOptions) {}

  /** Jobs running in-process now. */
  get inFlight(): number {
    return this.running.size;
  }

  /**
   * Runs the job now, or queues it when the limit is reached or the outbox is not started or
   * closing (a refresh: always, after {@link REFRESH_DELAY_MS}). The same job while it runs here
   * is a no-op (as BullMQ ignores an id that is active): the run in flight reads the record and
   * does it.
   */
  async enqueue(job: OutboxJob): Promise<void> {
    const id = outboxJobId(job);
    if (this.running.has(id)) return;
    const handlers = this.handlers;
    if (!handlers || this.closing || this.running.size >= (this.opts.concurrency ?? DEFAULT_INLINE_CONCURRENCY))
      return this.opts.queue.enqueue(job);
    // A refresh is not re-driven by the reconciler (the outcome edit shows the end state), so it
    // stays in the durable queue.
    if (job.kind === 'refresh')
      return this.opts.queue.retryLater(outboxJobData(job), {
        delayMs: REFRESH_DELAY_MS,
        attemptsMade: 0,
        deferrals: 0,
      });
    const run = this.runNow(job, handlers).finally(() => this.running.delete(id));
    this.running.set(id, run);
  }

  /**
   * The reconciler's re-drive of a job: to the durable queue (where an id already waiting or
   * retrying is not added twice), unless it runs here now (a slow send the queue cannot see).
   */
  async requeue(job: OutboxJob): Promise<void> {
    if (this.running.has(outboxJobId(job))) return;
    await this.opts.queue.enqueue(job);
  }

  /** Starts the durable queue's worker (retries and spill-over) and the in-process runs. */
  async start(handlers: OutboxHandlers): Promise<void> {
    await this.opts.queue.start(handlers);
    this.handlers = handlers;
  }

  /** Stops running jobs here, waits for those in flight (their follow-ups go to the queue), then closes the queue. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
      await this.opts.queue.close();
    })();
    return this.closing;
  }

  private async runNow(job: OutboxJob, handlers: OutboxHandlers): Promise<void> {
    let err: Error;
    try {
      await handlers.run(job, true);
      return;
    } catch (thrown) {
      err = thrown instanceof Error ? thrown : new Error(String(thrown));
    }
    const { queue, logger } = this.opts;
    const data = outboxJobData(job);
    try {
      if (isDeferral(err, 0)) {
        // A rate-limit wait spends no attempt: the queue runs it after retry_after.
        await queue.retryLater(data, { delayMs: retryDelayMs(1, err, queue.backoff), attemptsMade: 0, deferrals: 1 });
      } else if (!isPermanent(err) && queue.attemptsPerJob > 1) {
        await queue.retryLater(data, { delayMs: retryDelayMs(1, err, queue.backoff), attemptsMade: 1, deferrals: 0 });
      } else {
        await handlers.giveUp(data, err);
      }
    } catch (handOffErr) {
      logger.error(
        { askId: job.askId, job: job.kind, index: job.index, err: handOffErr },
        'inline outbox job failed and could not be handed over; the reconciler re-drives it',
      );
      await this.opts.onLost?.(data).catch(() => undefined);
    }
  }
}
