import type { OutcomeView } from '../../core/outcome-view.js';
import { choiceView, type PromptView, type QuestionView } from '../../core/prompt-view.js';
import { fitToLimit } from '../shared/fit.js';
import { escapeMrkdwn, fitEscaped, fitLength, ID_PREFIX, type Block } from './mrkdwn.js';
import {
  ACTIONS_MAX,
  BLOCKS_MAX,
  BUTTON_TEXT_MAX,
  BUTTON_URL_MAX,
  FALLBACK_TEXT_MAX,
  SECTION_TEXT_MAX,
} from './limits.js';
import { LOCALES, translate } from '../../core/i18n/index.js';
import { slackText } from './words.js';
import { approvalBlocks, approvalShortened } from './approval-render.js';
import { decodeToken } from '../../core/token.js';

export { escapeMrkdwn, fitEscaped, fitLength, ID_PREFIX, unescapeMrkdwn, type Block } from './mrkdwn.js';

/** A message ready for chat.postMessage / chat.update: blocks plus the notification fallback text. */
export interface RenderedMessage {
  text: string;
  blocks: Block[];
}

const QUESTION_BLOCK = `${ID_PREFIX}q`;
const HELP_BLOCK = `${ID_PREFIX}help`;
const ACTIONS_BLOCK = `${ID_PREFIX}actions`;
const OUTCOME_BLOCK = `${ID_PREFIX}outcome`;
const TALLY_BLOCK = `${ID_PREFIX}tally`;
const DEADLINE_BLOCK = `${ID_PREFIX}deadline`;
/** The actions block of the Open button when the prompt has no other buttons (or no room beside them). */
const OPEN_BLOCK = `${ID_PREFIX}open`;
/**
 * `action_id` of the "Open" URL button to the answer page. Slack still sends a `block_actions` for
 * a tap on it: inbound.ts acks that and does nothing else (the browser opens the page).
 */
export const OPEN_ACTION = `${ID_PREFIX}open`;
/** Longest tally line under an open prompt (the context block's element limit is 2000). */
const TALLY_LINE_MAX = 500;
/** Most lines of a tally (a context block holds at most 10 elements). */
const TALLY_LINES_MAX = 10;

interface Budget {
  question: number;
  label: number;
  description: number;
}
// Tried in order until a question's section fits 3000 characters; options are never dropped.
const BUDGETS: Budget[] = [
  { question: Infinity, label: Infinity, description: Infinity },
  { question: 1000, label: 100, description: 120 },
  { question: 600, label: 100, description: 50 },
  { question: 300, label: 60, description: 20 },
  { question: 150, label: 40, description: 10 },
];

function questionText(q: QuestionView, several: boolean, budget: Budget): string {
  const e = (s: string, max: number) => escapeMrkdwn(fitLength(s, max));
  const question = e(q.question, budget.question);
  const title = q.header !== undefined ? (several ? `${q.number}. ${q.header}` : q.header) : undefined;
  const head =
    title !== undefined ? [`*${escapeMrkdwn(title)}*`, question] : [several ? `*${q.number}.* ${question}` : question];
  // A kind without a case here (choiceView null) shows its question alone: the text reply answers it.
  const options = (choiceView(q)?.options ?? []).map((o) => {
    const description = o.description ? ` — ${e(o.description.replace(/\s*\n\s*/g, ' '), budget.description)}` : '';
    return `${o.number}. ${e(o.label, budget.label)}${description}`;
  });
  return [...head, ...options].join('\n');
}

/** A question's section, and whether its text had to be shortened to fit. */
function sectionFor(q: QuestionView, several: boolean): { block: Block; shortened: boolean } {
  const { value: text } = fitToLimit(
    BUDGETS,
    (budget) => questionText(q, several, budget),
    (t) => t.length <= SECTION_TEXT_MAX,
  );
  const fitted = fitEscaped(text, SECTION_TEXT_MAX);
  // BUDGETS[0] cuts nothing: any other text lost something.
  const shortened = fitted !== questionText(q, several, BUDGETS[0]!);
  return {
    block: { type: 'section', block_id: `${QUESTION_BLOCK}${q.number}`, text: { type: 'mrkdwn', text: fitted } },
    shortened,
  };
}

