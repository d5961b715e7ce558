/**
 * LangChain's human-in-the-loop middleware (`humanInTheLoopMiddleware`) answered by people through
 * askgate: its interrupt `{actionRequests: [{name, args, description?}], reviewConfigs: [{actionName,
 * allowedDecisions, argsSchema?}]}` (batched: several actions; per call: one) becomes one approval
 * ask per action, and the resume value `{decisions: [...]}` lists each decision in the actions'
 * order: `approve`, `edit` with `editedAction: {name, args}`, or `reject` with the person's words.
 * No framework is imported here: the shapes are the middleware's (both casings are read).
 */
import type { AskgateClient, AskInput, AskResult } from '../client/index.js';
import { askBase, askOptions, eventKey, shownLine, type AskTarget } from './shared.js';

/** One action the middleware asks about. */
export interface HitlActionRequest {
  name: string;
  args: Record<string, unknown>;
  description?: string;
}

/** What the middleware allows for one tool. */
export interface HitlReviewConfig {
  actionName: string;
  allowedDecisions: string[];
  argsSchema?: Record<string, unknown>;
}

/** The middleware's interrupt value. */
export interface HitlRequest {
  actionRequests: HitlActionRequest[];
  reviewConfigs: HitlReviewConfig[];
}

/** One decision of the resume value. */
export type HitlDecision =
  | { type: 'approve' }
  | { type: 'edit'; editedAction: { name: string; args: Record<string, unknown> } }
  | { type: 'reject'; message?: string };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

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

/** The approval ask of one action: the decisions the middleware allows (reject also as request changes). */
export function hitlApprovalAsk(
  action: HitlActionRequest,
  config: HitlReviewConfig | undefined,
  target: AskTarget,
): AskInput {
  const allowed = config?.allowedDecisions ?? ['approve', 'edit', 'reject'];
  const decisions: ('approve' | 'reject' | 'request_changes' | 'edit')[] = ['approve'];
  if (allowed.includes('reject')) decisions.push('reject', 'request_changes');
  if (allowed.includes('edit')) decisions.push('edit');
  const summary = action.description ? shownLine(action.description, 300) : '';
  return {
    ...askBase(target),
    approval: {
      action: action.name,
      arguments: action.args,
      ...(summary ? { summary } : {}),
      decisions,
      ...(config?.argsSchema && allowed.includes('edit') ? { argumentsSchema: config.argsSchema } : {}),
    },
  };
}

/** The middleware's decision for askgate's result: only approve and edit let the tool run. */
export function hitlDecisionOf(action: HitlActionRequest, result: AskResult): HitlDecision {
  if (result.status === 'no_answer')
    return {
      type: 'reject',
      message: `Not approved: the user did not answer (${result.reason}), so ${action.name} did not run.`,
    };
  switch (result.decision) {
    case 'approve':
      return { type: 'approve' };
    case 'edit':
      return { type: 'edit', editedAction: { name: action.name, args: result.arguments ?? action.args } };
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
 */
export async function resolveHitl(
  client: AskgateClient,
  request: HitlRequest,
  target: AskTarget,
  key: string[],
): Promise<{ decisions: HitlDecision[] }> {
  const decisions: HitlDecision[] = [];
  for (const [i, action] of request.actionRequests.entries()) {
    const config = request.reviewConfigs.find((c) => c.actionName === action.name);
    const result = await client.ask(
      hitlApprovalAsk(action, config, target),
      askOptions(target, eventKey('langgraph', ...key, 'hitl', String(i))),
    );
    decisions.push(hitlDecisionOf(action, result));
  }
  return { decisions };
}
