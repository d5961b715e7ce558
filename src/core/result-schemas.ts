import { z } from 'zod';
import { ResponderSchema } from './request-schemas.js';

/** Why an ask ended without an answer. */
export const NoAnswerReasonSchema = z.enum(['timeout', 'skipped', 'cancelled', 'superseded', 'undelivered']);
/** Why an ask ended without an answer. */
export type NoAnswerReason = z.output<typeof NoAnswerReasonSchema>;

const AnswersRead = z.record(z.string(), z.array(z.string()));

/** One person's answers to an ask that needs several matching answers (`agree` > 1). */
export const ResponseSchema = z.object({ answers: AnswersRead, answeredBy: ResponderSchema, answeredAt: z.string() });
/** One person's answers to an ask that needs several matching answers. */
export type Response = z.output<typeof ResponseSchema>;

/** The typed result an agent receives. */
export const AskResultSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('answered'),
    answers: z.record(z.string(), z.array(z.string())),
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
