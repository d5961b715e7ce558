/**
 * LangChain's human-in-the-loop middleware (`humanInTheLoopMiddleware` of `langchain` 1.x, run by
 * `createAgent`) answered by people through askgate. Its interrupt value is `{actionRequests:
 * [{name, args, description?}], reviewConfigs: [{actionName, allowedDecisions, argsSchema?}]}`:
 * every call of one model turn that needs review, together (batched; a turn with one call gives an
 * interrupt of one action: per call). Each action becomes one approval ask, and the resume value
 * `{decisions: [...]}` lists one decision per action, in order: `approve`, `edit` with
 * `editedAction: {name, args}`, or `reject` with the `message` the model reads as the tool's result.
 * The middleware's decisions are exactly these three (`langchain` 1.5 has no `respond`): a person's
 * request for changes is a `reject` whose message says what to change, which is how the model hears
 * a person who answers with words instead of a yes. The middleware throws on a decision a tool's
 * `allowedDecisions` lacks, so only allowed ones are sent (see {@link hitlApprovalAsk}).
 * No framework is imported here: the shapes are the middleware's (the Python server's snake_case too).
 */
import type { AskgateClient, AskInput, AskResult } from '../client/index.js';
import { ApprovalError, assertApproved } from '../client/approval.js';
import { askBase, askOptions, eventKey, isObject, shownLine, type AskTarget, type RequestedBy } from './shared.js';

/** The middleware's decision types (`langchain`'s `DecisionType`). */
export type HitlDecisionType = 'approve' | 'edit' | 'reject';

/** One action the middleware asks about (`langchain`'s `ActionRequest`). */
export interface HitlActionRequest {
  name: string;
  args: Record<string, unknown>;
  description?: string;
}

/** What the middleware allows for one tool (`langchain`'s `ReviewConfig`). */
export interface HitlReviewConfig {
  actionName: string;
  allowedDecisions: string[];
  argsSchema?: Record<string, unknown>;
}

/** The middleware's interrupt value (`langchain`'s `HITLRequest`). */
export interface HitlRequest {
  actionRequests: HitlActionRequest[];
  reviewConfigs: HitlReviewConfig[];
}

/** One decision of the resume value (`langchain`'s `Decision`). */
export type HitlDecision =
  | { type: 'approve' }
  | { type: 'edit'; editedAction: { name: string; args: Record<string, unknown> } }
  | { type: 'reject'; message?: string };

/** Who asked for the actions: their own decision is refused (approval `requestedBy`). */
export interface HitlOptions {
  requestedBy?: RequestedBy;
}

/** The interrupt value as a {@link HitlRequest} (camelCase or the Python server's snake_case), or undefined. */
export function hitlRequestOf(value: unknown): HitlRequest | undefined {
  if (!isObject(value)) return undefined;
  const actions = value.actionRequests ?? value.action_requests;
  const configs = value.reviewConfigs ?? value.review_configs ?? [];
  if (!Array.isArray(actions) || actions.length === 0 || !Array.isArray(configs)) return undefined;
  const actionRequests = actions.map((a: unknown) => {
    if (!isObject(a)) return undefined;
    const name = a.name ?? a.action_name;
    if (typeof name !== 'string' || !isObject(a.args)) return undefined;
    return { name, args: a.args, ...(typeof a.description === 'string' ? { description: a.description } : {}) };
  });
  if (actionRequests.some((a) => a === undefined)) return undefined;
  const reviewConfigs = configs.filter(isObject).map((c) => ({
    actionName: String(c.actionName ?? c.action_name ?? ''),
    allowedDecisions: ((c.allowedDecisions ?? c.allowed_decisions ?? []) as unknown[]).map(String),
    ...(isObject(c.argsSchema ?? c.args_schema)
      ? { argsSchema: (c.argsSchema ?? c.args_schema) as Record<string, unknown> }
      : {}),
  }));
  return { actionRequests: actionRequests as HitlActionRequest[], reviewConfigs };
}

/** The decisions a tool allows (a missing config: all three, as the middleware's `interruptOn: {tool: true}`). */
const allowedOf = (config: HitlReviewConfig | undefined): string[] =>
  config?.allowedDecisions ?? ['approve', 'edit', 'reject'];

/**
 * The summary of an action: its description, without the `Tool: <name>\nArgs: <json>` the
 * middleware appends to its default prefix (the approval shows the action and its arguments itself).
 */
function summaryOf(action: HitlActionRequest): string {
  const text = action.description ?? '';
  const tail = `\n\nTool: ${action.name}\nArgs: ${JSON.stringify(action.args, null, 2)}`;
  return shownLine(text.endsWith(tail) ? text.slice(0, -tail.length) : text, 300);
}

/**
 * The approval ask of one action. askgate's approve is offered always (an approval must offer it):
 * when the tool allows `approve` it is `approve`, else (edit allowed, approve not) an `edit` with
 * the proposed arguments. `reject` allowed → reject and request changes (both become `reject` with
 * the person's words); `edit` allowed → edit, checked against the tool's `argsSchema`. A tool that
 * allows neither approve nor edit cannot be let through by anyone: an error, nothing asked.
 */
