import { z } from 'zod';
import { ResponderSchema } from './request-schemas.js';
import { DECISIONS } from './approval/decisions.js';

const DecisionRead = z.enum(DECISIONS);

/** Why an ask ended without an answer. */
export const NoAnswerReasonSchema = z.enum(['timeout', 'skipped', 'cancelled', 'superseded', 'undelivered']);
/** Why an ask ended without an answer. */
export type NoAnswerReason = z.output<typeof NoAnswerReasonSchema>;

const AnswersRead = z.record(z.string(), z.array(z.string()));
/** Normalized values by question id: a choice's labels, a number, or a typed kind's text. */
const ValuesRead = z.record(z.string(), z.union([z.string(), z.number(), z.array(z.string())]));
/** What people wrote for typed questions where it differs from the kept value. Never logged nor shown in a group. */
const RawRead = z.record(z.string(), z.string());

/** One person's answers to an ask that needs several matching answers (`agree` > 1). */
export const ResponseSchema = z.object({
  answers: AnswersRead,
  raw: RawRead.optional(),
  /** An approval's response: the person's decision (and reason). */
  decision: DecisionRead.optional(),
  reason: z.string().optional(),
  answeredBy: ResponderSchema,
  answeredAt: z.string(),
});
/** One person's answers to an ask that needs several matching answers. */
export type Response = z.output<typeof ResponseSchema>;

/** The typed result an agent receives. */
export const AskResultSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('answered'),
    /** Strings per question id (a typed question's normalized value as text): what agents read before `values`. */
    answers: z.record(z.string(), z.array(z.string())),
    /** The normalized values with their JSON types (a number as a number): every answer askgate records has them. */
    values: ValuesRead.optional(),
    /** What the person wrote for typed questions, where it differs from the normalized value. */
    raw: RawRead.optional(),
    /** An approval: the decision, the person's reason, the arguments to run and both hashes. */
    decision: DecisionRead.optional(),
    reason: z.string().optional(),
    arguments: z.record(z.string(), z.unknown()).optional(),
    /** `sha256:<hex>` of the proposed `{action, arguments}`. */
    actionHash: z.string().optional(),
    /** `sha256:<hex>` of `{action, arguments}` as they are to run (the edited ones after `edit`). */
    effectiveHash: z.string().optional(),
    answeredBy: ResponderSchema,
    answeredAt: z.string(),
    /** `agree` > 1: everyone who answered, matching or not. */
    responses: z.array(ResponseSchema).optional(),
  }),
  z.object({
    status: z.literal('no_answer'),
    reason: NoAnswerReasonSchema,
    at: z.string(),
    by: ResponderSchema.optional(),
    /** A timeout with `onTimeout.default`: the answers to proceed with. Never an answer: nobody gave it. */
    defaults: AnswersRead.optional(),
    /** The defaults' values with their JSON types (see the answered result's `values`). */
    values: ValuesRead.optional(),
    /** An approval that timed out with `onTimeout.decision`: the decision stated (never an answer: nobody gave it). */
    decision: z.enum(['approve', 'reject']).optional(),
    /** `agree` > 1: what was answered before the ask ended. */
    responses: z.array(ResponseSchema).optional(),
  }),
]);
/** The typed result an agent receives. */
export type AskResult = z.output<typeof AskResultSchema>;

/** The JSON body of a result webhook: the terminal result of one ask. */
export const WebhookPayloadSchema = z.object({
  askId: z.string(),
  runId: z.string(),
  version: z.number().int().positive(),
  result: AskResultSchema,
});
/** The JSON body of a result webhook. */
export type WebhookPayload = z.output<typeof WebhookPayloadSchema>;
