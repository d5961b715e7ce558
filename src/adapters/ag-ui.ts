/**
 * askgate for AG-UI (`askgate/ag-ui`; peer dependency `@ag-ui/client`, types only): the
 * interrupts an AG-UI agent ends a run with (`RUN_FINISHED` with `outcome: {type: "interrupt"}`,
 * AG-UI 1.0) become asks to a person, and their results become the `resume` entries of the next
 * `RunAgentInput`.
 *
 * Default mapping of an interrupt (override with `toAsk`):
 * - `metadata.askgate.questions` (askgate questions, choices or typed) → those questions; payload
 *   `{answers, values}` (`values` with JSON types: a number question's is a number).
 * - `metadata.askgate.approval`, or `reason: "tool_call"` whose `toolCallId` names a tool call of
 *   the thread → an approval ask (./ag-ui-approval.ts): the exact tool and arguments with their
 *   hash; approve, reject or request changes with a reason in `metadata.askgate.comment`; payload
 *   `{approved}` (a bare boolean when `responseSchema` is `{type: "boolean"}`). `approvalAsks:
 *   false` turns the tool-call case off.
 * - `reason: "tool_call"` otherwise (or with `approvalAsks: false`) → "Approve/Reject" on
 *   `message`; payload `{approved}` (a bare boolean when `responseSchema` is `{type: "boolean"}`).
 * - `reason: "confirmation"` → "Yes/No" on `message`; payload a boolean (or `{approved}` when the
 *   schema is an object with `approved`).
 * - a `responseSchema` of `{type: "string", enum: [2–4 values]}` → one option per value; payload
 *   the chosen value (or the person's own words).
 * - a `responseSchema` of `{type: "number" | "integer"}` (`minimum`, `maximum`) or `{type: "string"}`
 *   without enum (`format` email/uri/date/date-time, `minLength`, `maxLength`, `pattern`) → a typed
 *   question, read as the MCP elicitation bridge reads a form field; payload the value with its
 *   JSON type (a number for a number).
 * An interrupt none of these fits is an error naming it (AG-UI wants every open interrupt answered).
 * No answer (timeout, skip, cancel) and an interrupt already past `expiresAt` → `status: "cancelled"`.
 * A reply in the person's own words to an Approve/Reject question is not an approval: `{approved:
 * false}`, the words under `metadata.askgate.comment`. Every entry's `metadata.askgate` holds the ask id.
 */
import type { AbstractAgent, Interrupt, ResumeEntry, RunAgentParameters, RunAgentResult } from '@ag-ui/client';
import type { AskgateClient, AskInput, AskResult } from '../client/index.js';
import { ownValue } from '../core/own.js';
import { ElicitationRefusedError, fieldOf, type MappedField } from '../client/elicitation-fields.js';
import {
  APPROVE,
  DECISION,
  REJECT,
  askBase,
  askOptions,
  eventKey,
  shownLine,
  type AskTarget,
  type RequestedBy,
} from './shared.js';
import { approvalOfInterrupt, boundTo, toolCallIn, type ToolCallRef } from './ag-ui-approval.js';

export type { AskTarget, RequestedBy } from './shared.js';

/** An interrupt as an ask: the questions, and the resume payload an answered result becomes. */
export interface InterruptAsk {
  questions?: AskInput['questions'];
  /** Instead of questions: the exact action a person is asked to authorize. */
  approval?: AskInput['approval'];
  payload(result: Extract<AskResult, { status: 'answered' }>): unknown;
  /** The person's own words, when the answer was not one of the options and this mapping cares. */
  comment?(result: Extract<AskResult, { status: 'answered' }>): string | undefined;
}

/** Options of {@link answerInterrupts} and {@link runWithAskgate}. */
export interface AgUiAskOptions extends Omit<AskTarget, 'runId'> {
  /** The askgate run (default: the agent's `threadId`). */
  runId?: string;
  /** A mapping tried before the default one; return undefined to fall back to it. */
  toAsk?: (interrupt: Interrupt) => InterruptAsk | undefined;
  /** The clock expiry is read against (default: now). */
  now?: () => Date;
  /**
   * Tool-call interrupts become approval asks (default true: the exact tool and arguments with their
   * hash; approve, reject or request changes with a reason in `metadata.askgate.comment`); `false`
   * asks an Approve/Reject question on the interrupt's `message` instead. `runWithAskgate` finds the
   * tool call in the agent's messages; `answerInterrupts` needs `toolCall` (without it, or when the
   * call is not found, the question is asked). Interrupts with `metadata.askgate.approval` always are.
   */
  approvalAsks?: boolean;
  /**
   * The person who asked for the agent's actions: approval asks name them as `requestedBy`, and
   * askgate refuses their own decision (someone else decides).
   */
  requestedBy?: RequestedBy;
  /** The tool call an interrupt's `toolCallId` names (set by `runWithAskgate` from the agent's messages). */
  toolCall?: (toolCallId: string) => ToolCallRef | undefined;
}

