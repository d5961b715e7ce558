import { z } from 'zod';
import { cleanText, compareKey, hasVisible, textProblem } from './text.js';

/** Longest header shown on a platform; longer headers are accepted and shortened for display. */
export const HEADER_DISPLAY_MAX = 12;

const RESERVED_LABEL = /^(other|skip)\b[\s.…:!?]*$/;
const RECOMMENDED_SUFFIX = /\s*\(recommended\)\s*$/;

/**
 * The label without a trailing "(Recommended)", after {@link compareKey} (NFKC, no invisible
 * characters, single spaces, case-folded): the key labels, replies and reserved words are matched by.
 */
export function labelKey(label: string): string {
  return compareKey(label).replace(RECOMMENDED_SUFFIX, '').trim();
}

/**
 * A string people read (rules in core/text.ts): stored in NFC, trimmed, refused with a message
 * naming the character when it holds control, invisible or format characters. Multi-line text
 * keeps `\n` and `\t` (other line breaks become `\n`).
 */
function shownText(max: number, { multiline = false, required = true } = {}) {
  const base = z
    .string()
    .overwrite((s) => cleanText(s, multiline))
    .superRefine((s, ctx) => {
      const problem = textProblem(s, multiline);
      if (problem) ctx.addIssue({ code: 'custom', message: problem, continue: false });
    })
    .trim();
  const sized = required ? base.min(1, 'must not be empty') : base;
  return sized.max(max, `must be at most ${max} characters`).refine((s) => s === '' || hasVisible(s), 'must contain a visible character');
}

const singleLine = (max: number) => shownText(max);

/** A platform identifier (chat, thread, user): printable ASCII without spaces. */
const platformId = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .regex(/^[\x21-\x7e]+$/, 'must be a platform id: printable ASCII without spaces');

/** One answer option an agent offers. */
export const OptionSchema = z
  .object({
    label: singleLine(100).refine((s) => !RESERVED_LABEL.test(labelKey(s)), {
      message:
        'labels "Other" and "Skip" are reserved: the human can always answer in their own words or skip',
    }),
    description: shownText(300, { multiline: true, required: false }).optional(),
  })
  .strict();

/**
 * A question id: snake_case. Names like `__proto__` get their own message: they cannot even be
 * sent as an answer's key in JSON.
 */
export const QuestionIdSchema = z
  .string()
  .refine((s) => !/^__.*__$/.test(s), {
    message: 'names like "__proto__" are reserved: use snake_case (a-z, 0-9 and _, starting with a letter)',
    abort: true,
  })
  .regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be snake_case: a-z, 0-9 and _, starting with a letter, at most 40 characters');

/** One question with 2–4 options. */
export const QuestionSchema = z
  .object({
    id: QuestionIdSchema.optional(),
    header: singleLine(60).optional(),
    question: shownText(1000, { multiline: true }),
    options: z.array(OptionSchema).min(2, 'offer at least 2 options').max(4, 'offer at most 4 options'),
    multiSelect: z.boolean().default(false),
  })
  .strict()
  .superRefine((q, ctx) => {
    const seen = new Map<string, number>();
    q.options.forEach((o, i) => {
      const key = labelKey(o.label);
      if (key === '') {
        ctx.addIssue({ code: 'custom', path: ['options', i, 'label'], message: 'must not be empty' });
      } else if (seen.has(key)) {
        ctx.addIssue({
          code: 'custom',
          path: ['options', i, 'label'],
          message: `duplicates option ${seen.get(key)! + 1} (labels must differ ignoring case and character width)`,
        });
      } else seen.set(key, i);
    });
  });

/** A question after defaults are applied: `id` is always set. */
export type Question = Omit<z.output<typeof QuestionSchema>, 'id'> & { id: string };
/** An option as stored. */
export type Option = z.output<typeof OptionSchema>;

