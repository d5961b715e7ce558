import { z } from 'zod';
import { platformId, shownText, singleLine } from './shown-text.js';
import { KIND_MODULES, KIND_NAMES, type KindModule } from './questions/index.js';
import type { Question } from './stored-question.js';
import { staticPolicyIssues } from './request-policy.js';
import { valueStrings } from './answer-schemas.js';
import { ApprovalRequestSchema } from './approval/approval-schema.js';
import { approvalPolicyIssues } from './approval/approval-policy.js';
import { canonicalLocale, isTimeZone } from './locale-tags.js';
import { WorkingHoursSchema } from './working-hours.js';

import type { OptionSchema } from './questions/choice.js';

export { OptionSchema } from './questions/choice.js';

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

/** The id of the question at `index` (0-based) that names none: `q1`, `q2`, … */
export const defaultQuestionId = (index: number): string => `q${index + 1}`;

/** What every question has, whatever its kind. */
const questionFields = {
  id: QuestionIdSchema.optional(),
  header: singleLine(60).optional(),
  question: shownText(1000, { multiline: true }),
};

/** One kind's question: the common fields, the kind's own, the kind's rules over them. */
function kindSchema(kind: KindModule) {
  const refine = kind.refine as (q: unknown, ctx: z.RefinementCtx) => void;
  return z
    .object({ ...questionFields, ...kind.fields })
    .strict()
    .superRefine((q, ctx) => refine(q, ctx));
}

/** One kind's question schema (strict: a field of another kind is refused by name). */
type KindSchemaOf<M> = M extends { fields: infer F extends z.ZodRawShape }
  ? z.ZodObject<typeof questionFields & F, z.core.$strict>
  : never;

/** Each kind's question schema, in the registry's order (a tuple: the union keeps every member's type). */
type EachKindSchema<T extends readonly unknown[]> = { readonly [I in keyof T]: KindSchemaOf<T[I]> };
type KindSchemas = EachKindSchema<typeof KIND_MODULES>;

/**
 * One question: the common fields and its kind's (core/questions/), by `kind` (absent: `choice`,
 * 2–4 options). A field of another kind is refused by name.
 */
export const QuestionSchema = z.discriminatedUnion('kind', KIND_MODULES.map(kindSchema) as unknown as KindSchemas, {
  error: (issue) => (issue.code === 'invalid_union' ? `must be one of: ${KIND_NAMES.join(', ')}` : undefined),
});

export type { ChoiceQuestionRecord, Question } from './stored-question.js';
/** An option as stored. */
export type Option = z.output<typeof OptionSchema>;

/** Channel names: lower-case identifiers such as `telegram`, `slack`, `discord`. */
export const ChannelNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a channel name such as "telegram"');

/** Where a question is delivered and who may answer it. */
export const TargetSchema = z
  .object({
    channel: ChannelNameSchema,
    // 256: a Teams personal conversation id (`a:1…`) is about 131 characters.
    chat: platformId(256),
    thread: platformId(128).optional(),
    users: z.array(platformId(64)).min(1, 'list at least one user, or leave users out').max(50).optional(),
    /** When the people there work: a reminder or escalation step due outside waits for the next opening. */
    hours: WorkingHoursSchema.optional(),
  })
  .strict();
/** Delivery target. */
export type Target = z.output<typeof TargetSchema>;

/** Most targets of one ask (or of one escalation step). */
export const MAX_TARGETS = 5;

const sameTarget = (a: Target, b: Target) => a.channel === b.channel && a.chat === b.chat && a.thread === b.thread;

/** 1–5 targets; the same conversation (channel, chat and thread) twice is refused. */
export const TargetListSchema = z
  .array(TargetSchema)
  .min(1, 'list at least one target')
  .max(MAX_TARGETS, `list at most ${MAX_TARGETS} targets`)
  .superRefine((targets, ctx) => {
    targets.forEach((t, i) => {
      const first = targets.findIndex((o) => sameTarget(o, t));
      if (first < i)
        ctx.addIssue({
          code: 'custom',
          path: [i],
          message: `duplicates target ${first + 1} (same channel, chat and thread)`,
        });
    });
  });

/** Where an ask (or an escalation step) goes: one target or a list of 1–5. */
export const TargetsSchema = z.union([TargetSchema, TargetListSchema], {
  error: `must be a target {channel, chat} or a list of 1–${MAX_TARGETS} targets`,
});

/** A whole positive number of seconds after the ask was created. */
const offsetSeconds = z
  .number('must be a number of seconds')
  .int('must be a whole number of seconds')
  .positive('must be positive')
  .max(366 * 86_400, 'must be at most a year');

/** One escalation step: at `afterSeconds`, if still pending, the ask also goes to `to`. */
export const EscalationStepSchema = z.object({ afterSeconds: offsetSeconds, to: TargetsSchema }).strict();

/**
 * `onTimeout.default`: per question id, labels (a choice) or one typed value (a number, or a string:
 * checked by the question's kind like an API answer). Keys like `__proto__` are refused (JSON.parse
 * keeps them, zod would drop them).
 */
const DefaultAnswersSchema = z.preprocess(
  (value, ctx) => {
    if (value && typeof value === 'object' && Object.hasOwn(value, '__proto__'))
      ctx.addIssue({ code: 'custom', path: ['__proto__'], message: 'names like "__proto__" are reserved' });
    return value;
  },
  z.record(
    z.string(),
    z
      .union([
        z.array(singleLine(100)).min(1, 'give at least one label').max(4, 'give at most 4 labels'),
        z.number(),
        shownText(4000, { multiline: true }),
      ])
      .transform(valueStrings),
  ),
);