type Schema = Record<string, unknown> | undefined;
const schemaType = (s: Schema) => (s && typeof s.type === 'string' ? s.type : undefined);
const hasApproved = (s: Schema) =>
  schemaType(s) === 'object' && !!s?.properties && typeof s.properties === 'object' && 'approved' in s.properties;

function yesNo(interrupt: Interrupt, yes: string, no: string, fallback: string, bare: boolean): InterruptAsk {
  const question = shownLine(interrupt.message ?? '', 1000) || fallback;
  const chosen = (r: { answers: Record<string, string[]> }) => ownValue(r.answers, DECISION)?.[0];
  return {
    questions: [{ id: DECISION, header: 'Approval', question, options: [{ label: yes }, { label: no }] }],
    payload: (r) => (bare ? chosen(r) === yes : { approved: chosen(r) === yes }),
    comment: (r) => {
      const value = chosen(r);
      return value !== yes && value !== no ? value : undefined;
    },
  };
}

/** The default mapping (see the module comment), or undefined when none fits. */
export function defaultInterruptAsk(interrupt: Interrupt): InterruptAsk | undefined {
  const schema = interrupt.responseSchema;
  const meta: unknown = interrupt.metadata ? ownValue(interrupt.metadata, 'askgate') : undefined;
  if (meta && typeof meta === 'object' && Array.isArray((meta as { questions?: unknown }).questions))
    return {
      questions: (meta as { questions: AskInput['questions'] }).questions,
      payload: (r) => ({ answers: r.answers, ...(r.values ? { values: r.values } : {}) }),
    };
  if (interrupt.reason === 'tool_call')
    return yesNo(interrupt, APPROVE, REJECT, 'Approve this tool call?', schemaType(schema) === 'boolean');
  if (interrupt.reason === 'confirmation') return yesNo(interrupt, 'Yes', 'No', 'Confirm?', !hasApproved(schema));
  const values = schemaType(schema) === 'string' && Array.isArray(schema?.enum) ? schema.enum : undefined;
  if (values && values.length >= 2 && values.length <= 4 && values.every((v) => typeof v === 'string'))
    return {
      questions: [
        {
          id: 'answer',
          header: shownLine(interrupt.reason, 20) || 'Input',
          question: shownLine(interrupt.message ?? '', 1000) || 'Choose one',
          options: (values as string[]).map((label) => ({ label })),
        },
      ],
      payload: (r) => ownValue(r.answers, 'answer')?.[0],
    };
  return typedAsk(interrupt);
}

/** A typed `responseSchema` (a number, or a string without choices) as one typed question, else undefined. */
function typedAsk(interrupt: Interrupt): InterruptAsk | undefined {
  const schema = interrupt.responseSchema;
  const type = schemaType(schema);
  const typed = type === 'number' || type === 'integer' || (type === 'string' && !schema?.enum && !schema?.oneOf);
  if (!typed) return undefined;
  let field: MappedField;
  try {
    field = fieldOf('answer', schema);
  } catch (error) {
    if (error instanceof ElicitationRefusedError) return undefined;
    throw error;
  }
  if (field.mapping.kind !== 'typed') return undefined;
  const asNumber = field.mapping.type !== 'string';
  return {
    questions: [
      {
        id: 'answer',
        header: shownLine(interrupt.reason, 20) || 'Input',
        question:
          shownLine(interrupt.message ?? '', 1000) ||
          shownLine(field.description ?? field.title ?? '', 1000) ||
          'Your answer?',
        ...field.part,
      } as NonNullable<AskInput['questions']>[number],
    ],
    payload: (r) => {
      const value = r.values ? ownValue(r.values, 'answer') : undefined;
      const text = ownValue(r.answers, 'answer')?.[0];
      return value ?? (asNumber && text !== undefined ? Number(text) : text);
    },
  };
}

/** Seconds from now until `expiresAt` (rounded up), undefined without a readable expiry. */
function secondsLeft(interrupt: Interrupt, now: Date): number | undefined {
  if (interrupt.expiresAt === undefined) return undefined;
  const at = new Date(interrupt.expiresAt).getTime();
  return Number.isNaN(at) ? undefined : Math.ceil((at - now.getTime()) / 1000);
}

/**
 * Asks a person about each interrupt (one at a time: askgate keeps one open ask per run) and
 * returns the `resume` entries answering all of them, in the interrupts' order. The idempotency
 * key is the thread and the whole interrupt (its id and content), so answering the same
 * interrupts again (after a crash) finds the same asks, while an agent that reuses an id for a
 * different question gets a new ask. Throws, before asking anything, when an interrupt has no mapping.
 */