// Slack stores plain_text with `& < >` as entities too (bolt-python#513) and decodes them for display.
function buttonLabel(label: string): string {
  let max = BUTTON_TEXT_MAX;
  let text = escapeMrkdwn(fitLength(label, max));
  while (text.length > BUTTON_TEXT_MAX) text = escapeMrkdwn(fitLength(label, --max));
  return text;
}

/** The actions block's id: the ask's shipped locale follows {@link ACTIONS_BLOCK} when not English (`askgate_actions.pt-BR`). */
function actionsBlockId(locale: string): string {
  return locale === 'en' ? ACTIONS_BLOCK : `${ACTIONS_BLOCK}.${locale}`;
}

/** The shipped locale an actions block's id names (untrusted: only a key of LOCALES), or undefined. */
export function localeOfActions(blockId: unknown): string | undefined {
  if (typeof blockId !== 'string' || !blockId.startsWith(`${ACTIONS_BLOCK}.`)) return undefined;
  const tag = blockId.slice(ACTIONS_BLOCK.length + 1);
  return LOCALES.has(tag) ? tag : undefined;
}

function actionId(kind: 'option' | 'other' | 'skip' | 'form' | 'decision', index: number): string {
  // Action ids are unique in a block: an option or a decision goes by its place.
  return kind === 'option' || kind === 'decision' ? `${ID_PREFIX}opt_${index + 1}` : `${ID_PREFIX}${kind}`;
}

/** The label of the button that opens a prompt's modal (English; every locale's is `control.answer`). */
export const ANSWER_LABEL = translate('en', 'control.answer');

/** The buttons of a prompt: its options (a single single-choice question), or Answer and Skip when `withForm`, in the ask's locale. */
function buttonsOf(
  view: PromptView,
  withForm: boolean,
): { kind: 'option' | 'other' | 'skip' | 'form' | 'decision'; label: string; token: string }[] {
  if (view.buttons) return view.buttons;
  if (!withForm || !view.form) return [];
  const { open, skip } = view.form;
  return [
    { kind: 'form', label: translate(view.locale, 'control.answer'), token: open },
    ...(skip ? [{ kind: 'skip' as const, label: translate(view.locale, 'control.skip'), token: skip }] : []),
  ];
}

/**
 * Renders a prompt: sections (one per question), how to answer, and buttons: the options of a single
 * single-choice question, or Answer (opens the modal) and Skip when `withForm` (the view has a form:
 * buildPromptView found that it fits Slack's capabilities); otherwise the text form.
 */
export function renderPrompt(view: PromptView, withForm = false): RenderedMessage {
  const sections = questionBlocks(view);
  const buttons = buttonsOf(view, withForm);
  // Replies to a Slack message go in its thread: the core's "reply to this message" says so.
  const inThread = (text: string) =>
    text.replace(translate(view.locale, 'phrase.replyToMessage'), translate(view.locale, 'phrase.replyInThread'));
  const help = view.buttons
    ? inThread(view.instructions)
    : buttons.length > 0 && view.form
      ? inThread(view.form.instructions)
      : slackText(view.locale, 'replyInThread', { instructions: view.instructions });
  const tally = (view.tally ?? []).slice(0, TALLY_LINES_MAX);
  const blocks: Block[] = [
    ...sections,
    ...(tally.length > 0
      ? [
          {
            type: 'context',
            block_id: TALLY_BLOCK,
            elements: tally.map((line) => ({ type: 'mrkdwn', text: fitEscaped(escapeMrkdwn(line), TALLY_LINE_MAX) })),
          },
        ]
      : []),
    ...(view.deadline
      ? [
          {
            type: 'context',
            block_id: DEADLINE_BLOCK,
            elements: [{ type: 'mrkdwn', text: deadlineText(view.deadline) }],
          },
        ]
      : []),
    { type: 'context', block_id: HELP_BLOCK, elements: [{ type: 'mrkdwn', text: escapeMrkdwn(help) }] },
  ];
  if (buttons.length > 0) {
    blocks.push({
      type: 'actions',
      block_id: actionsBlockId(view.locale),
      elements: buttons.map((b, i) => ({
        type: 'button',
        action_id: actionId(b.kind, i),
        text: { type: 'plain_text', text: buttonLabel(b.label), emoji: true },
        value: b.token,
        ...decisionStyle(b),
      })),
    });
  }
  // No buttons here (drawsNoForm, or a form whose modal Slack cannot show): the page is its only form.
  if (view.link && (buttons.length === 0 || questionsShortened(view))) addOpen(blocks, view);
  return { text: fallbackText(sections), blocks };
}

