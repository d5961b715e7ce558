import { DelayedError, Job, Queue, UnrecoverableError, Worker, type JobJson } from 'bullmq';
import type { Redis, Cluster } from 'ioredis';
import { STEPS, type Step } from '../core/effects.js';
import type { Clock, Logger, ScheduledStep, StepHandler, StepHandlers, StepScheduler } from '../core/ports.js';
import { closeConnection, closeWorker, PRODUCER_DEADLINE_MS, withDeadline, type RedisFactory } from './connections.js';
import { lua, runScript } from '../store/scripts.js';
import { StepJobData, stepJobId } from './jobs.js';
import { HeldSteps } from './held-steps.js';
import { systemClock } from '../system-clock.js';

/** BullMQ queue name of every step (named when the timeout was the only step; it is in every key of the queue). */
export const STEP_QUEUE = 'askgate-timeouts';

/** Least time a held step's backstop job is due after the step (with no lead, a job that came early by clock skew). */
const MIN_BACKSTOP_MS = 1000;

/** The furthest ahead a step whose job came early is held in memory; a later one goes back to the queue. */
const HOLD_HORIZON_MS = 10 * 60_000;

/** Default BullMQ key prefix: a hash tag, so every key of a queue lands in one Cluster slot. */
export const DEFAULT_PREFIX = '{askgate}';

/**
 * Backoff type of step jobs: the delay is computed by the worker ({@link stepBackoff}), so a job's
 * stored `opts` stays under Redis' 64-byte listpack limit.
 */
export const STEP_BACKOFF = 'step';

/** Exponential retry delay of attempt `attemptsMade` (1 = the first retry), from `baseMs`. */
export const stepBackoff = (baseMs: number, attemptsMade: number): number =>
  Math.round(2 ** Math.max(0, attemptsMade - 1) * baseMs);

/**
 * A job that leaves its id out of the stored `opts` (the id is in the job's key, and BullMQ reads
 * it from there): with the id, `opts` is over 64 bytes and the job hash takes the hashtable
 * encoding (~720 B instead of ~300 B per pending step).
 */
class CompactJob extends Job {
  override asJSON(): JobJson {
    const json = super.asJSON();
    const { jobId: _id, ...opts } = json.opts;
    return { ...json, opts };
  }
}

/** 1 or 0 per key: whether it exists. */
const EXISTS_EACH = lua(
  'existsEach',
  `local out = {}
for i = 1, #KEYS do out[i] = redis.call('EXISTS', KEYS[i]) end
return out`,
);

/** The step queue, adding {@link CompactJob}s. */
class StepQueue extends Queue {
  protected override get Job(): typeof Job {
    return CompactJob as unknown as typeof Job;
  }
}

/**
 * Most entries kept in the BullMQ events stream of each askgate queue, the step queue's and the
 * outbox's (BullMQ's default is 10 000, ~1.4 MB, some 80 B per pending ask): askgate reads none of
 * them (no QueueEvents, no waitUntilFinished); the last ones stay for an operator.
 */
export const QUEUE_EVENTS_MAX = 1000;

/** Worker tuning shared by the BullMQ adapters; the defaults are BullMQ's (30 s). */
export interface WorkerTuning {
  /** How long a job's lock lives without renewal; a dead worker's job is re-run after it. */
  lockDurationMs?: number;
  /** How often workers look for stalled jobs. */
  stalledIntervalMs?: number;
}

/** Options of {@link BullStepScheduler}. */
export interface BullStepOptions<S extends string = Step> extends WorkerTuning {
  /** Builds this adapter's own producer and worker connections (closed by `close()`). */
  connect: RedisFactory;
  /** BullMQ key prefix; keep it a hash tag (`{...}`) for Redis Cluster. */
  prefix?: string;
  /** The step names (default {@link STEPS}; tests add their own). */
  steps?: readonly [S, ...S[]];
  /** Steps processed in parallel by this worker (default 50). */
  concurrency?: number;
  /** Attempts per step when the handler throws (default 5). */
  attempts?: number;
  /** Base of the exponential retry delay in ms (default 1000). */
  retryDelayMs?: number;
  /**
   * How far ahead of its time a job is queued (default 0; askgate's `ASKGATE_STEP_LEAD_MS`): the
   * job's own lateness (queueing behind other jobs, a Redis stall during an AOF rewrite) is spent
   * before the step is due. A handler called before its step's time returns `NotYet`: the job goes
   * back to the delayed set a lead (at least 1 s) past that time as the step's backstop, and the
   * step is held in memory until its time ({@link HeldSteps}).
   */
  leadMs?: number;
  /** Deadline of `schedule`/`cancel` in ms (default 2000), so the request path never hangs. */
  producerDeadlineMs?: number;
  /** The clock due times are read against (default: the system clock). */
  clock?: Clock;
  /** Receives worker/queue errors (connection loss, failed handlers) as `{ err }`. */
  logger: Logger;
}

