import { z } from 'zod';
import {
  AskRequestSchema,
  NoAnswerReasonSchema,
  defaultQuestionId,
  type AskResult,
  type NoAnswerReason,
  type Target,
} from '../core/schemas.js';
import type { AskInput, AskView } from '../client/index.js';
import { ownValue } from '../core/own.js';
import { shorten } from '../core/text.js';
import { CHANNEL_DISPLAY_LIST } from '../channels/registry.js';
import { QuestionInput, questionOf } from './question-input.js';
import { PolicyInputShape, PolicyOutputShape, ToolInputError, policyFields, targetsOf } from './policy-args.js';
import { ApprovalOutputShape, renderApprovalResult } from './approval-result.js';

/** Name of the tool that asks. */
export const TOOL_NAME = 'ask_user';
/** Name of the tool that keeps waiting on an ask that `ask_user` returned as pending. */
export const AWAIT_TOOL_NAME = 'await_answer';

/** The tool description: it teaches the model when and how to ask. */
export const TOOL_DESCRIPTION = `Ask the user (a human, reached over chat: ${CHANNEL_DISPLAY_LIST} or the askgate console) 1–3 questions and wait for the answer: a choice among options, or a typed answer (free text, a number, a date, a time, a date and time, an email address, a link).

Use it when a decision belongs to the user: preferences, trade-offs, scope, irreversible or costly actions, or requirements you cannot settle from the context. Do not ask what you can find out yourself, and do not ask for confirmation of routine steps.
- Prefer one question. Ask several (at most 3) only when they are needed together.
- A choice (kind "choice", the default): offer 2–4 distinct options. Put the option you recommend first and end its label with " (Recommended)". Do not add an "Other" or "Skip" option: the user can always answer in their own words or skip.
- When the answer is a number, a date, a time, an address, a link or free text, do not invent options: set kind "number" (min, max, integer, unit), "date" (min, max as "YYYY-MM-DD"), "time" (min, max as "HH:MM"), "datetime" (min, max as ISO 8601 with an offset), "email", "url" or "text" (minLength, maxLength up to 4000, pattern: RE2 matched against the whole answer), e.g. {"question": "How many replicas?", "kind": "number", "min": 1, "max": 10, "integer": true}. Typed questions take no options; the user's reply is read in their language and checked, and they are asked again until it fits.
- Never ask for passwords, API keys, tokens or other secrets.
- header (optional) is a very short label (about 12 characters), e.g. "Deploy"; id (optional, default q1, q2, … by position) is a snake_case key, e.g. "deploy_target".

The question stays open until the user answers or timeoutSeconds (default 900, clamped to 30–3600) passes; one call waits at most about a minute. The result is {"status": "answered", "answers": {"<question id>": ["<option label, the user's own words, or a typed answer as text>", ...]}, "values": {"<question id>": <the answer with its JSON type: a number for kind number, "YYYY-MM-DD" for date, "HH:MM" for time, ISO 8601 with the offset of timeZone for datetime, the text, address or URL, the list of labels for a choice>}, "raw": {"<question id>": "<what the user wrote, when it differs from the value>"}}, {"status": "no_answer", "reason": "timeout" | "skipped" | "cancelled" | "superseded" | "undelivered"}, or {"status": "pending", "askId": "...", "expiresAt": "..."} when the user has not answered yet: then call await_answer with that askId (again while it returns pending) instead of asking again. On no_answer, do not ask the same question again right away: proceed with your best judgment (usually the recommended option) and state the assumption you made.

Optional policies: "to" may list up to 5 chats; remindAfterSeconds posts reminders (remindEverySeconds: as a cadence, for asks that wait for days; a target's hours keep them in working hours); escalate asks more people when nobody answered in time; onTimeout.default gives the answers to proceed with after a timeout (returned as "defaults" on no_answer, never as an answer); agree: N waits until N people gave the same answers (the result then lists "responses"). locale (e.g. "pt-BR") sets the language of askgate's own words around your question (buttons, hints, notices) and how typed replies are read; write the question and labels in that language too. timeZone (IANA, e.g. "America/Sao_Paulo") sets the zone of the times shown and of dates and times the user types.`;

/** The description of `await_answer`. */
export const AWAIT_DESCRIPTION = `Keep waiting for the answer to a question that ask_user or request_approval (or an earlier await_answer) returned as {"status": "pending", "askId": "..."}. Pass that askId. The result is the same as the asking tool's: answered (for an approval, with its decision), no_answer, or pending again (then call await_answer again with the same askId). Never ask the question again while it is pending.`;

