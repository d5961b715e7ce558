import { z } from 'zod';
import type { OutboxJob } from '../core/ports.js';

/**
 * Job id of one step of an ask, `<step>-<askId>`: the timeout's is `timeout-<askId>`, as before
 * steps (BullMQ ids must not contain ':' nor be integer strings).
 */
export const stepJobId = (step: string, askId: string): string => `${step}-${askId}`;

/** Job id of an outbox job: one per (kind, ask, delivery index); no ':' allowed by BullMQ. */
export const outboxJobId = (job: OutboxJob): string => `${job.kind}-${job.askId}-${job.index}`;

/** Default attempts per outbox job (the first try included). */
export const DEFAULT_OUTBOX_ATTEMPTS = 8;

/**
 * zod schema of step job data read back from a queue, for the step names `steps`. A job without
 * `step` was written before steps existed: it is a timeout.
 */
export const stepJobData = <S extends string>(steps: readonly [S, ...S[]]) =>
  z.object({ askId: z.string().min(1), step: z.enum(steps).optional() });

/** zod schema of outbox job data read back from a queue. */
export const OutboxJobData = z.object({
  kind: z.enum(['deliver', 'finalize', 'webhook']),
  askId: z.string().min(1),
  index: z.number().int().nonnegative(),
  /** Rate-limit waits so far (not counted as attempts). */
  deferrals: z.number().int().nonnegative().optional(),
});
