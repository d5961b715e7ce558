// What askgate's card actions carry and how its inputs are named: the one protocol between the
// cards (cards.ts) and the reader of what Teams sends back (card-actions.ts).
import type { IExecuteAction, ISubmitAction } from '@microsoft/teams.cards';
import type { Decision } from '../../core/approval/decisions.js';
import { DECISION_CODES } from '../../core/approval/decisions.js';

/** The `verb` of every askgate `Action.Execute`. */
export const VERB = 'askgate';
/** The `verb` of the card's `refresh` action (Teams sends it when an allowed person opens the card). */
export const REFRESH_VERB = 'refresh';
/** The data field holding the action's token (core/token.ts): what the action means. */
export const TOKEN_FIELD = 'askgate';
/** The data field of a form's Submit: one letter per question saying how its inputs read ({@link ShapeLetter}). */
export const SHAPE_FIELD = 'askgateForm';

/**
 * How a form question's inputs read: `c` a single choice, `m` a multi-select choice (Teams joins the
 * chosen values with commas), `n` a number, `d` a date, `t` a time (their native inputs' values are
 * canonical: read strictly), `x` text typed in a text field (text, email, url, datetime: read like a
 * reply, in the person's language).
 */
export type ShapeLetter = 'c' | 'm' | 'n' | 'd' | 't' | 'x';
/** Every {@link ShapeLetter}. */
export const SHAPE = /^[cmndtx]{1,3}$/;

/** Input id of question `n`'s (1-based) value: its choice set or its typed input. */
export const valueInput = (n: number): string => `askgate_q${n}`;
/** Input id of choice question `n`'s own words. */
export const ownInput = (n: number): string => `askgate_w${n}`;
/** Input id of the own words under Other… on a single question's buttons. */
export const OTHER_INPUT = 'askgate_other';
/** Input id of the reason of a decision that needs one (`reject`, `request_changes`). */
export const reasonInput = (decision: Decision): string => `askgate_reason_${DECISION_CODES[decision]}`;
/** Input id of the edited arguments (JSON) of Edit…. */
export const ARGUMENTS_INPUT = 'askgate_args';

/** What an action sends: its token, and for a form the shape of its questions. */
export type ActionData = Readonly<Record<string, string>>;

/**
 * An `Action.Execute` (Universal Actions: Teams sends an `adaptiveCard/action` invoke the bot
 * answers with the updated card) with an `Action.Submit` fallback for clients without them (Teams
 * then posts a message whose `value` is `data` merged with the card's inputs).
 */
export function execute(title: string, data: ActionData, style?: 'positive' | 'destructive'): IExecuteAction {
  const fallback: ISubmitAction = { type: 'Action.Submit', title, data: { ...data }, ...(style ? { style } : {}) };
  return { type: 'Action.Execute', title, verb: VERB, data: { ...data }, ...(style ? { style } : {}), fallback };
}

/** The data of an action meaning `token`. */
export const tokenData = (token: string, extra: Readonly<Record<string, string>> = {}): ActionData => ({
  [TOKEN_FIELD]: token,
  ...extra,
});
