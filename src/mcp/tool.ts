import { z } from 'zod';
import { AskRequestSchema, ChannelNameSchema, NoAnswerReasonSchema, QuestionIdSchema, type AskResult, type NoAnswerReason, type Target } from '../core/schemas.js';
import type { AskInput, AskView } from '../client/index.js';
import { parseTargetSpec } from '../config.js';
import { ownValue } from '../core/own.js';

/** Name of the one tool the askgate MCP server offers. */
export const TOOL_NAME = 'ask_user';

/** The tool description: it teaches the model when and how to ask. */
export const TOOL_DESCRIPTION = `Ask the user (a human, reached over chat: Telegram, Slack, Discord or the askgate console) 1–3 multiple-choice questions and wait for the answer.

Use it when a decision belongs to the user: preferences, trade-offs, scope, irreversible or costly actions, or requirements you cannot settle from the context. Do not ask what you can find out yourself, and do not ask for confirmation of routine steps.
- Prefer one question. Ask several (at most 3) only when they are needed together.
- Offer 2–4 distinct options. Put the option you recommend first and end its label with " (Recommended)".
- Do not add an "Other" or "Skip" option: the user can always answer in their own words or skip.
- Never ask for passwords, API keys, tokens or other secrets.
- header is a very short label (about 12 characters), e.g. "Deploy"; id is a snake_case key, e.g. "deploy_target".

The call blocks until the user answers or timeoutSeconds (default 900, clamped to 30–3600) passes. The result is {"status": "answered", "answers": {"<question id>": ["<option label or the user's own words>", ...]}} or {"status": "no_answer", "reason": "timeout" | "skipped" | "cancelled" | "superseded" | "undelivered"}. On no_answer, do not ask the same question again right away: proceed with your best judgment (usually the recommended option) and state the assumption you made.`;

const OptionInput = z.object({
  label: z.string().min(1, 'must not be empty').max(100, 'must be at most 100 characters').describe('Short option label (1–5 words), shown on a button'),
  description: z.string().max(300, 'must be at most 300 characters').optional().describe('What choosing this option means'),
});

const QuestionInput = z.object({
  id: QuestionIdSchema.describe('snake_case key of this question in the answers, e.g. "deploy_target"'),
  header: z.string().min(1, 'must not be empty').max(60, 'must be at most 60 characters').describe('Very short label, about 12 characters, e.g. "Deploy"'),
  question: z.string().min(1, 'must not be empty').max(1000, 'must be at most 1000 characters').describe('The full question'),
  options: z.array(OptionInput).min(2, 'offer at least 2 options').max(4, 'offer at most 4 options').describe('2–4 options, the recommended one first'),
  multiSelect: z.boolean().optional().describe('true when several options may be chosen (default false)'),
});

const TargetInput = z.object({
  channel: ChannelNameSchema.describe('e.g. "telegram", "slack", "discord"'),
  chat: z.string().min(1).max(128).describe('Chat, channel or user id on that platform'),
  thread: z.string().min(1).max(128).optional(),
  users: z.array(z.string().min(1).max(64)).min(1).max(50).optional().describe('Platform user ids allowed to answer (default: anyone in the chat)'),
});

/** Input schema of `ask_user` (the OpenClaw shape, plus optional `to` and `runId`). */
export const AskUserInputShape = {
  questions: z.array(QuestionInput).min(1, 'ask at least 1 question').max(3, 'ask at most 3 questions').describe('1–3 questions; prefer one'),
  timeoutSeconds: z.number().optional().describe('How long to wait for the answer, in seconds (default 900, clamped to 30–3600)'),
  to: z
    .union([z.string().describe('"<channel>:<chat>", e.g. "telegram:123456"'), TargetInput])
    .optional()
    .describe('Where to ask; leave it out to use the configured default'),
  runId: z.string().optional().describe('Run id of the agent; default: this MCP session. A new ask on the same run replaces its pending one.'),
};
/** Validated arguments of `ask_user`. */
export type AskUserArgs = z.output<z.ZodObject<typeof AskUserInputShape>>;

/** Structured result of `ask_user`. */
export const AskUserOutputShape = {
  status: z.enum(['answered', 'no_answer']),
  answers: z.record(z.string(), z.array(z.string())).optional().describe('Question id -> chosen labels or the user\'s own words'),
  reason: NoAnswerReasonSchema.optional(),
};

/** Thrown when the arguments are invalid; the message names each offending field. */
export class ToolInputError extends Error {}

/** Parses `"<channel>:<chat>"` or an object into a target. */
function targetOf(to: AskUserArgs['to']): Target | undefined {
  if (to === undefined) return undefined;
  if (typeof to !== 'string') return to;
  try {
    return parseTargetSpec(to);
  } catch (error) {
    throw new ToolInputError(`to: ${(error as Error).message}`);
  }
}

/**
 * Builds the ask from tool arguments and checks it against askgate's own rules (unique labels,
 * reserved labels, ids), so the model learns exactly which field to fix.
 */
export function toAskInput(args: AskUserArgs, defaults: { runId: string; to?: Target }): AskInput {
  const to = targetOf(args.to) ?? defaults.to;
  const input: AskInput = {
    runId: args.runId ?? defaults.runId,
    ...(to ? { to } : {}),
    questions: args.questions.map((q) => ({ id: q.id, header: q.header, question: q.question, options: q.options, multiSelect: q.multiSelect ?? false })),
    // Any number is accepted, rounded, and clamped by askgate to its bounds (huge ones to the maximum).
    ...(args.timeoutSeconds !== undefined ? { timeoutSeconds: Math.max(1, Math.round(args.timeoutSeconds)) } : {}),
  };
  const checked = AskRequestSchema.safeParse(input);
  if (!checked.success) {
    throw new ToolInputError(checked.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; '));
  }
  return input;
}

/** The tool result: structured content plus a short text rendering for the model. */
export function renderResult(result: AskResult, questions: AskUserArgs['questions']) {
  if (result.status === 'answered') {
    const lines = questions.map((q) => `- ${q.header} (${q.id}): ${(ownValue(result.answers, q.id) ?? []).join(', ')}`);
    return {
      content: [{ type: 'text' as const, text: `The user answered:\n${lines.join('\n')}` }],
      structuredContent: { status: 'answered' as const, answers: result.answers },
    };
  }
  const why: Record<NoAnswerReason, string> = {
    timeout: 'the question timed out',
    skipped: 'the user skipped the question',
    cancelled: 'the question was cancelled',
    superseded: 'a newer question on this run replaced it',
    undelivered: 'the question could not be delivered',
  };
  return {
    content: [{ type: 'text' as const, text: `No answer (${result.reason}: ${why[result.reason]}). Proceed with your best judgment and state the assumption you made.` }],
    structuredContent: { status: 'no_answer' as const, reason: result.reason },
  };
}

/** A tool error result (`isError: true`) with a message for the model. */
export function toolError(message: string) {
  return { content: [{ type: 'text' as const, text: message }], isError: true };
}

/** Asks and waits for the result; the MCP server is built over one of these (HTTP client or gateway). */
export type AskFn = (input: AskInput, opts: { signal: AbortSignal; onCreated: (ask: Pick<AskView, 'id' | 'timeoutSeconds' | 'to'>) => void }) => Promise<AskResult>;