/**
 * The steps of asks as BullMQ delayed jobs of one queue, job id `<step>-<askId>`. A job is only a
 * trigger: the handler runs the same compare-and-set as an answer, and the reconciler covers jobs
 * that are lost or stalled out.
 */
export class BullStepScheduler<S extends string = Step> implements StepScheduler<S> {
  private readonly queue: Queue;
  private readonly producer: Redis | Cluster;
  private worker: Worker | null = null;
  /** Job ids this worker is running right now, and whether the step was cancelled meanwhile. */
  private readonly running = new Map<string, { cancelled: boolean }>();
  /** Steps whose job came early (see {@link BullStepOptions.leadMs}), held until their time. */
  private readonly held: HeldSteps<S>;
  private handlers: ReadonlyMap<string, StepHandler> = new Map();
  private readonly steps: readonly [S, ...S[]];
  private workerConn: Redis | Cluster | null = null;
  private readonly prefix: string;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private closing: Promise<void> | null = null;

  constructor(private readonly opts: BullStepOptions<S>) {
    this.steps = opts.steps ?? (STEPS as unknown as readonly [S, ...S[]]);
    this.prefix = opts.prefix ?? DEFAULT_PREFIX;
    this.logger = opts.logger;
    this.clock = opts.clock ?? systemClock;
    this.held = new HeldSteps<S>({
      handler: (step) => this.handlers.get(step),
      dropJob: (askId, step) => this.removeJob(stepJobId(step, askId)),
      clock: this.clock,
      logger: this.logger,
    });
    this.producer = opts.connect('producer');
    this.queue = new StepQueue(STEP_QUEUE, {
      connection: this.producer,
      prefix: this.prefix,
      streams: { events: { maxLen: QUEUE_EVENTS_MAX } },
    });
    this.queue.on('error', (err) => this.logger.error({ err }, 'timeout queue error'));
  }

  /** Adds the delayed job; a second call for the same step of an ask returns the existing job unchanged. */
  async schedule(askId: string, step: S, atMs: number): Promise<void> {
    // The name is the step and the id names the ask: the data stays empty (a smaller job hash).
    const added = this.queue.add(
      step,
      {},
      {
        jobId: stepJobId(step, askId),
        delay: Math.max(0, Math.round(atMs - (this.opts.leadMs ?? 0) - this.clock.now())),
        // What to keep of finished jobs is the worker's (removeOnComplete, removeOnFail), and the
        // retry delay too (STEP_BACKOFF): only what differs per job is stored with it.
        attempts: this.opts.attempts ?? 5,
        backoff: { type: STEP_BACKOFF },
      },
    );
    await withDeadline(added, this.opts.producerDeadlineMs ?? PRODUCER_DEADLINE_MS, `${step} schedule`);
  }

  /**
   * One EXISTS script over the job keys (one queue, one hash tag: Cluster-safe), then {@link schedule}
   * only for the steps without a job: re-adding an existing job would change nothing.
   */
  async scheduleMany(entries: readonly ScheduledStep<S>[]): Promise<void> {
    if (entries.length === 0) return;
    const keys = entries.map((e) => `${this.prefix}:${STEP_QUEUE}:${stepJobId(e.step, e.askId)}`);
    const exists = runScript(this.producer, EXISTS_EACH, keys, []) as Promise<number[]>;
    const present = await withDeadline(exists, this.opts.producerDeadlineMs ?? PRODUCER_DEADLINE_MS, 'steps check');
    await Promise.all(entries.flatMap((e, i) => (present[i] === 1 ? [] : [this.schedule(e.askId, e.step, e.at)])));
  }

  /** Best effort: `remove` returns 0 for an active job and 1 even for an unknown id; both are fine. */
  async cancel(askId: string, step: S): Promise<void> {
    const jobId = stepJobId(step, askId);
    this.held.drop(jobId);
    // The job is running in this worker (the step itself): remove() would return 0 anyway, and
    // a step that came early is not held.
    const running = this.running.get(jobId);
    if (running) return void (running.cancelled = true);
    await this.removeJob(jobId);
  }

