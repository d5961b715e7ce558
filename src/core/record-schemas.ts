import { z } from 'zod';
import { AskResultSchema, ResponseSchema } from './result-schemas.js';
import { StoredQuestionSchema } from './stored-question.js';
import { StoredApprovalSchema } from './approval/approval-schema.js';

/** Where a delivered message lives on its platform. */
export const MessageRefSchema = z.object({
  chat: z.string(),
  messageId: z.string(),
  thread: z.string().optional(),
});
/** Where a delivered message lives on its platform. */
export type MessageRef = z.output<typeof MessageRefSchema>;

/** One delivery of an ask to one target. */
export const DeliverySchema = z.object({
  channel: z.string(),
  chat: z.string(),
  thread: z.string().optional(),
  status: z.enum(['pending', 'sent', 'failed']),
  message: MessageRefSchema.optional(),
  error: z.string().optional(),
  /** `done` once the message shows the outcome; `failed` when that edit gave up. */
  finalized: z.enum(['no', 'done', 'failed']).default('no'),
  /** Who may answer here (copied from its target); absent: anyone in the conversation. */
  users: z.array(z.string()).optional(),
  /** 0 (or absent): an initial target; n: added by escalation step n. */
  step: z.number().int().nonnegative().optional(),
  /** Reminders posted (or given up) on this message so far. */
  reminded: z.number().int().nonnegative().optional(),
  /** How far the message got as the platform reported it (a WhatsApp status): `read` implies delivered. */
  reached: z.enum(['delivered', 'read']).optional(),
});
/** One delivery of an ask to one target. */
export type Delivery = z.output<typeof DeliverySchema>;

const StoredTargetSchema = z.object({
  channel: z.string(),
  chat: z.string(),
  thread: z.string().optional(),
  users: z.array(z.string()).optional(),
  /** Working hours (core/working-hours.ts), as the request gave them. */
  hours: z.object({ days: z.string(), from: z.string(), to: z.string(), timeZone: z.string() }).optional(),
});

/** An ask's policy as stored (normalised; see core/policy.ts). */
export const StoredPolicySchema = z.object({
  remindAfterSeconds: z.array(z.number().int().positive()).optional(),
  /** The cadence of reminders after the `remindAfterSeconds` ones (core/cadence.ts). */
  remindEverySeconds: z.number().int().positive().optional(),
  escalate: z
    .array(z.object({ afterSeconds: z.number().int().positive(), to: z.array(StoredTargetSchema) }))
    .optional(),
  onTimeout: z
    .object({
      default: z.record(z.string(), z.array(z.string())).optional(),
      decision: z.enum(['approve', 'reject']).optional(),
    })
    .optional(),
  agree: z.number().int().positive().optional(),
});
/** An ask's policy as stored. */
export type StoredPolicy = z.output<typeof StoredPolicySchema>;

/** Kinds of entries in an ask's history (audit trail and event stream). */
export const HistoryTypeSchema = z.enum([
  'created',
  'delivered',
  'delivery_failed',
  'reply_rejected',
  'hint_sent',
  'partial',
  'answered',
  'no_answer',
  'finalized',
  'finalize_failed',
  'webhook_delivered',
  'webhook_failed',
  'reminded',
  'escalated',
  'response',
  /** A tool call the run's guard (`askgate/guard`) did not run while the ask was open (its name in `tool`). */
  'guard_blocked',
  /** The platform reported a sent message `delivered` or `read` (in `detail`); once per delivery and status. */
  'delivery_status',
  /** The deadline moved (`POST /v1/asks/:id/extend`): from `from` to `to` (ISO times), asked by `userId`. */
  'extended',
]);

/** One step in an ask's history. Never holds free-text answers or tokens. */
export const HistoryEntrySchema = z.object({
  type: HistoryTypeSchema,
  at: z.string(),
  channel: z.string().optional(),
  userId: z.string().optional(),
  reason: z.string().optional(),
  /** Question ids answered by a partial reply. */
  questions: z.array(z.string()).optional(),
  messageId: z.string().optional(),
  detail: z.string().optional(),
  /** `guard_blocked`: the name of the tool that did not run (never its arguments). */
  tool: z.string().optional(),
  /** `extended`: the deadline before (ISO 8601). */
  from: z.string().optional(),
  /** `extended`: the deadline after (ISO 8601). */
  to: z.string().optional(),
});
/** One step in an ask's history. */
export type HistoryEntry = z.output<typeof HistoryEntrySchema>;

/** Ask status as the API reports it. */
export const AskStatusSchema = z.enum(['pending', 'answered', 'no_answer']);
/** Ask status. */
export type AskStatus = z.output<typeof AskStatusSchema>;

