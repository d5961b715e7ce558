// A prompt as a Microsoft Teams Adaptive Card (1.5, Universal Actions) and its outcome card. Every
// action is an `Action.Execute` (verb `askgate`, its token in `data`) with an `Action.Submit`
// fallback; a single single-choice question gets a button per option (Other… opens an inline
// field), every other prompt is a form drawn with the card's own inputs (cards-inputs.ts), an
// approval its facts and decisions (cards-approval.ts). A card too large for Teams is cut with an
// honest note and a link to the answer page; `live: false` is the same card without controls.
import type {
  ActionArray,
  CardElementArray,
  IAdaptiveCard,
  IContainer,
  IOpenUrlAction,
  IRefreshDefinition,
  IShowCardAction,
  IExecuteAction,
} from '@microsoft/teams.cards';
import type { OutcomeView } from '../../core/outcome-view.js';
import { choiceView, drawsNoForm, typedView, type PromptView } from '../../core/prompt-view.js';
import { wordsFor, type Words } from '../../core/i18n/index.js';
import { decisionWord } from '../../core/approval/decisions.js';
import { FORM_OWN_WORDS_MAX } from '../../core/forms.js';
import { encodeToken } from '../../core/token.js';
import { fitToLimit } from '../shared/fit.js';
import {
  APPROVAL_BUDGETS,
  approvalElements,
  decisionActions,
  editFits,
  type ApprovalBudget,
} from './cards-approval.js';
import { OTHER_INPUT, REFRESH_VERB, SHAPE_FIELD, execute, tokenData } from './cards-data.js';
import { questionInputs, shapeLetter } from './cards-inputs.js';
import { deadlineBlock, jsonBytes, plain, textBlock } from './cards-text.js';
import { BUTTON_TITLE_MAX, INPUT_LABEL_MAX } from './label-limits.js';
import { teamsText } from './words.js';

/** An Adaptive Card as Microsoft's Teams SDK types declare it. */
export type AdaptiveCard = IAdaptiveCard;

/** How a prompt card is drawn. */
export interface PromptCardOptions {
  /** With its controls (buttons, inputs); false: the read-only card (the same content, no actions). */
  live: boolean;
  /**
   * The AAD object ids of the people who may answer: Teams refreshes the card for them (an
   * `adaptiveCard/action` invoke with verb `refresh`) so they get the live card and everyone else
   * sees the card as sent. At most {@link REFRESH_USERS_MAX}: with more, see {@link promptCard}.
   */
  refreshUserIds?: readonly string[];
  /** The answer page for this card's readers (a shortened card links to it); default: the view's `link`. */
  answerUrl?: string;
}

/** The card schema every askgate card names. */
export const CARD_SCHEMA = 'http://adaptivecards.io/schemas/adaptive-card.json';
/** Most `refresh.userIds` Teams takes. */
export const REFRESH_USERS_MAX = 60;
/**
 * Largest card askgate sends, as JSON in UTF-8 bytes. Teams refuses a message activity over about
 * 28 KB (HTTP 413, "Request Entity Too Large"), the activity's envelope, mention entities and the
 * conversation's ids included: 24,000 bytes for the card leaves 4 KB for the rest.
 */
export const CARD_BYTES_MAX = 24_000;

/** The token of the card's refresh action: the ask and its version (`form`: it shows the prompt again). */
const refreshToken = (view: PromptView) =>
  encodeToken({ askId: view.askId, version: view.version, choice: { kind: 'form' } });

/** A card with `body` and `actions`. */
function card(body: CardElementArray, actions: ActionArray, refresh?: IRefreshDefinition): AdaptiveCard {
  return {
    $schema: CARD_SCHEMA,
    type: 'AdaptiveCard',
    version: '1.5',
    body,
    ...(actions.length > 0 ? { actions } : {}),
    ...(refresh ? { refresh } : {}),
    msteams: { width: 'full' },
  };
}

/** The questions' elements: title, text, then the inputs (a live form) or the options as text. */
function questionElements(view: PromptView, words: Words, inputs: boolean): CardElementArray {
  const several = view.questions.length > 1;
  return view.questions.flatMap((q): CardElementArray => {
    // Several questions are numbered: "2. Header" above the text, or "2. Question?" without a header.
    const number = several ? `${q.number}. ` : '';
    const spacing = several && q.number > 1 ? ({ spacing: 'Large' } as const) : {};
    const head: CardElementArray =
      q.header !== undefined
        ? [textBlock(`${number}${q.header}`, { weight: 'Bolder', ...spacing }), textBlock(q.question)]
        : [textBlock(`${number}${q.question}`, spacing)];
    const choice = choiceView(q);
    const typed = typedView(q);
    if (inputs && (choice ?? typed)) return [...head, ...questionInputs((choice ?? typed)!, words)];
    if (!choice) return head;
    const lines = choice.options.map((o) => `${o.number}. ${o.label}${o.description ? ` — ${o.description}` : ''}`);
    return [...head, textBlock(lines.join('\n'))];
  });
}

/** The buttons of a single question: its options and Skip send at once, Other… opens a field for own words. */
function buttonActions(view: PromptView, words: Words): (IExecuteAction | IShowCardAction)[] {
  return (view.buttons ?? []).map((b) => {
    const title = plain(b.label, BUTTON_TITLE_MAX);
    if (b.kind !== 'other') return execute(title, tokenData(b.token));
    const own = {
      type: 'Input.Text' as const,
      id: OTHER_INPUT,
      label: plain(words.t('control.ownWords'), INPUT_LABEL_MAX),
      isRequired: true,
      isMultiline: true,
      maxLength: FORM_OWN_WORDS_MAX,
    };
    const submit = execute(plain(words.t('control.submit'), BUTTON_TITLE_MAX), tokenData(b.token), 'positive');
    return { type: 'Action.ShowCard', title, card: { type: 'AdaptiveCard', body: [own], actions: [submit] } };
  });
}