export function hitlApprovalAsk(
  action: HitlActionRequest,
  config: HitlReviewConfig | undefined,
  target: AskTarget,
  opts: HitlOptions = {},
): AskInput {
  const allowed = allowedOf(config);
  if (!allowed.includes('approve') && !allowed.includes('edit'))
    throw new Error(`humanInTheLoopMiddleware allows neither approve nor edit for ${action.name}: nothing to ask`);
  const decisions: ('approve' | 'reject' | 'request_changes' | 'edit')[] = ['approve'];
  if (allowed.includes('reject')) decisions.push('reject', 'request_changes');
  if (allowed.includes('edit')) decisions.push('edit');
  const summary = summaryOf(action);
  return {
    ...askBase(target),
    approval: {
      action: action.name,
      arguments: action.args,
      ...(summary ? { summary } : {}),
      decisions,
      ...(config?.argsSchema && allowed.includes('edit') ? { argumentsSchema: config.argsSchema } : {}),
      ...(opts.requestedBy ? { requestedBy: opts.requestedBy } : {}),
    },
  };
}

/**
 * Thrown when no decision releases an action (no answer, or an approval bound to another action)
 * and its tool does not allow `reject`: nothing can be resumed safely, so the thread stays paused.
 */
export class HitlUndecidedError extends Error {
  constructor(
    readonly action: string,
    readonly reason: string,
  ) {
    super(
      `humanInTheLoopMiddleware: no decision of the user releases ${action} (${reason}) and its tool does not allow reject; the thread stays paused`,
    );
    this.name = 'HitlUndecidedError';
  }
}

/**
 * The middleware's decision for askgate's result: only approve and edit let the tool run, and only
 * when the result is bound to what will run (`assertApproved`: the hash of the action with the
 * proposed arguments, or with the person's edited ones, equals the result's `effectiveHash`). A
 * rejection, requested changes, no answer and an approval of another action are `reject` with the
 * message the model reads; on a tool that does not allow `reject` they throw
 * {@link HitlUndecidedError} (nothing allowed would keep the tool from running).
 */
export function hitlDecisionOf(
  action: HitlActionRequest,
  result: AskResult,
  config?: HitlReviewConfig | undefined,
): HitlDecision {
  const allowed = allowedOf(config);
  const refuse = (why: string, message: string): HitlDecision => {
    if (!allowed.includes('reject')) throw new HitlUndecidedError(action.name, why);
    return { type: 'reject', message };
  };
  if (result.status === 'no_answer')
    return refuse(
      result.reason,
      `Not approved: the user did not answer (${result.reason}), so ${action.name} did not run.`,
    );
  switch (result.decision) {
    case 'approve':
    case 'edit': {
      let args: Record<string, unknown>;
      try {
        args = assertApproved(result, action.name, result.decision === 'edit' ? (result.arguments ?? {}) : action.args);
      } catch (error) {
        if (!(error instanceof ApprovalError)) throw error;
        return refuse(error.code, `Not approved: ${error.message}, so ${action.name} did not run.`);
      }
      if (result.decision === 'edit') return { type: 'edit', editedAction: { name: action.name, args } };
      return allowed.includes('approve')
        ? { type: 'approve' }
        : { type: 'edit', editedAction: { name: action.name, args } };
    }
    case 'request_changes':
      return {
        type: 'reject',
        message: `The user did not approve ${action.name} and asked for changes: ${result.reason ?? ''}`,
      };
    default:
      return {
        type: 'reject',
        message: `The user rejected ${action.name}${result.reason ? `: ${result.reason}` : ''}`,
      };
  }
}

/**
 * Asks a person about each action of one interrupt, in order (askgate keeps one open ask per run),
 * and returns the resume value. `key` names the interrupt: with the action's index it is the
 * idempotency key, so a resumed runner finds the same asks instead of asking again.
 *
 * The middleware runs none of a turn's calls once one of them is rejected (it returns to the model
 * with the rejections only). So after a rejection the later actions whose tool allows `reject` are
 * not asked (their decision is a `reject` saying so), and the first rejection's message names the
 * calls approved before it, which did not run either: the model can propose them again.
 */
export async function resolveHitl(
  client: AskgateClient,
  request: HitlRequest,
  target: AskTarget,
  key: string[],
  opts: HitlOptions = {},
): Promise<{ decisions: HitlDecision[] }> {
  const decisions: HitlDecision[] = [];
  let rejected: string | undefined;
  for (const [i, action] of request.actionRequests.entries()) {
    const config = request.reviewConfigs.find((c) => c.actionName === action.name);
    if (rejected !== undefined && allowedOf(config).includes('reject')) {
      decisions.push({
        type: 'reject',
        message: `Not asked and not run: the user rejected ${rejected} in the same turn. Propose ${action.name} again if it is still needed.`,
      });
      continue;
    }
    const result = await client.ask(
      hitlApprovalAsk(action, config, target, opts),
      askOptions(target, eventKey('langgraph', ...key, 'hitl', String(i))),
    );
    const decision = hitlDecisionOf(action, result, config);
    if (decision.type === 'reject' && rejected === undefined) {
      rejected = action.name;
      const before = request.actionRequests.slice(0, i).map((a) => a.name);
      if (before.length > 0)
        decision.message += ` The calls approved before it in this turn did not run either (${before.join(', ')}): propose them again if they are still needed.`;
    }
    decisions.push(decision);
  }
  return { decisions };
}
