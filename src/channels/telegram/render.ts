import type { InlineKeyboardButton, InlineKeyboardMarkup, MessageEntity } from 'grammy/types';
import { wordsFor, type Words } from '../../core/i18n/index.js';
import type { OutcomeView } from '../../core/outcome-view.js';
import { choiceView, drawsNoForm, type PromptView, type QuestionView } from '../../core/prompt-view.js';
import { fitToLimit } from '../shared/fit.js';
import { MESSAGE_MAX_CHARS, assertCallbackData, cut } from './limits.js';
import { KEYBOARD_MAX_BUTTONS } from './capabilities.js';
import { telegramText } from './words.js';
import { APPROVAL_LEVELS, APPROVAL_OUTCOME_ROOM, EntityText, addApproval } from './approval-render.js';

/** Plain text plus formatting entities (never parse_mode: user strings cannot break parsing). */
export interface RenderedText {
  text: string;
  entities: MessageEntity[];
}

/** The sendMessage parameters of a prompt, and its body without the instructions (for the final edit). */
export interface RenderedPrompt extends RenderedText {
  reply_markup?: InlineKeyboardMarkup;
  body: RenderedText;
  /**
   * The "Open" button to the answer page (a URL button in a row of its own), when the view has a
   * link and the prompt was shortened to fit or has no form here; already in `reply_markup`, and
   * kept apart for a keyboard drawn elsewhere (a draft's) to add.
   */
  open?: InlineKeyboardButton.UrlButton;
}

/** Longest outcome line of a finalized message. */
const OUTCOME_MAX_CHARS = 1000;
/** Furthest ahead a `date_time` entity may point, with a day's margin on the Bot API's 1098 days. */
const DATE_TIME_AHEAD_MAX_S = 1097 * 86_400;
/** Longest tally line under an open prompt. */
const TALLY_LINE_MAX_CHARS = 500;

/** Shortening steps tried in order until the message fits 4096 characters; options are never dropped. */
const FIT_LEVELS: { description: number; question: number }[] = [
  { description: Infinity, question: Infinity },
  { description: 200, question: Infinity },
  { description: 200, question: 1000 },
  { description: 100, question: 600 },
  { description: 60, question: 300 },
  { description: 20, question: 100 },
];

class TextBuilder {
  text = '';
  readonly entities: MessageEntity[] = [];

  add(part: string, bold = false): this {
    // Entity offsets and lengths are in UTF-16 code units, which is what JS string lengths count.
    if (bold && part.length > 0) this.entities.push({ type: 'bold', offset: this.text.length, length: part.length });
    this.text += part;
    return this;
  }

  result(): RenderedText {
    return { text: this.text, entities: [...this.entities] };
  }
}

function addQuestion(
  b: TextBuilder,
  q: QuestionView,
  several: boolean,
  level: (typeof FIT_LEVELS)[number],
  words: Words,
): void {
  const numbered = words.t('prompt.questionN', { n: q.number });
  const title = several ? `${numbered}${q.header ? ` · ${q.header}` : ''}` : q.header;
  // A kind without a case here (choiceView null) shows its question alone: the text reply answers it.
  const choice = choiceView(q);
  const pick = choice?.multiSelect ? ` ${telegramText(words.locale, 'pickSeveral')}` : '';
  if (title) b.add(title, true).add(`${pick}\n`);
  b.add(cut(q.question, level.question));
  if (!title) b.add(pick);
  // A typed question has no options under it: what it expects is in the instructions (and its step's prompt).
  if (!choice) return;
  b.add('\n');
  const indent = several ? '  ' : '';
  for (const o of choice.options) {
    b.add(`\n${indent}${o.number}. ${o.label}`);
    if (o.description) b.add(` — ${cut(o.description, Math.max(level.description, 2))}`);
  }
}

function buildBody(view: PromptView, level: (typeof FIT_LEVELS)[number]): TextBuilder {
  const b = new TextBuilder();
  const several = view.questions.length > 1;
  const words = wordsFor(view.locale);
  view.questions.forEach((q, i) => {
    if (i > 0) b.add('\n\n');
    addQuestion(b, q, several, level, words);
  });
  return b;
}

/** Keeps only entities that lie wholly inside the first `length` characters. */
function clip(entities: readonly MessageEntity[], length: number): MessageEntity[] {
  return entities.filter((e) => e.offset + e.length <= length);
}

function keyboard(view: PromptView): InlineKeyboardMarkup | undefined {
  if (!view.buttons) return undefined;
  const button = (b: { label: string; token: string }): InlineKeyboardButton.CallbackButton => ({
    text: b.label,
    callback_data: assertCallbackData(b.token),
  });
  // An approval's decisions go two to a row (their labels are long), Skip on its own row.
  if (view.approval) {
    const decisions = view.buttons.filter((b) => b.kind === 'decision').map(button);
    const rows = [0, 2].map((i) => decisions.slice(i, i + 2)).filter((row) => row.length > 0);
    const skip = view.buttons.filter((b) => b.kind === 'skip').map(button);
    return { inline_keyboard: skip.length > 0 ? [...rows, skip] : rows };
  }
  const options = view.buttons.filter((b) => b.kind === 'option').map((b) => [button(b)]);
  const extra = view.buttons.filter((b) => b.kind !== 'option').map(button);
  return { inline_keyboard: extra.length > 0 ? [...options, extra] : options };
}