/** A live form's Submit (with its questions' shape) and Skip. */
function formActions(view: PromptView, words: Words): IExecuteAction[] {
  const form = view.form;
  if (!form) return [];
  const shape = view.questions.map((q) => shapeLetter((choiceView(q) ?? typedView(q))!)).join('');
  return [
    execute(
      plain(words.t('control.submit'), BUTTON_TITLE_MAX),
      tokenData(form.open, { [SHAPE_FIELD]: shape }),
      'positive',
    ),
    ...(form.skip ? [execute(plain(words.t('control.skip'), BUTTON_TITLE_MAX), tokenData(form.skip))] : []),
  ];
}

/** What one build of a prompt card needs. */
interface Build {
  view: PromptView;
  words: Words;
  live: boolean;
  url: string | undefined;
  refresh?: IRefreshDefinition;
  /** Drawn first (an outcome card's outcome line). */
  top?: CardElementArray;
}

/** The card within `budget` (an approval's; other prompts always draw whole). */
function build(b: Build, budget: ApprovalBudget): AdaptiveCard {
  const { view, words, live, url } = b;
  const locale = words.locale;
  const approval = view.approval;
  const drawn = approval ? approvalElements(approval, words, budget) : null;
  const offersEdit = !!approval && approval.decisions.includes('edit') && !!view.buttons;
  const edit = budget.edit && !!approval && editFits(approval);
  const editDropped = live && offersEdit && !edit;
  const shortened = !!drawn?.shortened;
  const body: CardElementArray = [
    ...(b.top ?? []),
    ...(drawn ? drawn.elements : questionElements(view, words, live && !!view.form)),
    ...(view.tally ?? []).map((line) => textBlock(line, { isSubtle: true, size: 'Small' })),
    // An outcome card (drawn with `top`) no longer shows when the ask expires.
    ...(view.deadline && !b.top ? [deadlineBlock(view.deadline)] : []),
  ];
  const note = (text: string) => body.push(textBlock(text, { isSubtle: true, size: 'Small' }));
  if (shortened) note(teamsText(locale, url && live ? 'shortened' : 'shortenedNoLink'));
  if (editDropped)
    note(url ? teamsText(locale, 'editOnPage') : words.t('approval.replyEdit', { word: decisionWord('edit', words) }));
  if (live) {
    const hint = view.form ? `${teamsText(locale, 'formHint', { submit: words.t('control.submit') })} ` : '';
    note(`${hint}${view.instructions}`);
  }
  const actions: ActionArray = !live
    ? []
    : approval && view.buttons
      ? decisionActions(approval, view.buttons, words, edit)
      : view.buttons
        ? buttonActions(view, words)
        : formActions(view, words);
  if (live && url && (shortened || editDropped || drawsNoForm(view))) {
    const open: IOpenUrlAction = {
      type: 'Action.OpenUrl',
      title: plain(words.t('control.open'), BUTTON_TITLE_MAX),
      url,
    };
    actions.push(open);
  }
  return card(body, actions, b.refresh);
}

/** The first build within {@link CARD_BYTES_MAX} (the last, most cut, when none is). */
function fitted(b: Build): AdaptiveCard {
  const budgets = b.view.approval ? APPROVAL_BUDGETS : APPROVAL_BUDGETS.slice(0, 1);
  return fitToLimit(
    budgets,
    (budget) => build(b, budget),
    (c) => jsonBytes(c) <= CARD_BYTES_MAX,
  ).value;
}

/**
 * The card of a pending prompt, in the view's locale. With `refreshUserIds`, the card carries a
 * `refresh` action (verb `refresh`, the ask's token) for those people. Teams takes at most
 * {@link REFRESH_USERS_MAX} ids: with more, the card is drawn live for everyone and its refresh
 * names no one (a person may still refresh it by hand); the sink refuses anyone the ask does not
 * allow, with the honest notice, as on every other channel.
 */
export function promptCard(view: PromptView, options: PromptCardOptions): AdaptiveCard {
  const ids = options.refreshUserIds ?? [];
  const tooMany = ids.length > REFRESH_USERS_MAX;
  const refresh: IRefreshDefinition | undefined =
    ids.length > 0
      ? {
          action: { type: 'Action.Execute', verb: REFRESH_VERB, data: tokenData(refreshToken(view)) },
          ...(tooMany ? {} : { userIds: [...ids] }),
        }
      : undefined;
  const words = wordsFor(view.locale);
  return fitted({
    view,
    words,
    live: options.live || tooMany,
    url: options.answerUrl ?? view.link,
    ...(refresh ? { refresh } : {}),
  });
}

/**
 * The card replacing a prompt once it ended: the outcome line first and prominent (who answered,
 * the choice, or the decision and the hash), then the prompt's text as it was, without controls.
 */
export function outcomeCard(outcome: OutcomeView, view: PromptView): AdaptiveCard {
  const words = wordsFor(view.locale);
  const line: IContainer = {
    type: 'Container',
    style: outcome.status === 'answered' ? 'good' : 'warning',
    items: [textBlock(outcome.text, { weight: 'Bolder', size: 'Medium' })],
  };
  return fitted({ view: { ...view, tally: [] }, words, live: false, url: undefined, top: [line] });
}