/** Channel names: lower-case identifiers such as `telegram`, `slack`, `discord`. */
export const ChannelNameSchema = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a channel name such as "telegram"');

/** Where a question is delivered and who may answer it. */
export const TargetSchema = z
  .object({
    channel: ChannelNameSchema,
    chat: platformId(128),
    thread: platformId(128).optional(),
    users: z.array(platformId(64)).min(1, 'list at least one user, or leave users out').max(50).optional(),
  })
  .strict();
/** Delivery target. */
export type Target = z.output<typeof TargetSchema>;

/** The run identifier of an agent: 1–128 characters of `[A-Za-z0-9_.-]`, not only dots (`.` and `..` are URL dot segments). */
export const RunIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,128}$/, 'must be 1–128 characters of A-Z a-z 0-9 _ . -')
  .refine((s) => !/^\.+$/.test(s), 'must not be only dots: "." and ".." are path segments, unreachable in a URL');

/** Why a requested timeout is refused, or null. Any finite size is fine (1e308 too): the gateway clamps it. */
function timeoutProblem(value: unknown): string | null {
  if (typeof value !== 'number' || Number.isNaN(value)) return 'must be a number of seconds';
  if (value <= 0) return 'must be positive';
  // JSON numbers beyond ~1.8e308 (1e400) parse as Infinity.
  if (!Number.isFinite(value)) return 'must be a finite number of seconds (values above the maximum are clamped to it)';
  if (!Number.isInteger(value)) return 'must be a whole number of seconds';
  return null;
}

/** A requested timeout: a positive whole number of seconds, clamped to the configured bounds by the gateway. */
export const TimeoutSecondsSchema = z.custom<number>((v) => timeoutProblem(v) === null, { error: (issue) => timeoutProblem(issue.input) ?? 'invalid' });

/** The body of `POST /v1/asks`. */
export const AskRequestSchema = z
  .object({
    runId: RunIdSchema,
    to: TargetSchema.optional(),
    questions: z.array(QuestionSchema).min(1, 'ask at least 1 question').max(3, 'ask at most 3 questions'),
    timeoutSeconds: TimeoutSecondsSchema.optional(),
    callbackUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000).optional(),
  })
  .strict()
  .transform((req) => ({
    ...req,
    questions: req.questions.map((q, i): Question => ({ ...q, id: q.id ?? `q${i + 1}` })),
  }))
  .superRefine((req, ctx) => {
    const seen = new Set<string>();
    req.questions.forEach((q, i) => {
      if (seen.has(q.id)) ctx.addIssue({ code: 'custom', path: ['questions', i, 'id'], message: `duplicate question id "${q.id}"` });
      seen.add(q.id);
    });
  });
/** A validated ask request (question ids filled in). */
export type AskRequest = z.output<typeof AskRequestSchema>;

/** Who answered. `channel` is `api` for answers through the HTTP API. */
export const ResponderSchema = z
  .object({
    channel: z.string().min(1).max(32),
    userId: z.string().min(1).max(128),
    username: z.string().max(128).optional(),
    name: z.string().max(256).optional(),
  })
  .strict();
/** The person (or operator) who answered. */
export type Responder = z.output<typeof ResponderSchema>;

/** Answers keyed by question id; each value is an option label or the human's own text. */
export const AnswersSchema = z.record(
  z.string().min(1).max(40),
  z.array(shownText(4000, { multiline: true })).min(1, 'give at least one value').max(10),
);
/** Answers keyed by question id. */
export type Answers = Record<string, string[]>;

/** The body of `POST /v1/asks/:id/answer`: `{answers}` or `{skip: true}`, optionally `by` (who, for the audit). */
export const AnswerRequestSchema = z
  .object({
    answers: AnswersSchema.optional(),
    skip: z.literal(true, 'must be true (or leave it out and send answers)').optional(),
    by: singleLine(128).optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.answers && body.skip) ctx.addIssue({ code: 'custom', path: ['skip'], message: 'send either answers or skip, not both' });
    if (!body.answers && !body.skip) ctx.addIssue({ code: 'custom', path: ['answers'], message: 'send answers, or skip: true' });
  })
  .transform((body) =>
    body.skip ? { skip: true as const, by: body.by } : { answers: body.answers!, by: body.by },
  );
