/**
 * askgate for the OpenAI Agents SDK (`askgate/openai-agents`; peer dependency `@openai/agents`):
 * an `ask_user` tool the model calls to ask a person, and an approval handler that routes the
 * SDK's tool approvals (`needsApproval`) to a person.
 */
import { randomUUID } from 'node:crypto';
import { run as sdkRun, tool, type Agent, type FunctionTool, type RunResult, type RunState } from '@openai/agents';
import { z } from 'zod';
import type { AskInput, AskResult, AskgateClient } from '../client/index.js';
import { KIND_NAMES, type KindName } from '../core/questions/index.js';
import { ApprovalError, assertApproved } from '../client/approval.js';
import {
  TYPED_GUIDANCE,
  actionApprovalAsk,
  argumentsOf,
  askBase,
  askOptions,
  decisionOfApproval,
  eventKey,
  type AskTarget,
  type Decision,
  type RequestedBy,
} from './shared.js';

export type { AskTarget, RequestedBy } from './shared.js';

/**
 * Parameters of `ask_user`. OpenAI's strict function schemas want every field present, so
 * optional fields are nullable instead of optional. A question is a choice (`options`) or a typed
 * kind with its constraints: the same fields as MCP's `ask_user` (a test holds them together, and
 * those to core's kinds); `kind` lists core's kinds.
 */
export const AskUserParameters = z.object({
  questions: z
    .array(
      z.object({
        id: z.string().describe('snake_case key of this question in the answers'),
        header: z.string().describe('Very short label, about 12 characters'),
        question: z.string(),
        kind: z
          .enum(KIND_NAMES as [KindName, ...KindName[]])
          .nullable()
          .describe('null or "choice": pick from options; otherwise the answer is typed (no options)'),
        options: z
          .array(z.object({ label: z.string(), description: z.string().nullable() }))
          .nullable()
          .describe('choice: 2–4 options, the recommended one first; null for typed kinds'),
        multiSelect: z.boolean().nullable().describe('choice: several options may be chosen'),
        minLength: z.number().nullable().describe('text: fewest characters'),
        maxLength: z.number().nullable().describe('text: most characters (default 1000, at most 4000)'),
        pattern: z.string().nullable().describe('text: RE2 regular expression the whole answer must match'),
        // Text, not number | string: one JSON type per field keeps the strict schema simple.
        min: z
          .string()
          .nullable()
          .describe('lowest answer allowed, as text: number "1"; date "YYYY-MM-DD"; time "HH:MM"; datetime ISO 8601'),
        max: z.string().nullable().describe('highest answer allowed, in the same form as min'),
        integer: z.boolean().nullable().describe('number: whole numbers only'),
        unit: z.string().nullable().describe('number: unit shown beside it, e.g. "GB"'),
      }),
    )
    .min(1)
    .max(3),
  timeoutSeconds: z.number().nullable().describe('Seconds the person has (default: the server default)'),
});
/** Arguments the model passes to `ask_user`. */
export type AskUserArguments = z.output<typeof AskUserParameters>;

/** What `ask_user` tells the model. */
export const ASK_USER_DESCRIPTION = `Ask the user (a person, reached over chat) 1–3 questions and wait for the answer: a choice among options, or a typed answer.
Use it when a decision belongs to the user: preferences, trade-offs, scope, irreversible or costly actions. Do not ask what you can find out yourself.
- A choice: offer 2–4 distinct options; put the one you recommend first and end its label with " (Recommended)". Do not add "Other" or "Skip": the user can always answer in their own words or skip.
- ${TYPED_GUIDANCE}
- Never ask for passwords, API keys, tokens or other secrets.
The result is {"status": "answered", "answers": {"<question id>": ["<option label, the user's own words, or the typed answer as text>"]}, "values": {"<question id>": <the answer with its JSON type: a number, a string, or a choice's labels>}} or {"status": "no_answer", "reason": "timeout" | "skipped" | "cancelled" | "superseded" | "undelivered"}. On no_answer, proceed with your best judgment and state the assumption you made.`;