/** What the ask ends with when nobody answered in time. */
export const OnTimeoutSchema = z
  .object({
    default: DefaultAnswersSchema.optional(),
    /** An approval: the decision stated when nobody decided in time (beside `no_answer`, never an answer). */
    decision: z.enum(['approve', 'reject'], 'must be "approve" or "reject"').optional(),
  })
  .strict()
  .refine((o) => (o.default === undefined) !== (o.decision === undefined), {
    message: 'give default (questions) or decision (an approval)',
  });

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
export const TimeoutSecondsSchema = z.custom<number>((v) => timeoutProblem(v) === null, {
  error: (issue) => timeoutProblem(issue.input) ?? 'invalid',
});

/**
 * An absolute deadline: an ISO 8601 time with its offset (`2026-12-24T17:00:00Z`,
 * `2026-12-24T18:00:00+01:00`). Whether it is far enough ahead and within the allowed wait is the
 * gateway's (it needs the clock); only its form is checked here.
 */
export const ExpiresAtSchema = z.iso.datetime({
  offset: true,
  error: 'must be an ISO 8601 time with an offset, e.g. "2026-12-24T17:00:00Z"',
});

/** A BCP 47 language tag (`pt-BR`, `es`, `de-CH`), checked with `Intl.getCanonicalLocales` and kept in canonical form. */
export const LocaleSchema = z
  .string('must be a BCP 47 language tag such as "pt-BR"')
  .max(64, 'must be at most 64 characters')
  .refine((tag) => canonicalLocale(tag) !== null, 'must be a BCP 47 language tag such as "pt-BR"')
  .transform((tag) => canonicalLocale(tag)!);

/** An IANA time zone (`America/Sao_Paulo`, `UTC`), checked with `Intl.DateTimeFormat` and kept in its canonical spelling. */
export const TimeZoneSchema = z
  .string('must be an IANA time zone such as "America/Sao_Paulo"')
  .max(64, 'must be at most 64 characters')
  .refine(isTimeZone, 'must be an IANA time zone such as "America/Sao_Paulo"')
  .transform((zone) => new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone);

/**
 * The name of the agent that asks (e.g. `"deploy-bot"`): shown text on one line, up to 64
 * characters. Operators filter the pending asks by it (`GET /v1/asks?agent=`).
 */
export const AgentNameSchema = singleLine(64);

/** The body of `POST /v1/asks`. */
export const AskRequestSchema = z
  .object({
    runId: RunIdSchema,
    agent: AgentNameSchema.optional(),
    to: TargetsSchema.optional(),
    questions: z.array(QuestionSchema).min(1, 'ask at least 1 question').max(3, 'ask at most 3 questions').optional(),
    /** Instead of questions: the exact action a person is asked to authorize. */
    approval: ApprovalRequestSchema.optional(),
    timeoutSeconds: TimeoutSecondsSchema.optional(),
    /** Instead of `timeoutSeconds`: when the ask ends, an absolute time. */
    expiresAt: ExpiresAtSchema.optional(),
    /**
     * The caller comes back by ask id (API, SDK, SSE) rather than blocking: the ask may wait up to
     * the long maximum (`ASKGATE_ASYNC_TIMEOUT_MAX_SECONDS`), like one with a `callbackUrl`.
     */
    async: z.boolean('must be true or false').optional(),
    callbackUrl: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .max(2000)
      .optional(),
    remindAfterSeconds: z
      .array(offsetSeconds)
      .min(1, 'give at least one offset')
      .max(3, 'give at most 3 offsets')
      .optional(),
    /**
     * Reminders as a cadence, after the `remindAfterSeconds` ones (else from creation), each in the
     * targets' working hours, up to 20 reminders in all (core/cadence.ts; the least cadence, an
     * hour by default, and the cap are checked against the deadline when the ask is created).
     */
    remindEverySeconds: offsetSeconds.optional(),
    escalate: z.array(EscalationStepSchema).min(1, 'give at least one step').max(3, 'give at most 3 steps').optional(),
    onTimeout: OnTimeoutSchema.optional(),
    agree: z
      .number('must be a number')
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(10, 'must be at most 10')
      .optional(),
    locale: LocaleSchema.optional(),
    timeZone: TimeZoneSchema.optional(),
  })
  .strict()
  .superRefine((req, ctx) => {
    if ((req.questions === undefined) === (req.approval === undefined))
      ctx.addIssue({ code: 'custom', path: ['questions'], message: 'send questions or an approval (one of them)' });
    if (req.timeoutSeconds !== undefined && req.expiresAt !== undefined)
      ctx.addIssue({ code: 'custom', path: ['expiresAt'], message: 'give timeoutSeconds or expiresAt, not both' });
    for (const issue of approvalPolicyIssues(req)) ctx.addIssue({ code: 'custom', ...issue });
  })
  .transform((req) => ({
    ...req,
    // A choice is stored without `kind` (absent means choice); an approval has no questions.
    questions: (req.questions ?? []).map((q, i): Question => {
      const { kind, ...rest } = q;
      const id = q.id ?? defaultQuestionId(i);
      return (kind === undefined || kind === 'choice' ? { ...rest, id } : { ...q, id }) as Question;
    }),
  }))
  .superRefine((req, ctx) => {
    const seen = new Set<string>();
    req.questions.forEach((q, i) => {
      if (seen.has(q.id))
        ctx.addIssue({ code: 'custom', path: ['questions', i, 'id'], message: `duplicate question id "${q.id}"` });
      seen.add(q.id);
    });
    for (const issue of staticPolicyIssues(req)) ctx.addIssue({ code: 'custom', ...issue });
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