/** Input schema of `await_answer`. */
export const AwaitAnswerInputShape = {
  askId: z.string().describe('The askId of a pending result of ask_user, request_approval or await_answer'),
};

/** Input schema of `ask_user` (the OpenClaw shape, plus optional `to`, `runId` and the ask policies). */
export const AskUserInputShape = {
  questions: z
    .array(QuestionInput)
    .min(1, 'ask at least 1 question')
    .max(3, 'ask at most 3 questions')
    .describe('1–3 questions; prefer one'),
  timeoutSeconds: z
    .number()
    .optional()
    .describe('How long to wait for the answer, in seconds (default 900, clamped to 30–3600)'),
  expiresAt: z
    .string()
    .optional()
    .describe(
      'Instead of timeoutSeconds: when the question ends, ISO 8601 with an offset, e.g. "2026-12-24T17:00:00Z" (within an hour; up to 30 days when called as a task)',
    ),
  ...PolicyInputShape,
  locale: z
    .string()
    .optional()
    .describe(
      'BCP 47 language of the buttons, hints and notices around the question, e.g. "pt-BR", "es", "de" (default: the server\'s)',
    ),
  timeZone: z
    .string()
    .optional()
    .describe('IANA time zone of the times shown to the user, e.g. "America/Sao_Paulo" (default UTC)'),
  runId: z
    .string()
    .optional()
    .describe('Run id of the agent; default: this MCP session. A new ask on the same run replaces its pending one.'),
};
/** Validated arguments of `ask_user`. */
export type AskUserArgs = z.output<z.ZodObject<typeof AskUserInputShape>>;

/** Structured result of `ask_user`. */
export const AskUserOutputShape = {
  status: z.enum(['answered', 'no_answer', 'pending']),
  askId: z.string().optional().describe('When pending: the id to pass to await_answer'),
  expiresAt: z.string().optional().describe('When pending: when the question times out (ISO 8601)'),
  answers: z
    .record(z.string(), z.array(z.string()))
    .optional()
    .describe("Question id -> chosen labels, the user's own words, or a typed answer as text"),
  values: z
    .record(z.string(), z.union([z.number(), z.string(), z.array(z.string())]))
    .optional()
    .describe(
      "Question id -> the answer (or, on no_answer, the default) with its JSON type: a number, a string (text, date, time, datetime, email, url), or a choice's labels",
    ),
  raw: z
    .record(z.string(), z.string())
    .optional()
    .describe('Question id -> what the user wrote for a typed question, where it differs from the value'),
  reason: z
    .union([NoAnswerReasonSchema, z.string()])
    .optional()
    .describe("no_answer: why nobody answered; an approval's decision: the person's words"),
  ...PolicyOutputShape,
  ...ApprovalOutputShape,
};

export { ToolInputError };

/**
 * Builds the ask from tool arguments and checks it against askgate's own rules (unique labels,
 * reserved labels, ids), so the model learns exactly which field to fix.
 */
export function toAskInput(args: AskUserArgs, defaults: { runId: string; to?: Target }): AskInput {
  const to = args.to !== undefined ? targetsOf(args.to, 'to') : defaults.to;
  const input: AskInput = {
    runId: args.runId ?? defaults.runId,
    ...(to ? { to } : {}),
    questions: args.questions.map((q, i) => questionOf(q, q.id ?? defaultQuestionId(i))) as AskInput['questions'],
    // Any number is accepted, rounded, and clamped by askgate to its bounds (huge ones to the maximum).
    ...(args.timeoutSeconds !== undefined ? { timeoutSeconds: Math.max(1, Math.round(args.timeoutSeconds)) } : {}),
    ...(args.expiresAt !== undefined ? { expiresAt: args.expiresAt } : {}),
    ...policyFields(args),
    ...(args.locale !== undefined ? { locale: args.locale } : {}),
    ...(args.timeZone !== undefined ? { timeZone: args.timeZone } : {}),
  };
  const checked = AskRequestSchema.safeParse(input);
  if (!checked.success) {
    throw new ToolInputError(
      checked.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; '),
    );
  }
  return input;
}

/** A wait that ended before the ask did: the ask stays open and `await_answer` picks it up. */
export interface PendingResult {
  status: 'pending';
  askId: string;
  expiresAt: string;
}
/** What one bounded wait came to. */
export type WaitOutcome = AskResult | PendingResult;