/** One question of the arguments as askgate's: null fields left out (askgate names a field another kind takes). */
function questionOfArguments(q: AskUserArguments['questions'][number]): NonNullable<AskInput['questions']>[number] {
  const { options, ...rest } = q;
  const question: Record<string, unknown> = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null));
  // A number question's bounds are JSON numbers (askgate says "must be a number" for any other text).
  for (const bound of ['min', 'max'] as const)
    if (q.kind === 'number' && q[bound] !== null && /^-?\d+(\.\d+)?$/.test(q[bound]!.trim()))
      question[bound] = Number(q[bound]);
  if (options !== null)
    question.options = options.map((o) => ({
      label: o.label,
      ...(o.description ? { description: o.description } : {}),
    }));
  return question as NonNullable<AskInput['questions']>[number];
}

/** Options of {@link askUserTool}. */
export interface AskUserToolOptions extends Omit<AskTarget, 'signal'> {
  /** Tool name (default `ask_user`). */
  name?: string;
}

/**
 * A real `tool()` the model can call: it asks through askgate and waits (long polls, through
 * restarts of askgate) until the person answers or the ask ends. The call's id (with its
 * questions, for providers that reuse call ids) is the idempotency key, so a retried call finds
 * the same ask; aborting the run cancels the ask.
 * askgate's validation errors come back as text naming the field, so the model can fix its call.
 */
