import { z } from 'zod';
import type { OutboxJob } from '../core/ports.js';
import { MAX_REMINDERS } from '../core/cadence.js';

/**
 * Job id of one step of an ask, `<step>-<askId>`, e.g. `timeout-<askId>` (BullMQ ids must not
 * contain ':' nor be integer strings).
 */
export const stepJobId = (step: string, askId: string): string => `${step}-${askId}`;

/**
 * Job id of an outbox job: one per (kind, ask, delivery index), and per reminder number for
 * reminders (`remind-<askId>-<index>-<n>`); no ':' allowed by BullMQ.
 */
export const outboxJobId = (job: OutboxJob): string =>
  job.kind === 'remind' ? `remind-${job.askId}-${job.index}-${job.n}` : `${job.kind}-${job.askId}-${job.index}`;

/** The job's own fields only (what a queue stores), whatever else the object carries. */
export function outboxJobData(job: OutboxJob): OutboxJob {
  return job.kind === 'remind'
    ? { kind: 'remind', askId: job.askId, index: job.index, n: job.n }
    : { kind: job.kind, askId: job.askId, index: job.index };
}

/**
 * The longest delay one Node timer takes (2^31 - 1 ms, about 24.8 days): a longer one fires after
 * 1 ms. A step further away (an ask may wait 30 days) is armed in hops of at most this.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Default attempts per outbox job (the first try included). */
export const DEFAULT_OUTBOX_ATTEMPTS = 8;

/**
 * zod schema of step job data read back from a queue: always `{}` (the job's name is the step and
 * its id names the ask, see {@link stepJobId}).
 */
export const StepJobData = z.object({}).strict();

const jobFields = {
  askId: z.string().min(1),
  index: z.number().int().nonnegative(),
  /** Rate-limit waits so far (not counted as attempts). */
  deferrals: z.number().int().nonnegative().optional(),
};

/** zod schema of outbox job data read back from a queue (a reminder carries its number `n`, 1–20). */
export const OutboxJobData = z.discriminatedUnion('kind', [
  z.object({ kind: z.enum(['deliver', 'finalize', 'webhook', 'refresh']), ...jobFields }),
  z.object({ kind: z.literal('remind'), n: z.number().int().min(1).max(MAX_REMINDERS), ...jobFields }),
]);