  private async removeJob(jobId: string): Promise<void> {
    try {
      await withDeadline(this.queue.remove(jobId), this.opts.producerDeadlineMs ?? PRODUCER_DEADLINE_MS, 'step cancel');
    } catch {
      // Correctness never depends on removal: the due handler's CAS finds the ask resolved.
    }
  }

  /** The step and ask a job is for, from its name and id (`<step>-<askId>`); its data must be `{}`. */
  private targetOf(job: Job): { step: string; askId: string } | null {
    if (!StepJobData.safeParse(job.data).success) return null;
    const step = this.steps.find((s) => s === job.name);
    const prefix = step && stepJobId(step, '');
    const askId = prefix && job.id?.startsWith(prefix) ? job.id.slice(prefix.length) : '';
    return step && askId ? { step, askId } : null;
  }

  /** Starts the worker and resolves once it is connected. */
  async start(handlers: Partial<StepHandlers<S>>): Promise<void> {
    if (this.worker) throw new Error('BullStepScheduler already started');
    if (this.closing) throw new Error('BullStepScheduler is closed');
    // Looked up by the step of validated job data, through a Map over the known names only.
    const byStep = new Map<string, StepHandler>(
      this.steps.flatMap((s): [string, StepHandler][] => (handlers[s] ? [[s, handlers[s]]] : [])),
    );
    // Held steps run through the same handlers.
    this.handlers = byStep;
    this.workerConn = this.opts.connect('worker');
    this.worker = new Worker(
      STEP_QUEUE,
      async (job: Job, token?: string) => {
        const target = this.targetOf(job);
        const handler = target && byStep.get(target.step);
        // Dropped (kept in the failed set, logged by the 'failed' listener), never dispatched.
        if (!target || !handler) throw new UnrecoverableError(`invalid step job data (job ${job.id})`);
        const key = stepJobId(target.step, target.askId);
        const run = { cancelled: false };
        this.running.set(key, run);
        try {
          const notYet = await handler(target.askId);
          if (notYet && !run.cancelled) {
            // The job stays as the step's backstop, a lead past its time; the step waits in memory.
            // A step far off (its deadline moved later, and the job was not moved with it) is not
            // held for days: its job waits in the queue, due a lead before the step as when added.
            const far = notYet.notBefore - this.clock.now() > HOLD_HORIZON_MS;
            const lead = far ? -(this.opts.leadMs ?? 0) : Math.max(this.opts.leadMs ?? 0, MIN_BACKSTOP_MS);
            await job.moveToDelayed(Date.now() + notYet.notBefore + lead - this.clock.now(), token);
            // Cancelled while the job moved (cancel left the then-active job to us): nothing to hold,
            // and the job, delayed and unlocked now, goes.
            if (run.cancelled) await this.removeJob(key);
            else if (!far) this.held.hold(target.askId, target.step as S, notYet);
            throw new DelayedError();
          }
        } finally {
          this.running.delete(key);
        }
      },
      {
        connection: this.workerConn,
        prefix: this.prefix,
        concurrency: this.opts.concurrency ?? 50,
        // removeOnComplete frees the id; a completed job that kept its id would silently swallow
        // any later add with the same id.
        removeOnComplete: { count: 0 },
        removeOnFail: { count: 1000 },
        settings: { backoffStrategy: (attemptsMade) => stepBackoff(this.opts.retryDelayMs ?? 1000, attemptsMade) },
        ...(this.opts.lockDurationMs !== undefined && { lockDuration: this.opts.lockDurationMs }),
        ...(this.opts.stalledIntervalMs !== undefined && { stalledInterval: this.opts.stalledIntervalMs }),
      },
    );
    this.worker.on('error', (err) => this.logger.error({ err }, 'timeout worker error'));
    this.worker.on('failed', (job, err) => {
      if (job && (err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1))) {
        // Rare: a second parse only names the step in the message (never the data itself).
        const step = this.targetOf(job)?.step;
        if (step && byStep.has(step))
          this.logger.error({ jobId: job.id, attempts: job.attemptsMade, err }, `${step} job gave up`);
        else this.logger.error({ jobId: job.id }, 'invalid step job dropped');
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
      if (this.worker)
        await closeWorker(this.worker, this.workerConn!, opts.force ?? false).catch((err: Error) =>
          this.logger.error({ err }, 'timeout worker close failed'),
        );
      await this.held.release(opts.force ?? false);
      await this.queue.close().catch((err: Error) => this.logger.error({ err }, 'timeout queue close failed'));
      // BullMQ leaves connections it was handed open (it only closes its own duplicates).
      await Promise.all([closeConnection(this.producer), this.workerConn && closeConnection(this.workerConn)]);
    })();
    return this.closing;
  }
}