/**
 * How the result webhook of an A2A client is sent: the body of its protocol version (`a2a-1.0`: a
 * StreamResponse; `a2a-0.3`: the v0.3 task) and the credentials its push config named (`token` for
 * the `X-A2A-Notification-Token` header, `authorization` for the `Authorization` header). Secrets:
 * never shown by the API nor logged.
 */
export const PushConfigSchema = z.object({
  format: z.enum(['a2a-1.0', 'a2a-0.3']),
  token: z.string().max(1000).optional(),
  authorization: z.string().max(4000).optional(),
});
/** See {@link PushConfigSchema}. */
export type PushConfig = z.output<typeof PushConfigSchema>;

/** The stored record of one ask (read back from storage through this schema). */
export const AskRecordSchema = z.object({
  id: z.string(),
  runId: z.string(),
  /** The agent that asks, when the request named it (`agent`). */
  agent: z.string().optional(),
  version: z.number().int().positive(),
  /** Revision of the stored document; every commit increments it (compare-and-set token). */
  rev: z.number().int().nonnegative(),
  status: AskStatusSchema,
  /** The questions (none on an approval). */
  questions: z.array(StoredQuestionSchema),
  /** An approval: the exact action a person is asked to authorize (instead of questions). */
  approval: StoredApprovalSchema.optional(),
  // Read back without the input rules, so records written before a rule was added stay readable.
  /** The first of `targets`, null without one: derived (at creation and on read), never stored. */
  to: StoredTargetSchema.nullable(),
  /** Every initial target, in the request's order (none: an ask answered only through the API). */
  targets: z.array(StoredTargetSchema),
  /** Reminders, escalation, default on timeout, agreement (absent: none). */
  policy: StoredPolicySchema.optional(),
  /** Reminder steps fired so far (0–3). */
  reminded: z.number().int().nonnegative().optional(),
  /** Escalation steps fired so far (0–3). */
  escalated: z.number().int().nonnegative().optional(),
  /** `agree` > 1: one response per person (channel + userId), a new answer replacing theirs. */
  responses: z.array(ResponseSchema).optional(),
  /** `agree` > 1: each person's answers to some of the questions, keyed `<channel>:<userId>`. */
  partials: z.record(z.string(), z.record(z.string(), z.array(z.string()))).optional(),
  createdAt: z.string(),
  expiresAt: z.string(),
  /** The wait the ask was created with, in seconds (after clamping); `expiresAt` is the deadline now. */
  timeoutSeconds: z.number().int(),
  /** The caller comes back by ask id (`"async": true`, an MCP task): the ask may wait up to the long maximum. */
  async: z.boolean().optional(),
  /** How many times the deadline was moved (`POST /v1/asks/:id/extend`). */
  extended: z.number().int().nonnegative().optional(),
  result: AskResultSchema.nullable(),
  /** Answers collected so far from partial replies; merged into the result when complete. */
  partial: z.record(z.string(), z.array(z.string())),
  /** What people wrote for the typed questions in `partial`, where it differs from the kept value; moves to the result. */
  partialRaw: z.record(z.string(), z.string()).optional(),
  deliveries: z.array(DeliverySchema),
  idempotencyKey: z.string().optional(),
  /** Signed webhook that receives the terminal result. */
  callbackUrl: z.string().optional(),
  /** The ask's language (BCP 47, canonical), when the request gave one: what everyone in the conversation reads. */
  locale: z.string().optional(),
  /** IANA time zone of the times askgate shows, when the request gave one (UTC otherwise). */
  timeZone: z.string().optional(),
  /** The callbackUrl wants another protocol's push body (an A2A client's push config); never shown by the API. */
  push: PushConfigSchema.optional(),
  /** The ask's history, oldest first (capped; see core/record-history.ts). */
  history: z.array(HistoryEntrySchema).default([]),
});
/** The stored record of one ask. */
export type AskRecord = z.output<typeof AskRecordSchema>;

/** An ask as the API shows it: the stored record without internal bookkeeping (`targets` optional, as before). */
export const AskViewSchema = AskRecordSchema.omit({
  rev: true,
  idempotencyKey: true,
  history: true,
  partials: true,
  push: true,
}).partial({ targets: true });
/** An ask as the API shows it. */
export type AskView = z.output<typeof AskViewSchema>;

/** The record as the API shows it (internal bookkeeping left out). */
export function publicRecord(record: AskRecord): AskView {
  const { rev: _rev, idempotencyKey: _key, history: _history, partials: _partials, push: _push, ...rest } = record;
  return rest;
}
