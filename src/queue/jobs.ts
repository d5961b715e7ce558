import { z } from 'zod';
import type { OutboxJob } from '../core/ports.js';

/** Job id of an ask's timeout (BullMQ ids must not contain ':' nor be integer strings). */
export const timeoutJobId = (askId: string): string => `timeout-${askId}`;

/** Job id of an outbox job: one per (kind, ask, delivery index); no ':' allowed by BullMQ. */
export const outboxJobId = (job: OutboxJob): string => `${job.kind}-${job.askId}-${job.index}`;

/** Default attempts per outbox job (the first try included). */
export const DEFAULT_OUTBOX_ATTEMPTS = 8;

/** zod schema of timeout job data read back from a queue. */
export const TimeoutJobData = z.object({ askId: z.string().min(1) });

/** zod schema of outbox job data read back from a queue. */
export const OutboxJobData = z.object({
  kind: z.enum(['deliver', 'finalize', 'webhook']),
  askId: z.string().min(1),
  index: z.number().int().nonnegative(),
  /** Rate-limit waits so far (not counted as attempts). */
  deferrals: z.number().int().nonnegative().optional(),
});