export async function answerInterrupts(
  client: AskgateClient,
  interrupts: readonly Interrupt[],
  opts: AgUiAskOptions & { threadId: string },
): Promise<ResumeEntry[]> {
  const now = (opts.now ?? (() => new Date()))();
  const mapped = interrupts.map((interrupt) => {
    const wanted = opts.approvalAsks !== false && interrupt.toolCallId;
    const call = wanted ? opts.toolCall?.(interrupt.toolCallId!) : undefined;
    const approval = approvalOfInterrupt(interrupt, call);
    const ask =
      opts.toAsk?.(interrupt) ??
      (approval
        ? {
            approval: approval.approval,
            payload: (r: Extract<AskResult, { status: 'answered' }>) => {
              // Approved only when the decision is bound to this exact action (the hash askgate showed).
              const approved = r.decision === 'approve' && boundTo(r, approval.approval);
              return approval.bare ? approved : { approved };
            },
            comment: (r: Extract<AskResult, { status: 'answered' }>) => r.reason,
          }
        : defaultInterruptAsk(interrupt));
    if (!ask)
      throw new Error(
        `AG-UI interrupt ${JSON.stringify(shownLine(interrupt.id, 80))} (reason ${JSON.stringify(shownLine(interrupt.reason, 80))}) has no askgate mapping: pass toAsk`,
      );
    return { interrupt, ask };
  });
  const entries: ResumeEntry[] = [];
  for (const { interrupt, ask } of mapped) {
    const left = secondsLeft(interrupt, now);
    if (left !== undefined && left <= 0) {
      entries.push({ interruptId: interrupt.id, status: 'cancelled', metadata: { askgate: { reason: 'expired' } } });
      continue;
    }
    const timeoutSeconds = left === undefined ? opts.timeoutSeconds : Math.min(left, opts.timeoutSeconds ?? left);
    const target: AskTarget = {
      runId: opts.runId ?? opts.threadId,
      ...(opts.to ? { to: opts.to } : {}),
      ...(timeoutSeconds ? { timeoutSeconds } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onCreated ? { onCreated: opts.onCreated } : {}),
    };
    let askId = '';
    const options = askOptions(target, eventKey('ag-ui', opts.threadId, interrupt.id, JSON.stringify(interrupt)));
    const approval =
      ask.approval && opts.requestedBy ? { requestedBy: opts.requestedBy, ...ask.approval } : ask.approval;
    const result = await client.ask(
      { ...askBase(target), ...(approval ? { approval } : { questions: ask.questions }) },
      { ...options, onCreated: (view) => ((askId = view.id), target.onCreated?.(view)) },
    );
    if (result.status === 'no_answer') {
      entries.push({
        interruptId: interrupt.id,
        status: 'cancelled',
        metadata: { askgate: { askId, reason: result.reason } },
      });
      continue;
    }
    const comment = ask.comment?.(result);
    const payload = ask.payload(result);
    entries.push({
      interruptId: interrupt.id,
      status: 'resolved',
      ...(payload !== undefined ? { payload } : {}),
      metadata: { askgate: { askId, answeredBy: result.answeredBy, ...(comment !== undefined ? { comment } : {}) } },
    });
  }
  return entries;
}

/**
 * Runs an AG-UI agent (`agent.runAgent(params)`); while the run ends on interrupts
 * (`agent.pendingInterrupts`), answers them through askgate and starts the next run with the
 * `resume` entries. Returns the last run's result. A run that ends `cancelled` or with an error
 * ends the loop (the error propagates). Aborting `signal` cancels the open ask, aborts nothing
 * else and rejects with an `AbortError`: the thread keeps its pending interrupts.
 */
export async function runWithAskgate(
  client: AskgateClient,
  agent: AbstractAgent,
  opts: AgUiAskOptions & { params?: RunAgentParameters; maxRounds?: number } = {},
): Promise<RunAgentResult> {
  const { params, maxRounds = 50, ...askOpts } = opts;
  let result = await agent.runAgent(params);
  for (let round = 0; agent.pendingInterrupts.length > 0; round++) {
    if (round >= maxRounds) throw new Error(`runWithAskgate: still interrupted after ${maxRounds} runs`);
    const resume = await answerInterrupts(client, agent.pendingInterrupts, {
      toolCall: (id) => toolCallIn(agent.messages, id),
      ...askOpts,
      threadId: agent.threadId,
    });
    const { runId: _previous, ...rest } = params ?? {};
    result = await agent.runAgent({ ...rest, resume });
  }
  return result;
}