/**
 * The deadline line as mrkdwn: the time is a `<!date>` token, which Slack shows in each reader's own
 * zone and format ("Tomorrow, 17:00"); its fallback (older clients, notifications) is the time in
 * the ask's zone, the zone named. The catalogue's words around it are escaped like any text.
 */
export function deadlineText(deadline: NonNullable<PromptView['deadline']>): string {
  const date = `<!date^${deadline.unix}^{date_short_pretty}, {time}|${escapeMrkdwn(deadline.when)}>`;
  return `${escapeMrkdwn(deadline.before)}${date}${escapeMrkdwn(deadline.after)}`;
}

/**
 * Adds the "Open" URL button to the answer page: beside the prompt's buttons when their actions
 * block has room, else in an actions block of its own when the message has room for one. Left out
 * when the URL is longer than a button takes (Slack would refuse the whole message).
 */
function addOpen(blocks: Block[], view: PromptView): void {
  const url = view.link!;
  if (url.length > BUTTON_URL_MAX) return;
  const open = {
    type: 'button',
    action_id: OPEN_ACTION,
    text: { type: 'plain_text', text: buttonLabel(translate(view.locale, 'control.open')), emoji: true },
    url,
  };
  const last = blocks[blocks.length - 1];
  const elements = last?.type === 'actions' ? (last.elements as unknown[]) : null;
  if (elements && elements.length < ACTIONS_MAX) elements.push(open);
  else if (blocks.length < BLOCKS_MAX) blocks.push({ type: 'actions', block_id: OPEN_BLOCK, elements: [open] });
}

/** Whether the prompt's questions (or its approval) were shortened to fit Slack's limits. */
function questionsShortened(view: PromptView): boolean {
  if (view.approval) return approvalShortened(view.approval, view.locale);
  const several = view.questions.length > 1;
  return view.questions.some((q) => sectionFor(q, several).shortened);
}

/** Approve is the primary button, Reject the danger one; every other button keeps Slack's default. */
function decisionStyle(button: { kind: string; token: string }): { style?: 'primary' | 'danger' } {
  if (button.kind !== 'decision') return {};
  const choice = decodeToken(button.token)?.choice;
  if (choice?.kind !== 'decide') return {};
  return choice.decision === 'approve' ? { style: 'primary' } : choice.decision === 'reject' ? { style: 'danger' } : {};
}

/** A reminder: mrkdwn-escaped text (no blocks), within the fallback limit; sent as a thread reply. */
export function renderReminder(text: string): { text: string } {
  return { text: fitEscaped(escapeMrkdwn(text), FALLBACK_TEXT_MAX) };
}

/** The finalized message: the question sections as delivered (no buttons, no help line) plus the outcome. */
export function renderFinal(view: PromptView, outcome: OutcomeView): RenderedMessage {
  const body = questionBlocks(view);
  const mark = outcome.status === 'answered' ? ':white_check_mark:' : ':heavy_minus_sign:';
  const line = fitEscaped(`${mark} ${escapeMrkdwn(outcome.text)}`, SECTION_TEXT_MAX);
  const blocks: Block[] = [...body, { type: 'section', block_id: OUTCOME_BLOCK, text: { type: 'mrkdwn', text: line } }];
  return { text: fitEscaped(`${escapeMrkdwn(outcome.text)}\n${fallbackText(body)}`, FALLBACK_TEXT_MAX), blocks };
}

/** The blocks of the questions: an approval drawn natively (approval-render.ts), else one section per question. */
function questionBlocks(view: PromptView): Block[] {
  if (view.approval) return approvalBlocks(view.approval, view.locale);
  const several = view.questions.length > 1;
  return view.questions.map((q) => sectionFor(q, several).block);
}

/** The mrkdwn text of the question sections, for the notification fallback. */
function fallbackText(sections: readonly Block[]): string {
  const texts = sections
    .map((b) => (b.text as { text?: unknown } | undefined)?.text)
    .filter((t): t is string => typeof t === 'string');
  return fitEscaped(texts.join('\n'), FALLBACK_TEXT_MAX);
}