/**
 * The tool result: structured content plus a short text rendering for the model. An ask without
 * questions is an approval: its decision (or why there was none) renders as one.
 */
export function renderResult(result: WaitOutcome, questions: readonly { id: string; header?: string }[]) {
  if (questions.length === 0 && result.status !== 'pending') return renderApprovalResult(result);
  if (result.status === 'pending') {
    const { askId, expiresAt } = result;
    return {
      content: [
        {
          type: 'text' as const,
          text: `The user has not answered yet; the question stays open until ${expiresAt}. Call the tool ${AWAIT_TOOL_NAME} with {"askId": "${askId}"} to keep waiting (do not ask again).`,
        },
      ],
      structuredContent: { status: 'pending' as const, askId, expiresAt },
    };
  }
  if (result.status === 'answered') {
    const lines = questions.map((q) => {
      const wrote = result.raw ? ownValue(result.raw, q.id) : undefined;
      const from = wrote !== undefined ? ` (the user wrote ${JSON.stringify(shorten(wrote, 80))})` : '';
      return `- ${q.header ?? q.id} (${q.id}): ${(ownValue(result.answers, q.id) ?? []).join(', ')}${from}`;
    });
    const agreed = result.responses
      ? `\n${result.responses.length} people answered; "responses" in the structured result lists each one.`
      : '';
    return {
      content: [{ type: 'text' as const, text: `The user answered:\n${lines.join('\n')}${agreed}` }],
      structuredContent: {
        status: 'answered' as const,
        answers: result.answers,
        ...(result.values ? { values: result.values } : {}),
        ...(result.raw ? { raw: result.raw } : {}),
        ...(result.responses ? { responses: result.responses } : {}),
      },
    };
  }
  const why: Record<NoAnswerReason, string> = {
    timeout: 'the question timed out',
    skipped: 'the user skipped the question',
    cancelled: 'the question was cancelled',
    superseded: 'a newer question on this run replaced it',
    undelivered: 'the question could not be delivered',
  };
  const { defaults, values, responses } = result;
  const counted = responses
    ? ` ${responses.length} ${responses.length === 1 ? 'person' : 'people'} answered, but not enough gave the same answers.`
    : '';
  const next = defaults
    ? ` The ask named defaults for this case: proceed with them and say that you used the default:\n${questions
        .filter((q) => Object.hasOwn(defaults, q.id))
        .map((q) => `- ${q.header ?? q.id} (${q.id}): ${(ownValue(defaults, q.id) ?? []).join(', ')}`)
        .join('\n')}`
    : ' Proceed with your best judgment and state the assumption you made.';
  return {
    content: [{ type: 'text' as const, text: `No answer (${result.reason}: ${why[result.reason]}).${counted}${next}` }],
    structuredContent: {
      status: 'no_answer' as const,
      reason: result.reason,
      ...(defaults ? { defaults } : {}),
      ...(defaults && values ? { values } : {}),
      ...(responses ? { responses } : {}),
    },
  };
}

/** A tool error result (`isError: true`) with a message for the model. */
export function toolError(message: string) {
  return { content: [{ type: 'text' as const, text: message }], isError: true };
}

/** The ask was not found (`await_answer` with an id askgate does not know). */
export class UnknownAskError extends Error {}

/** What a backend hands back once an ask exists. */
export type CreatedAsk = Pick<AskView, 'id' | 'timeoutSeconds' | 'to' | 'targets' | 'createdAt' | 'expiresAt'>;

/**
 * How the MCP server asks and waits: through the HTTP API (stdio) or the gateway (`/mcp`).
 * Every wait returns within `waitMs` (pending if the ask is still open); an abort cancels the ask.
 */
export interface AskBackend {
  /** Creates the ask and waits for its result. */
  ask(
    input: AskInput,
    opts: { signal: AbortSignal; waitMs: number; onCreated: (ask: CreatedAsk) => void },
  ): Promise<WaitOutcome>;
  /** Waits for the result of an existing ask; throws {@link UnknownAskError} when there is none. */
  await(
    askId: string,
    opts: { signal: AbortSignal; waitMs: number },
  ): Promise<{
    outcome: WaitOutcome;
    questions: { id: string; header?: string }[];
    createdAt: string;
    expiresAt: string;
  }>;
  /** Cancels an ask (a no-op when it already ended); throws {@link UnknownAskError} when there is none. */
  cancel(askId: string): Promise<void>;
}