/** Renders a prompt: header, question, every option with its description, then the instructions. */
export function renderPrompt(view: PromptView): RenderedPrompt {
  const drawn = drawPrompt(view);
  const open = view.link && (drawn.shortened || drawsNoForm(view)) ? openButton(view) : undefined;
  const reply_markup = withOpen(keyboard(view), open);
  return { ...drawn.prompt, ...(reply_markup ? { reply_markup } : {}), ...(open ? { open } : {}) };
}

/** The "Open" link button of a view with a link. */
function openButton(view: PromptView): InlineKeyboardButton.UrlButton {
  return { text: wordsFor(view.locale).t('control.open'), url: view.link! };
}

/** `markup` with the Open button in a last row of its own (when there is room for one more button). */
export function withOpen(
  markup: InlineKeyboardMarkup | undefined,
  open: InlineKeyboardButton.UrlButton | undefined,
): InlineKeyboardMarkup | undefined {
  if (!open) return markup;
  const rows = markup?.inline_keyboard ?? [];
  if (rows.reduce((n, row) => n + row.length, 0) >= KEYBOARD_MAX_BUTTONS) return markup;
  return { inline_keyboard: [...rows, [open]] };
}

/** The prompt's text, and whether it had to be shortened to fit. */
function drawPrompt(view: PromptView): { prompt: Omit<RenderedPrompt, 'reply_markup'>; shortened: boolean } {
  if (view.approval) return renderApproval(view);
  let level = 0;
  const built = fitToLimit(
    FIT_LEVELS,
    (fit) => {
      level = FIT_LEVELS.indexOf(fit);
      const body = buildBody(view, fit);
      const bodyText = body.result();
      const tally = (view.tally ?? []).map((line) => cut(line, TALLY_LINE_MAX_CHARS));
      if (tally.length > 0) body.add(`\n\n${tally.join('\n')}`);
      addDeadline(body, view.deadline);
      return { full: body.add(`\n\n${view.instructions}`).result(), body: bodyText };
    },
    ({ full }) => full.text.length <= MESSAGE_MAX_CHARS,
  );
  if (built.fits) return { prompt: { ...built.value.full, body: built.value.body }, shortened: level > 0 };
  // Unreachable with askgate's input limits; a last resort so a send never fails on length.
  const last = built.value.body;
  const text = cut(`${last.text}\n\n${view.instructions}`, MESSAGE_MAX_CHARS);
  const body = {
    text: cut(last.text, MESSAGE_MAX_CHARS),
    entities: clip(last.entities, Math.min(last.text.length, MESSAGE_MAX_CHARS - 1)),
  };
  return { prompt: { text, entities: clip(last.entities, text.length - 1), body }, shortened: true };
}

/** An approval's prompt (approval-render.ts), shortened until it fits with room for its outcome line. */
function renderApproval(view: PromptView): { prompt: Omit<RenderedPrompt, 'reply_markup'>; shortened: boolean } {
  const words = wordsFor(view.locale);
  const tally = (view.tally ?? []).map((line) => cut(line, TALLY_LINE_MAX_CHARS));
  let at = 0;
  const built = fitToLimit(
    APPROVAL_LEVELS,
    (level) => {
      at = APPROVAL_LEVELS.indexOf(level);
      const b = new EntityText();
      addApproval(b, view.approval!, level, words);
      const body = { text: b.text, entities: [...b.entities] };
      if (tally.length > 0) b.add(`\n\n${tally.join('\n')}`);
      addDeadline(b, view.deadline);
      b.add(`\n\n${view.instructions}`);
      return { text: b.text, entities: b.entities, body };
    },
    (r) => r.text.length + APPROVAL_OUTCOME_ROOM <= MESSAGE_MAX_CHARS,
  );
  // The last level always fits askgate's input limits (a summary is one sentence, an action 100 characters).
  return { prompt: built.value, shortened: at > 0 };
}

/**
 * Appends the deadline line on its own paragraph, its time as a `date_time` entity (Bot API 9.5):
 * clients that know it show the time in the reader's own zone and locale (weekday, date, time);
 * older ones show the entity's text, the time in the ask's zone with the zone named. Left out of
 * the body the final edit keeps: the outcome replaces it.
 */
function addDeadline(b: { text: string; entities: MessageEntity[] }, deadline: PromptView['deadline']): void {
  if (!deadline) return;
  b.text += `\n\n${deadline.before}`;
  // Telegram refuses the whole message for a unix_time past now + 1098 days: a deadline that far
  // (only a test's or a misconfigured bound's) keeps the plain text.
  if (deadline.unix <= Date.now() / 1000 + DATE_TIME_AHEAD_MAX_S)
    b.entities.push({
      type: 'date_time',
      offset: b.text.length,
      length: deadline.when.length,
      unix_time: deadline.unix,
      date_time_format: 'wdt',
    });
  b.text += `${deadline.when}${deadline.after}`;
}

/** A reminder's text: plain (no entities, no parse_mode), within Telegram's message limit. */
export function renderReminder(text: string): string {
  return cut(text, MESSAGE_MAX_CHARS);
}

/** The finalized message: the original body (without instructions), a blank line and the outcome. */
export function renderFinal(body: RenderedText, outcome: OutcomeView): RenderedText {
  const tail = cut(outcome.text, OUTCOME_MAX_CHARS);
  const room = MESSAGE_MAX_CHARS - tail.length - 2;
  const head = cut(body.text, room);
  const entities = clip(body.entities, head.length === body.text.length ? head.length : head.length - 1);
  const text = head.length > 0 ? `${head}\n\n${tail}` : tail;
  const offset = head.length > 0 ? head.length + 2 : 0;
  return { text, entities: [...entities, { type: 'bold', offset, length: tail.length }] };
}