export function askUserTool(
  client: AskgateClient,
  opts: AskUserToolOptions,
): FunctionTool<unknown, typeof AskUserParameters> {
  return tool({
    name: opts.name ?? 'ask_user',
    description: ASK_USER_DESCRIPTION,
    parameters: AskUserParameters,
    async execute(args, _context, details) {
      const questions = args.questions.map(questionOfArguments);
      const callId = details?.toolCall?.callId;
      const target: AskTarget = {
        ...opts,
        ...(args.timeoutSeconds ? { timeoutSeconds: args.timeoutSeconds } : {}),
        ...(details?.signal ? { signal: details.signal } : {}),
      };
      try {
        const result = await client.ask(
          { ...askBase(target), questions },
          askOptions(target, eventKey('openai', opts.runId, 'ask', callId ?? randomUUID(), JSON.stringify(questions))),
        );
        return JSON.stringify(
          result.status === 'answered'
            ? { status: 'answered', answers: result.answers, ...(result.values ? { values: result.values } : {}) }
            : { status: 'no_answer', reason: result.reason },
        );
      } catch (error) {
        const issues = (error as { issues?: { path: unknown[]; message: string }[] }).issues;
        if (issues)
          return `Invalid ask_user arguments: ${issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
        throw error;
      }
    },
  });
}

/** One approval as the handler saw it. */
export interface ApprovalRecord {
  tool: string;
  callId: string | undefined;
  decision: Decision;
}

/** Options of {@link approveWithPerson}. */
export interface ApproveWithPersonOptions extends AskTarget {
  /**
   * Runs the agent again from a state; pass your Runner's (`(agent, state) => runner.run(agent, state)`)
   * when you use one (default: `run` of `@openai/agents`).
   */
  run?: (agent: Agent<any, any>, state: RunState<any, any>) => Promise<RunResult<any, any>>;
  /** Rounds of approvals before giving up (default 20): a model that keeps asking for tools ends here. */
  maxRounds?: number;
  /** Called after each decision (for an audit log; the decision of a free-text answer holds the text). */
  onDecision?: (record: ApprovalRecord) => void;
  /**
   * The person who asked for the run (e.g. the chat user whose message started it): each approval
   * ask names them as `requestedBy`, and askgate refuses their own decision (someone else decides).
   */
  requestedBy?: RequestedBy;
}

/**
 * The rejection text the model reads. A timeout, skip or cancellation is a rejection too: the
 * tool does not run without a person's yes.
 */
export function rejectionMessage(tool: string, decision: Decision): string {
  switch (decision.kind) {
    case 'rejected':
      return `The user rejected this ${tool} call${decision.reason ? `: ${JSON.stringify(decision.reason)}` : ''}. Do not retry it; continue without it or ask the user what to do instead.`;
    case 'changes_requested':
      return `The user did not approve this ${tool} call and asked for changes: ${JSON.stringify(decision.reason)}`;
    case 'comment':
      return `The user did not approve this ${tool} call and answered: ${JSON.stringify(decision.text)}`;
    case 'no_answer':
      return `Not approved: the user did not answer (${decision.reason}), so ${tool} did not run. Continue without it and say so.`;
    default:
      return `Not approved.`;
  }
}

/**
 * Builds the approval handler. Given a run's result, it asks a person about each pending tool
 * approval (`result.interruptions`, one approval ask each, in order): the tool's name and its
 * exact arguments with their hash, Approve / Reject… / Request changes…. Approve (bound to those
 * arguments by `assertApproved`) → `state.approve(item)`; a rejection or requested changes (the
 * person's reason reaches the model), a skip or a timeout → `state.reject(item, {message})` (see
 * {@link rejectionMessage}). Then it resumes the run and repeats while new approvals come up; it
 * returns the last result.
 *
 * Edit is not offered: `@openai/agents` 0.20 cannot run a tool with arguments other than the
 * model's. `RunState.approve(item, {alwaysApprove?})` takes no arguments (agents-core
 * dist/runState.d.ts:20882); it records the call id only (`RunContext.approveTool`,
 * dist/runContext.mjs:887), and the resumed run parses and runs `toolRun.toolCall.arguments`, the
 * function call as the model sent it and the state saved it (dist/runner/toolExecution.mjs:372-377).
 * Tool input guardrails may only allow, reject with a message or throw (`ToolGuardrailBehavior`,
 * dist/toolGuardrail.d.ts:12-19).
 * What the SDK does take is the rejection text (`state.reject(item, {message})`, dist/runState.d.ts:20903):
 * the person's reason reaches the model that way, and a request for changes asks it to call again.
 */
export function approveWithPerson(client: AskgateClient, opts: ApproveWithPersonOptions) {
  const resume = opts.run ?? ((agent, state) => sdkRun(agent, state));
  const maxRounds = opts.maxRounds ?? 20;
  return async <R extends RunResult<any, any>>(agent: Agent<any, any>, result: R): Promise<R> => {
    let current: RunResult<any, any> = result;
    for (let round = 0; current.interruptions.length > 0; round++) {
      if (round >= maxRounds)
        throw new Error(`approveWithPerson: still asking for approvals after ${maxRounds} rounds`);
      for (const item of current.interruptions) {
        const name = item.name ?? 'tool';
        const callId = (item.rawItem as { callId?: string }).callId;
        const ask = actionApprovalAsk(name, item.arguments, opts, opts.requestedBy);
        const answer = await client.ask(
          ask,
          askOptions(opts, eventKey('openai', opts.runId, 'approve', callId ?? '', name, item.arguments ?? '')),
        );
        const decision = released(answer, ask.approval!.action, argumentsOf(item.arguments));
        opts.onDecision?.({ tool: name, callId, decision });
        if (decision.kind === 'approved') current.state.approve(item);
        else current.state.reject(item, { message: rejectionMessage(name, decision) });
      }
      current = await resume(agent, current.state);
    }
    return current as R;
  };
}

/**
 * The decision on an approval ask; an approval counts only when it is bound to the arguments the
 * SDK will run (the ones asked about: edit is not offered, so they cannot differ unless tampered).
 */
function released(answer: AskResult, action: string, args: Record<string, unknown>): Decision {
  const decision = decisionOfApproval(answer);
  if (decision.kind !== 'approved') return decision;
  try {
    assertApproved(answer, action, args);
    return decision;
  } catch (error) {
    if (error instanceof ApprovalError) return { kind: 'rejected', reason: error.message };
    throw error;
  }
}
