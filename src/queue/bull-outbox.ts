import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis, Cluster } from 'ioredis';
import type { Logger, Outbox, OutboxHandlers, OutboxJob } from '../core/ports.js';
import { DEFAULT_BACKOFF, isDeferral, isPermanent, retryDelayMs, type BackoffPolicy } from './backoff.js';
import { DEFAULT_PREFIX, QUEUE_EVENTS_MAX, type WorkerTuning } from './bull-steps.js';
import { closeConnection, closeWorker, PRODUCER_DEADLINE_MS, withDeadline, type RedisFactory } from './connections.js';
import { DEFAULT_OUTBOX_ATTEMPTS, OutboxJobData, outboxJobData, outboxJobId } from './jobs.js';

/** BullMQ queue name of delivery and finalization work. */
export const OUTBOX_QUEUE = 'askgate-outbox';

const BACKOFF_TYPE = 'askgate';
/** BullMQ's failure reason for a job whose lock lapsed more than `maxStalledCount` times. */
const STALLED_TOO_OFTEN = 'job stalled more than allowable limit';

/** Options of {@link BullOutbox}. */
export interface BullOutboxOptions extends WorkerTuning, Partial<BackoffPolicy> {
  /** Builds this adapter's own producer and worker connections (closed by `close()`). */
  connect: RedisFactory;
  /** BullMQ key prefix; keep it a hash tag (`{...}`) for Redis Cluster. */
  prefix?: string;
  /** Jobs processed in parallel by this worker (default 20). */
  concurrency?: number;
  /** Attempts per job, the first included (default 8). */
  attempts?: number;
  /** Deadline of `enqueue` in ms (default 2000), so the request path never hangs. */
  producerDeadlineMs?: number;
  /** Receives worker/queue errors and errors thrown by `giveUp` (as `{ err }`). */
  logger: Logger;
}

/** Thrown after `giveUp` ran inside the processor, so BullMQ fails the job and the 'failed' listener skips it. */
class GaveUpError extends UnrecoverableError {}

/**
 * Outbox on BullMQ. Retries use a custom backoff strategy that honours a `ChannelError`'s
 * `retryAfterMs`; permanent errors are not retried. `giveUp` runs inside the processor while the
 * job is still locked, so a crash during it leaves a stalled job that is re-run, not a lost
 * give-up. A job BullMQ fails for stalling too often (its workers were killed mid-job) is not
 * a platform failure and gets no `giveUp`: the reconciler re-enqueues its work, since a
 * delivery marked failed would end an ask `undelivered` whose message may already be on screen.
 */
export class BullOutbox implements Outbox {
  private readonly queue: Queue;
  private readonly producer: Redis | Cluster;
  private worker: Worker | null = null;
  private workerConn: Redis | Cluster | null = null;
  private readonly prefix: string;
  private readonly attempts: number;
  private readonly policy: BackoffPolicy;
  private readonly logger: Logger;
  private readonly pendingGiveUps = new Set<Promise<void>>();
  private closing: Promise<void> | null = null;

  constructor(private readonly opts: BullOutboxOptions) {
    this.prefix = opts.prefix ?? DEFAULT_PREFIX;
    this.attempts = opts.attempts ?? DEFAULT_OUTBOX_ATTEMPTS;
    this.policy = {
      baseDelayMs: opts.baseDelayMs ?? DEFAULT_BACKOFF.baseDelayMs,
      maxDelayMs: opts.maxDelayMs ?? DEFAULT_BACKOFF.maxDelayMs,
    };
    this.logger = opts.logger;
    this.producer = opts.connect('producer');
    this.queue = new Queue(OUTBOX_QUEUE, {
      connection: this.producer,
      prefix: this.prefix,
      streams: { events: { maxLen: QUEUE_EVENTS_MAX } },
    });
    this.queue.on('error', (err) => this.logger.error({ err }, 'outbox queue error'));
  }

  /** Adds the job; while a job with the same id exists (waiting, delayed or active) this is a no-op. */
  async enqueue(job: OutboxJob): Promise<void> {
    await this.add(job, {});
  }

  /**
   * Adds a job that already failed `attemptsMade` attempts elsewhere (run in-process by the
   * inline outbox), to run after `delayMs` with the attempts left; `deferrals` rate-limit waits
   * so far. Like {@link enqueue}, a no-op while a job with the same id exists.
   */
  async retryLater(job: OutboxJob, retry: { delayMs: number; attemptsMade: number; deferrals: number }): Promise<void> {
    await this.add(job, retry);
  }

  /** Attempts per job, the first included. */
  get attemptsPerJob(): number {
    return this.attempts;
  }

  /** The backoff delays (shared with the inline outbox, so a retry handed over waits the same). */
  get backoff(): BackoffPolicy {
    return this.policy;
  }

