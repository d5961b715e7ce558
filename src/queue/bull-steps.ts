import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis, Cluster } from 'ioredis';
import type { TimeoutScheduler } from '../core/ports.js';
import { closeConnection, closeWorker, PRODUCER_DEADLINE_MS, withDeadline, type RedisFactory } from './connections.js';
import { TimeoutJobData, timeoutJobId } from './jobs.js';

/** BullMQ queue name of ask timeouts. */
export const TIMEOUT_QUEUE = 'askgate-timeouts';

/** Default BullMQ key prefix: a hash tag, so every key of a queue lands in one Cluster slot. */
export const DEFAULT_PREFIX = '{askgate}';

/** Worker tuning shared by the BullMQ adapters; the defaults are BullMQ's (30 s). */
export interface WorkerTuning {
  /** How long a job's lock lives without renewal; a dead worker's job is re-run after it. */
  lockDurationMs?: number;
  /** How often workers look for stalled jobs. */
  stalledIntervalMs?: number;
}

/** Options of {@link BullTimeoutScheduler}. */
export interface BullTimeoutOptions extends WorkerTuning {
  /** Builds this adapter's own producer and worker connections (closed by `close()`). */
  connect: RedisFactory;
  /** BullMQ key prefix; keep it a hash tag (`{...}`) for Redis Cluster. */
  prefix?: string;
  /** Timeouts processed in parallel by this worker (default 50). */
  concurrency?: number;
  /** Attempts per timeout when the handler throws (default 5). */
  attempts?: number;
  /** Base of the exponential retry delay in ms (default 1000). */
  retryDelayMs?: number;
  /** Deadline of `schedule`/`cancel` in ms (default 2000), so the request path never hangs. */
  producerDeadlineMs?: number;
  /** Receives worker/queue errors (connection loss, failed handlers). Default: console.error. */
  onError?: (err: Error) => void;
}

/**
 * Ask timeouts as BullMQ delayed jobs. The job is only a trigger: the handler runs the same
 * compare-and-set as an answer, and the reconciler covers jobs that are lost or stalled out.
 */
export class BullTimeoutScheduler implements TimeoutScheduler {
  private readonly queue: Queue;
  private readonly producer: Redis | Cluster;
  private worker: Worker | null = null;
  /** Ask ids whose timeout job this worker is running right now. */
  private readonly running = new Set<string>();
  private workerConn: Redis | Cluster | null = null;
  private readonly prefix: string;
  private readonly onError: (err: Error) => void;
  private closing: Promise<void> | null = null;

  constructor(private readonly opts: BullTimeoutOptions) {
    this.prefix = opts.prefix ?? DEFAULT_PREFIX;
    this.onError = opts.onError ?? ((err) => console.error('[askgate] timeout queue:', err));
    this.producer = opts.connect('producer');
    this.queue = new Queue(TIMEOUT_QUEUE, { connection: this.producer, prefix: this.prefix });
    this.queue.on('error', (err) => this.onError(err));
  }

  /** Adds the delayed job; a second call for the same ask returns the existing job unchanged. */
  async schedule(askId: string, dueAtMs: number): Promise<void> {
    const added = this.queue.add(
      'timeout',
      { askId },
      {
        jobId: timeoutJobId(askId),
        delay: Math.max(0, Math.round(dueAtMs - Date.now())),
        // removeOnComplete frees the id; a completed job that kept its id would silently swallow
        // any later add with the same id.
        removeOnComplete: true,
        removeOnFail: 1000,
        attempts: this.opts.attempts ?? 5,
        backoff: { type: 'exponential', delay: this.opts.retryDelayMs ?? 1000 },
      },
    );
    await withDeadline(added, this.opts.producerDeadlineMs ?? PRODUCER_DEADLINE_MS, 'timeout schedule');
  }

  /** Best effort: `remove` returns 0 for an active job and 1 even for an unknown id; both are fine. */
  async cancel(askId: string): Promise<void> {
    // The job is running in this worker (the timeout itself): remove() would return 0 anyway.
    if (this.running.has(askId)) return;
    try {
      await withDeadline(this.queue.remove(timeoutJobId(askId)), this.opts.producerDeadlineMs ?? PRODUCER_DEADLINE_MS, 'timeout cancel');
    } catch {
      // Correctness never depends on removal: the due handler's CAS finds the ask resolved.
    }
  }

  /** Starts the worker and resolves once it is connected. */
  async start(onDue: (askId: string) => Promise<void>): Promise<void> {
    if (this.worker) throw new Error('BullTimeoutScheduler already started');
    if (this.closing) throw new Error('BullTimeoutScheduler is closed');
    this.workerConn = this.opts.connect('worker');
    this.worker = new Worker(
      TIMEOUT_QUEUE,
      async (job: Job) => {
        const parsed = TimeoutJobData.safeParse(job.data);
        if (!parsed.success) throw new UnrecoverableError(`invalid timeout job data (job ${job.id})`);
        this.running.add(parsed.data.askId);
        try {
          await onDue(parsed.data.askId);
        } finally {
          this.running.delete(parsed.data.askId);
        }
      },
      {
        connection: this.workerConn,
        prefix: this.prefix,
        concurrency: this.opts.concurrency ?? 50,
        ...(this.opts.lockDurationMs !== undefined && { lockDuration: this.opts.lockDurationMs }),
        ...(this.opts.stalledIntervalMs !== undefined && { stalledInterval: this.opts.stalledIntervalMs }),
      },
    );
    this.worker.on('error', (err) => this.onError(err));
    this.worker.on('failed', (job, err) => {
      if (job && (err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1))) {
        this.onError(new Error(`timeout job ${job.id} gave up after ${job.attemptsMade} attempts: ${err.message}`));
      }
    });
    await this.worker.waitUntilReady();
  }

  /**
   * Closes the worker (waiting for running handlers unless `force`) and the queue, then the
   * connections. A forced close leaves running jobs locked; another worker re-runs them as
   * stalled once their lock expires.
   */
  close(opts: { force?: boolean } = {}): Promise<void> {
    this.closing ??= (async () => {
      if (this.worker) await closeWorker(this.worker, this.workerConn!, opts.force ?? false).catch((err: Error) => this.onError(err));
      await this.queue.close().catch((err: Error) => this.onError(err));
      // BullMQ leaves connections it was handed open (it only closes its own duplicates).
      await Promise.all([closeConnection(this.producer), this.workerConn && closeConnection(this.workerConn)]);
    })();
    return this.closing;
  }
}
