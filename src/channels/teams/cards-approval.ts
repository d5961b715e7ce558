// An approval on a Teams card: the summary first, the action and its short hash as facts, the
// arguments (flat ones as facts, nested ones as monospace JSON), the preview in monospace; then the
// decisions: Approve at once, Reject… and Request changes… opening an inline reason field, Edit…
// an inline field holding the arguments as JSON (Action.ShowCard: the inputs stay on the card).
import type {
  CardElementArray,
  IAdaptiveCard,
  IExecuteAction,
  IShowCardAction,
  ITextInput,
} from '@microsoft/teams.cards';
import type { ApprovalView } from '../../core/approval/approval-view.js';
import { visibleText } from '../../core/approval/approval-view.js';
import { APPROVAL_TEXT_MAX_BYTES } from '../../core/approval/approval-schema.js';
import type { Decision } from '../../core/approval/decisions.js';
import type { ButtonView } from '../../core/prompt-view.js';
import type { Words } from '../../core/i18n/index.js';
import { FORM_OWN_WORDS_MAX } from '../../core/forms.js';
import { decodeToken } from '../../core/token.js';
import { shorten } from '../../core/text.js';
import { ARGUMENTS_INPUT, execute, reasonInput, tokenData } from './cards-data.js';
import { codeBlock, factSet, plain, textBlock } from './cards-text.js';
import { BUTTON_TITLE_MAX, INPUT_LABEL_MAX } from './label-limits.js';
import { teamsText } from './words.js';

/** How much of an approval a card shows: UTF-16 units of its arguments and preview, and whether Edit… is inline. */
export interface ApprovalBudget {
  args: number;
  preview: number;
  edit: boolean;
}

/** Tried in order until the card fits Teams' size (cards.ts): the arguments and preview shrink, Edit… goes first. */
export const APPROVAL_BUDGETS: readonly ApprovalBudget[] = [
  { args: Infinity, preview: Infinity, edit: true },
  { args: 8000, preview: 4000, edit: true },
  { args: 8000, preview: 4000, edit: false },
  { args: 4000, preview: 2000, edit: false },
  { args: 1500, preview: 800, edit: false },
  { args: 400, preview: 200, edit: false },
];

/** Most flat arguments shown as facts; the rest is cut with a "…" fact. */
const FACTS_MAX = 50;
/** Longest argument name shown. */
const KEY_MAX = 100;
/** Largest arguments JSON (UTF-8 bytes) prefilled in Edit…'s field: a larger edit is made on the answer page. */
export const EDIT_INLINE_MAX = 12_000;

/** The arguments as Edit…'s field holds them: indented JSON, hidden characters as `\u` escapes (which JSON reads back). */
export const editText = (approval: ApprovalView): string =>
  visibleText(JSON.stringify(approval.arguments, null, 2), true);

/** Whether Edit…'s field can hold the arguments (their JSON within {@link EDIT_INLINE_MAX} bytes). */
export const editFits = (approval: ApprovalView): boolean =>
  Buffer.byteLength(editText(approval), 'utf8') <= EDIT_INLINE_MAX;

const valueText = (value: unknown): string => visibleText(typeof value === 'string' ? value : JSON.stringify(value));

/** The approval's elements within `budget`, and whether anything was cut. */
export function approvalElements(
  approval: ApprovalView,
  words: Words,
  budget: ApprovalBudget,
): { elements: CardElementArray; shortened: boolean } {
  let shortened = false;
  const cut = (text: string, max: number): string => {
    const fitted = shorten(text, max);
    if (fitted !== text) shortened = true;
    return fitted;
  };
  const t = (key: 'actionFact' | 'hashFact') => teamsText(words.locale, key);
  const elements: CardElementArray = [];
  if (approval.summary) elements.push(textBlock(approval.summary, { size: 'Medium', weight: 'Bolder' }));
  elements.push(
    factSet([
      [t('actionFact'), visibleText(approval.action)],
      [t('hashFact'), `#${approval.hash}`],
    ]),
  );
  if (approval.lines) {
    const entries = Object.entries(approval.arguments);
    const shown = entries.length > FACTS_MAX ? entries.slice(0, FACTS_MAX - 1) : entries;
    if (shown.length < entries.length) shortened = true;
    const each = Math.max(40, Math.floor(budget.args / Math.max(1, shown.length)));
    const facts = shown.map(([key, value]): [string, string] => [
      cut(visibleText(key), KEY_MAX),
      cut(valueText(value), each),
    ]);
    if (shown.length < entries.length) facts.push(['…', '…']);
    if (facts.length > 0) elements.push(factSet(facts));
  } else {
    elements.push(codeBlock(cut(approval.json ?? '', budget.args)));
  }
  if (approval.preview !== undefined) {
    elements.push(textBlock(words.t('approval.preview'), { weight: 'Bolder' }));
    elements.push(codeBlock(cut(approval.preview, budget.preview)));
  }
  return { elements, shortened };
}

/** A multi-line field of a decision's ShowCard. */
function field(id: string, label: string, extra: Partial<ITextInput>): ITextInput {
  return {
    type: 'Input.Text',
    id,
    label: plain(label, INPUT_LABEL_MAX),
    isMultiline: true,
    isRequired: true,
    ...extra,
  };
}

/** A ShowCard opening `body` with a Submit that sends `token` (and the inputs). */
function showCard(title: string, body: CardElementArray, submit: IExecuteAction): IShowCardAction {
  const card: IAdaptiveCard = { type: 'AdaptiveCard', body, actions: [submit] };
  return { type: 'Action.ShowCard', title: plain(title, BUTTON_TITLE_MAX), card };
}

/**
 * The decision buttons (and Skip) of an approval's prompt: Approve sends at once; Reject… and
 * Request changes… open a required reason field; Edit… a required field prefilled with the
 * arguments, left out when `edit` is false (they do not fit the card: the answer page takes the edit).
 */
export function decisionActions(
  approval: ApprovalView,
  buttons: readonly ButtonView[],
  words: Words,
  edit: boolean,
): (IExecuteAction | IShowCardAction)[] {
  const locale = words.locale;
  const submit = (token: string, style?: 'positive' | 'destructive') =>
    execute(plain(words.t('control.submit'), BUTTON_TITLE_MAX), tokenData(token), style);
  const reason = (decision: Decision, key: 'reasonLabel' | 'changesLabel') =>
    field(reasonInput(decision), teamsText(locale, key), {
      maxLength: FORM_OWN_WORDS_MAX,
      errorMessage: teamsText(locale, 'reasonEmpty'),
    });
  return buttons.flatMap((b): (IExecuteAction | IShowCardAction)[] => {
    const title = plain(b.label, BUTTON_TITLE_MAX);
    const choice = decodeToken(b.token)?.choice;
    if (choice?.kind !== 'decide') return [execute(title, tokenData(b.token))];
    switch (choice.decision) {
      case 'approve':
        return [execute(title, tokenData(b.token), 'positive')];
      case 'reject':
        return [showCard(title, [reason('reject', 'reasonLabel')], submit(b.token, 'destructive'))];
      case 'request_changes':
        return [showCard(title, [reason('request_changes', 'changesLabel')], submit(b.token))];
      case 'edit': {
        if (!edit) return [];
        const args = field(ARGUMENTS_INPUT, teamsText(locale, 'argumentsLabel'), {
          value: editText(approval),
          maxLength: APPROVAL_TEXT_MAX_BYTES * 2,
          errorMessage: teamsText(locale, 'notJson'),
        });
        return [showCard(title, [args], submit(b.token, 'positive'))];
      }
    }
  });
}