/** A validated API answer. */
export type AnswerRequest = z.output<typeof AnswerRequestSchema>;

/** Why an ask ended without an answer. */
export const NoAnswerReasonSchema = z.enum(['timeout', 'skipped', 'cancelled', 'superseded', 'undelivered']);
/** Why an ask ended without an answer. */
export type NoAnswerReason = z.output<typeof NoAnswerReasonSchema>;

/** The typed result an agent receives. */
export const AskResultSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('answered'),
    answers: z.record(z.string(), z.array(z.string())),
    answeredBy: ResponderSchema,
    answeredAt: z.string(),
  }),
  z.object({ status: z.literal('no_answer'), reason: NoAnswerReasonSchema, at: z.string(), by: ResponderSchema.optional() }),
]);
/** The typed result an agent receives. */
export type AskResult = z.output<typeof AskResultSchema>;

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
});
/** One delivery of an ask to one target. */
export type Delivery = z.output<typeof DeliverySchema>;

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
});
/** One step in an ask's history. */
export type HistoryEntry = z.output<typeof HistoryEntrySchema>;

/** Ask status as the API reports it. */
export const AskStatusSchema = z.enum(['pending', 'answered', 'no_answer']);
/** Ask status. */
export type AskStatus = z.output<typeof AskStatusSchema>;

/** The stored record of one ask (read back from storage through this schema). */
export const AskRecordSchema = z.object({
  id: z.string(),
  runId: z.string(),
  version: z.number().int().positive(),
  /** Revision of the stored document; every commit increments it (compare-and-set token). */
  rev: z.number().int().nonnegative(),
  status: AskStatusSchema,
  questions: z.array(
    z.object({
      id: z.string(),
      header: z.string().optional(),
      question: z.string(),
      options: z.array(z.object({ label: z.string(), description: z.string().optional() })),
      multiSelect: z.boolean(),
    }),
  ),
  // Read back without the input rules, so records written before a rule was added stay readable.
  to: z.object({ channel: z.string(), chat: z.string(), thread: z.string().optional(), users: z.array(z.string()).optional() }).nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
  timeoutSeconds: z.number().int(),
  result: AskResultSchema.nullable(),
  /** Answers collected so far from partial replies; merged into the result when complete. */
  partial: z.record(z.string(), z.array(z.string())),
  deliveries: z.array(DeliverySchema),
  idempotencyKey: z.string().optional(),
  /** Signed webhook that receives the terminal result. */
  callbackUrl: z.string().optional(),
  /** The ask's history, oldest first (capped; see core/lifecycle.ts). */
  history: z.array(HistoryEntrySchema).default([]),
});
/** The stored record of one ask. */
export type AskRecord = z.output<typeof AskRecordSchema>;

/** An ask as the API shows it: the stored record without internal bookkeeping. */
export const AskViewSchema = AskRecordSchema.omit({ rev: true, idempotencyKey: true, history: true });
/** An ask as the API shows it. */
export type AskView = z.output<typeof AskViewSchema>;

/** The record as the API shows it (internal bookkeeping left out). */
export function publicRecord(record: AskRecord): AskView {
  const { rev: _rev, idempotencyKey: _key, history: _history, ...rest } = record;
  return rest;
}

/** The JSON body of a result webhook: the terminal result of one ask. */
export const WebhookPayloadSchema = z.object({
  askId: z.string(),
  runId: z.string(),
  version: z.number().int().positive(),
  result: AskResultSchema,
});
/** The JSON body of a result webhook. */
export type WebhookPayload = z.output<typeof WebhookPayloadSchema>;
