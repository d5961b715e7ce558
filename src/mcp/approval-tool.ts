// The `request_approval` tool: the agent names the exact action (tool name and arguments) and a person
// approves, rejects (saying why), requests changes or edits the arguments. The result binds the
// decision to the arguments to run through their hash, like `POST /v1/asks` with `approval`.
import { z } from 'zod';
import { AskRequestSchema, type Target } from '../core/schemas.js';
import { DECISIONS } from '../core/approval/decisions.js';
import type { AskInput } from '../client/index.js';
import { CHANNEL_DISPLAY_LIST } from '../channels/registry.js';
import { PolicyInputShape, ToolInputError, policyFields, targetsOf } from './policy-args.js';

/** Name of the tool that asks a person to authorize one action. */
export const APPROVAL_TOOL_NAME = 'request_approval';

/** The description of `request_approval`: it teaches the model when to ask and how to use the result. */
export const APPROVAL_DESCRIPTION = `Ask a person (over chat: ${CHANNEL_DISPLAY_LIST} or the askgate console) to authorize one specific action before you run it, and wait for their decision.

Use it before irreversible, costly or outward-facing actions (sending messages or emails, payments, deleting data, deploying, changing permissions) when the user asked to approve them. Give the exact tool name as action and the exact arguments you will run: the person sees them in full with a short hash, and the decision is bound to them.
- summary (optional): one sentence saying what the action does, shown first.
- preview (optional): text shown monospace, e.g. a diff of what will change (at most 32 KB).
- decisions (optional): which of "approve", "reject", "request_changes", "edit" to offer (default approve, reject, request_changes; add "edit" to let the person change the arguments); argumentsSchema (optional JSON Schema) is what edited arguments must satisfy.

The result is {"status": "answered", "decision": "approve" | "edit" | "reject" | "request_changes", "reason": "<the person's words>", "arguments": {...}, "actionHash": "sha256:...", "effectiveHash": "sha256:..."}:
- approve: run the action with exactly these arguments. edit: run it with the returned arguments (the person changed them), never the ones you proposed.
- reject: do not run it; the reason says why. request_changes: do not run it; change what the reason asks and request approval again.
{"status": "no_answer", "reason": "timeout" | "skipped" | "cancelled" | "superseded" | "undelivered"}: nobody approved, so do not run the action. {"status": "pending", "askId": "..."}: call await_answer with that askId (again while it is pending) instead of asking again.

Optional: "to" lists up to 5 chats; agree: N needs N different people to approve (one reject or request_changes ends it); onTimeout.decision states what the result reports beside a timeout (still no_answer); remindAfterSeconds and escalate as for ask_user. timeoutSeconds defaults to 900 (clamped to 30–3600).`;

/** Input schema of `request_approval`. */
export const RequestApprovalInputShape = {
  action: z.string().describe('The exact name of the tool or action to run, e.g. "send_email" (1–100 characters)'),
  arguments: z
    .record(z.string(), z.unknown())
    .describe('The exact arguments you will run it with (a JSON object, at most 32 KB)'),
  summary: z.string().optional().describe('One sentence saying what the action does, shown first'),
  preview: z.string().optional().describe('Text shown monospace, e.g. a diff of what will change (at most 32 KB)'),
  decisions: z
    .array(z.enum(DECISIONS))
    .optional()
    .describe(
      'Decisions to offer (default approve, reject, request_changes); add "edit" to let the person change the arguments',
    ),
  argumentsSchema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('A JSON Schema the edited arguments must satisfy (with "edit")'),
  requestedBy: z
    .object({ channel: z.string(), userId: z.string() })
    .optional()
    .describe(
      'The person who asked the agent for this action (channel and platform user id): they cannot approve it themselves',
    ),
  timeoutSeconds: z
    .number()
    .optional()
    .describe('How long to wait for the decision, in seconds (default 900, clamped to 30–3600)'),
  expiresAt: z
    .string()
    .optional()
    .describe(
      'Instead of timeoutSeconds: when the question ends, ISO 8601 with an offset, e.g. "2026-12-24T17:00:00Z" (within an hour; up to 30 days when called as a task)',
    ),
  to: PolicyInputShape.to,
  remindAfterSeconds: PolicyInputShape.remindAfterSeconds,
  remindEverySeconds: PolicyInputShape.remindEverySeconds,
  escalate: PolicyInputShape.escalate,
  agree: z
    .number()
    .optional()
    .describe('How many different people must approve (2–10; default 1). One reject or request_changes ends the ask.'),
  onTimeout: z
    .object({ decision: z.enum(['approve', 'reject']) })
    .optional()
    .describe('The decision reported beside a timeout; the result is still no_answer (nobody decided)'),
  locale: z.string().optional().describe('BCP 47 language of the buttons and notices, e.g. "pt-BR"'),
  runId: z
    .string()
    .optional()
    .describe('Run id of the agent; default: this MCP session. A new ask on the same run replaces its pending one.'),
};
/** Validated arguments of `request_approval`. */
export type RequestApprovalArgs = z.output<z.ZodObject<typeof RequestApprovalInputShape>>;

/** Builds the approval ask from tool arguments and checks it against askgate's own rules (each bad field named). */
export function toApprovalInput(args: RequestApprovalArgs, defaults: { runId: string; to?: Target }): AskInput {
  const to = args.to !== undefined ? targetsOf(args.to, 'to') : defaults.to;
  const { action, arguments: actionArgs, summary, preview, decisions, argumentsSchema, requestedBy } = args;
  const { onTimeout: _questionDefault, ...policy } = policyFields({ ...args, onTimeout: undefined });
  const input: AskInput = {
    runId: args.runId ?? defaults.runId,
    ...(to ? { to } : {}),
    approval: {
      action,
      arguments: actionArgs,
      ...(summary !== undefined ? { summary } : {}),
      ...(preview !== undefined ? { preview } : {}),
      ...(decisions !== undefined ? { decisions } : {}),
      ...(argumentsSchema !== undefined ? { argumentsSchema } : {}),
      ...(requestedBy !== undefined ? { requestedBy } : {}),
    },
    ...(args.timeoutSeconds !== undefined ? { timeoutSeconds: Math.max(1, Math.round(args.timeoutSeconds)) } : {}),
    ...(args.expiresAt !== undefined ? { expiresAt: args.expiresAt } : {}),
    ...policy,
    ...(args.onTimeout !== undefined ? { onTimeout: { decision: args.onTimeout.decision } } : {}),
    ...(args.locale !== undefined ? { locale: args.locale } : {}),
  };
  const checked = AskRequestSchema.safeParse(input);
  if (!checked.success)
    throw new ToolInputError(
      checked.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; '),
    );
  return input;
}