  private async add(
    job: OutboxJob,
    retry: { delayMs?: number; attemptsMade?: number; deferrals?: number },
  ): Promise<void> {
    const before = retry.attemptsMade ?? 0;
    const data: OutboxJob & { deferrals?: number; attemptsBefore?: number } = {
      ...outboxJobData(job),
      ...(retry.deferrals ? { deferrals: retry.deferrals } : {}),
      ...(before > 0 ? { attemptsBefore: before } : {}),
    };
    const added = this.queue.add(job.kind, data, {
      jobId: outboxJobId(job),
      attempts: Math.max(1, this.attempts - before),
      ...(retry.delayMs !== undefined && retry.delayMs > 0 && { delay: retry.delayMs }),
      backoff: { type: BACKOFF_TYPE },
      // Finished jobs free their id, so a later enqueue (e.g. by the reconciler) runs again
      // instead of being silently ignored; handlers re-read the record and are idempotent.
      removeOnComplete: true,
      removeOnFail: true,
    });
    await withDeadline(added, this.opts.producerDeadlineMs ?? PRODUCER_DEADLINE_MS, 'outbox enqueue');
  }

  /** Starts the worker and resolves once it is connected. */
  async start(handlers: OutboxHandlers): Promise<void> {
    if (this.worker) throw new Error('BullOutbox already started');
    if (this.closing) throw new Error('BullOutbox is closed');
    this.workerConn = this.opts.connect('worker');
    this.worker = new Worker(OUTBOX_QUEUE, (job: Job, token?: string) => this.process(job, token, handlers), {
      connection: this.workerConn,
      prefix: this.prefix,
      concurrency: this.opts.concurrency ?? 20,
      // BullMQ looks the strategy up on the worker, not on the queue that added the job.
      // A job handed over after failed attempts elsewhere backs off from where those left it.
      settings: {
        backoffStrategy: (attemptsMade, _type, err, job) =>
          retryDelayMs(attemptsMade + attemptsBeforeOf(job?.data), err, this.policy),
      },
      ...(this.opts.lockDurationMs !== undefined && { lockDuration: this.opts.lockDurationMs }),
      ...(this.opts.stalledIntervalMs !== undefined && { stalledInterval: this.opts.stalledIntervalMs }),
    });
    this.worker.on('error', (err) => this.logger.error({ err }, 'outbox worker error'));
    this.worker.on('failed', (job, err) => this.onFailed(job, err, handlers));
    await this.worker.waitUntilReady();
  }

  /** Closes the worker (waiting for running jobs unless `force`), pending give-ups, the queue and the connections. */
  close(opts: { force?: boolean } = {}): Promise<void> {
    this.closing ??= (async () => {
      if (this.worker)
        await closeWorker(this.worker, this.workerConn!, opts.force ?? false).catch((err: Error) =>
          this.logger.error({ err }, 'outbox worker close failed'),
        );
      await Promise.all(this.pendingGiveUps);
      await this.queue.close().catch((err: Error) => this.logger.error({ err }, 'outbox queue close failed'));
      await Promise.all([closeConnection(this.producer), this.workerConn && closeConnection(this.workerConn)]);
    })();
    return this.closing;
  }

  private async process(job: Job, token: string | undefined, handlers: OutboxHandlers): Promise<void> {
    const parsed = OutboxJobData.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid outbox job data (job ${job.id})`);
    const { deferrals = 0, ...data } = parsed.data;
    try {
      await handlers.run(data);
    } catch (thrown) {
      const err = toError(thrown);
      if (token && isDeferral(err, deferrals)) {
        // A rate-limit wait: park the job until retry_after without spending an attempt.
        await job.updateData({ ...job.data, ...data, deferrals: deferrals + 1 });
        await job.moveToDelayed(Date.now() + retryDelayMs(1, err, this.policy), token);
        throw new DelayedError();
      }
      // attemptsMade counts finished attempts before this one; a stalled re-run does not add one.
      const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if (!isPermanent(err) && !last) throw err; // retried after the custom backoff delay
      try {
        await handlers.giveUp(data, err);
      } catch (giveUpErr) {
        this.giveUpFailed(data, giveUpErr);
      }
      throw new GaveUpError(err.message);
    }
  }

  private onFailed(job: Job | undefined, err: Error, handlers: OutboxHandlers): void {
    if (!job || err instanceof GaveUpError) return;
    if (err.message === STALLED_TOO_OFTEN) {
      this.logger.warn(
        { jobId: job.id },
        'outbox job stalled more than once (worker crashes); the reconciler re-enqueues it',
      );
      return;
    }
    const unrecoverable = err instanceof UnrecoverableError || err.name === 'UnrecoverableError';
    if (!unrecoverable && job.attemptsMade < (job.opts.attempts ?? 1)) return; // will be retried
    const parsed = OutboxJobData.safeParse(job.data);
    if (!parsed.success) {
      this.logger.error({ jobId: job.id, err }, 'outbox job with invalid data failed');
      return;
    }
    const { deferrals: _deferrals, ...data } = parsed.data;
    const pending = handlers
      .giveUp(data, err)
      .catch((giveUpErr: unknown) => this.giveUpFailed(data, giveUpErr))
      .finally(() => this.pendingGiveUps.delete(pending));
    this.pendingGiveUps.add(pending);
  }

  private giveUpFailed(job: OutboxJob, err: unknown): void {
    this.logger.error(
      { askId: job.askId, job: job.kind, index: job.index, err: toError(err) },
      'outbox give-up failed',
    );
  }
}

/** Attempts a job failed before it was handed to BullMQ (see {@link BullOutbox.retryLater}). */
function attemptsBeforeOf(data: unknown): number {
  const n = (data as { attemptsBefore?: unknown } | undefined)?.attemptsBefore;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 0;
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
