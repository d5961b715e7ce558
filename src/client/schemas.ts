/**
 * The SDK's public schemas and types, listed by name: what `askgate/client` promises to keep.
 * Each is the server's own definition (one truth for what askgate accepts and answers), so a
 * request the SDK validates is one the server accepts; an internal rename breaks this list at
 * compile time, not users. Server helpers (`publicRecord`, `labelKey`, ...) are not part of it.
 */
export {
  AnswerRequestSchema,
  AnswersSchema,
  AskRecordSchema,
  AskRequestSchema,
  AskResultSchema,
  AskStatusSchema,
  AskViewSchema,
  ChannelNameSchema,
  DeliverySchema,
  EscalationStepSchema,
  HistoryEntrySchema,
  HistoryTypeSchema,
  LocaleSchema,
  MessageRefSchema,
  NoAnswerReasonSchema,
  OnTimeoutSchema,
  OptionSchema,
  QuestionIdSchema,
  QuestionSchema,
  ResponderSchema,
  ResponseSchema,
  RunIdSchema,
  StoredPolicySchema,
  TargetListSchema,
  TargetSchema,
  TargetsSchema,
  TimeoutSecondsSchema,
  TimeZoneSchema,
  ValuesSchema,
  WebhookPayloadSchema,
  type AnswerRequest,
  type Answers,
  type AskRecord,
  type AskRequest,
  type AskResult,
  type AskStatus,
  type AskView,
  type Delivery,
  type HistoryEntry,
  type MessageRef,
  type NoAnswerReason,
  type Option,
  type Question,
  type Responder,
  type Response,
  type StoredPolicy,
  type Target,
  type WebhookPayload,
} from '../core/schemas.js';
export {
  ApprovalRequestSchema,
  RequestedBySchema,
  StoredApprovalSchema,
  type ApprovalRequest,
  type StoredApproval,
} from '../core/approval/approval-schema.js';
export { DECISIONS } from '../core/approval/decisions.js';
export { ExpiresAtSchema } from '../core/request-schemas.js';
export { ExtendRequestSchema } from '../core/deadline.js';

import type { z } from 'zod';
import type { QuestionSchema, ValuesSchema } from '../core/schemas.js';
import type { AnswerValue } from '../core/questions/kind.js';
import type { KindName } from '../core/questions/index.js';

/** One question of `ask()`, any kind (the input of `QuestionSchema`: `kind` absent means a choice). */
export type QuestionInput = z.input<typeof QuestionSchema>;
/** The kinds a question may be: `choice` (the default) and the typed kinds. */
export type QuestionKindName = KindName;
/** A choice: 2–4 `options`, one chosen or several (`multiSelect`), or the person's own words. */
export type ChoiceQuestionInput = Exclude<QuestionInput, { kind: Exclude<KindName, 'choice'> }>;
/** A free-text question: `minLength`, `maxLength` (default 1000, at most 4000), `pattern` (RE2, whole answer). */
export type TextQuestionInput = Extract<QuestionInput, { kind: 'text' }>;
/** A number question: `min`, `max`, `integer`, `unit`; its value in `values` is a JSON number. */
export type NumberQuestionInput = Extract<QuestionInput, { kind: 'number' }>;
/** A date question: `min`, `max` as `YYYY-MM-DD`; its value is `"YYYY-MM-DD"`. */
export type DateQuestionInput = Extract<QuestionInput, { kind: 'date' }>;
/** A time question: `min`, `max` as `HH:MM`; its value is `"HH:MM"` (24 h). */
export type TimeQuestionInput = Extract<QuestionInput, { kind: 'time' }>;
/** A date-and-time question: `min`, `max` ISO 8601 with an offset; its value is ISO 8601 with the offset of the ask's time zone. */
export type DateTimeQuestionInput = Extract<QuestionInput, { kind: 'datetime' }>;
/** An email address question; its value is the address (domain lower-cased). */
export type EmailQuestionInput = Extract<QuestionInput, { kind: 'email' }>;
/** A link question; its value is an absolute http(s) URL. */
export type UrlQuestionInput = Extract<QuestionInput, { kind: 'url' }>;
/** A question of a typed kind (every kind but `choice`): one value, typed by the person. */
export type TypedQuestionInput = Exclude<QuestionInput, ChoiceQuestionInput>;

/** One normalized answer in a result's `values`: a number, a typed kind's text, or a choice's labels. */
export type { AnswerValue };
/** A result's `values` (and what `answer(id, {values})` takes): question id → {@link AnswerValue}. */
export type AnswerValues = z.output<typeof ValuesSchema>;
