import { escapeMarkdown } from 'discord.js';
import { shorten } from '../../core/text.js';
import { choiceView, type ButtonView, type PromptView, type QuestionView } from '../../core/prompt-view.js';
import type { OutcomeView } from '../../core/outcome-view.js';
import { cutEscaped, fitToLimit } from '../shared/fit.js';
import {
  BUTTON_URL_MAX,
  BUTTONS_PER_ROW,
  CONTENT_MAX,
  LINK_STYLE,
  ROWS_MAX,
  LABEL_MAX,
  NO_MENTIONS,
  validateLayout,
  type ButtonJson,
  type LinkButtonJson,
  type MessageJson,
} from './limits.js';
import { translate } from '../../core/i18n/index.js';
import { decodeToken } from '../../core/token.js';
import { approvalContent } from './approval-render.js';

const PRIMARY = 1;
const SECONDARY = 2;
/** Green and red buttons: an approval's Approve and Reject…. */
const SUCCESS = 3;
const DANGER = 4;
/** Message flag SUPPRESS_EMBEDS: URLs in labels do not unfurl into previews. */
const SUPPRESS_EMBEDS = 4;

/** Longest outcome part of a finalized message. */
const OUTCOME_MAX = 500;
/** Longest tally part of an open prompt. */
const TALLY_MAX = 600;

/** A message body as sent: the wire payload plus the flags. */
export type DiscordMessage = MessageJson & { flags: number };

/**
 * Escapes user text so it renders literally: markdown (bold, italics, code, spoilers, headings,
 * lists, masked links), `<...>` (user/role/channel mentions, timestamps, emoji), block quotes and
 * subtext. Pings are prevented separately by `allowed_mentions`.
 */
export function escapeText(text: string): string {
  const md = escapeMarkdown(text, { heading: true, bulletedList: true, numberedList: true, maskedLink: true });
  return md
    .replaceAll('<', '\\<')
    .replace(/^(\s*)>/gm, '$1\\>')
    .replace(/^(\s*)-#/gm, '$1\\-#');
}

/** What a person sees of escaped content: Discord drops a backslash before any ASCII punctuation. */
export function visibleText(content: string): string {
  return content.replace(/\\([^0-9A-Za-z\s])/g, '$1');
}

interface Limits {
  question: number;
  description: number;
  label: number;
}

// Tried in order until the content fits; options are never dropped, only shortened.
const TIERS: Limits[] = [
  { question: 1000, description: 300, label: 100 },
  { question: 500, description: 150, label: 100 },
  { question: 300, description: 80, label: 80 },
  { question: 200, description: 40, label: 60 },
  { question: 120, description: 0, label: 50 },
  { question: 80, description: 0, label: 30 },
];

function questionLines(q: QuestionView, several: boolean, lim: Limits, locale: string): string[] {
  const header = q.header !== undefined ? escapeText(q.header) : null;
  const title = several
    ? `**${header ? `${q.number}. ${header}` : escapeText(translate(locale, 'prompt.questionN', { n: q.number }))}**`
    : header
      ? `**${header}**`
      : null;
  // A kind without a case here (choiceView null) shows its question alone: the text reply answers it.
  const options = (choiceView(q)?.options ?? []).map((o) => {
    const description =
      o.description !== undefined && lim.description > 0
        ? ` — ${escapeText(shorten(o.description, lim.description))}`
        : '';
    return `${o.number}. ${escapeText(shorten(o.label, lim.label))}${description}`;
  });
  return [...(title ? [title] : []), escapeText(shorten(q.question, lim.question)), ...options];
}

/** No limit: the content as it would be if nothing had to be shortened. */
const WHOLE: Limits = { question: Infinity, description: Infinity, label: Infinity };

/** The text of a prompt: every question with its numbered options, then (with `instructions`) how to answer. */
export function promptContent(
  view: PromptView,
  max = CONTENT_MAX,
  instructions: string | null = view.instructions,
): string {
  return fitContent(view, max, instructions).content;
}

/** {@link promptContent}, and whether anything of the questions had to be shortened to fit. */
function fitContent(
  view: PromptView,
  max: number,
  instructions: string | null,
): { content: string; shortened: boolean } {
  const several = view.questions.length > 1;
  const footer = instructions !== null ? [footerOf(instructions)] : [];
  const build = (lim: Limits) =>
    [...view.questions.map((q) => questionLines(q, several, lim, view.locale).join('\n')), ...footer].join('\n\n');
  const fitted = fitToLimit(TIERS, build, (c) => c.length <= max);
  const content = fitted.fits ? fitted.value : cut(fitted.value, max);
  return { content, shortened: content !== build(WHOLE) };
}

/** A button's style: options blurple, Approve green, Reject… red, the rest grey. */
function styleOf(b: ButtonView): number {
  if (b.kind === 'option') return PRIMARY;
  if (b.kind !== 'decision') return SECONDARY;
  const choice = decodeToken(b.token)?.choice;
  const decision = choice?.kind === 'decide' ? choice.decision : null;
  return decision === 'approve' ? SUCCESS : decision === 'reject' ? DANGER : SECONDARY;
}

/** The instructions line under a prompt: small grey text (`-# …`), escaped; '' without instructions. */
function footerOf(instructions: string | null): string {
  return instructions === null ? '' : `-# ${escapeText(instructions.replace(/\s+/g, ' '))}`;
}

function button(b: ButtonView): ButtonJson {
  return {
    type: 2,
    style: styleOf(b),
    label: shorten(b.label, LABEL_MAX, 'utf16'),
    custom_id: b.token,
  };
}

/** Action rows: the option buttons (5 a row), then "Other" and "Skip" on their own row. */
export function buttonRows(buttons: readonly ButtonView[]): MessageJson['components'] {
  const options = buttons.filter((b) => b.kind === 'option').map(button);
  const rest = buttons.filter((b) => b.kind !== 'option').map(button);
  const rows: MessageJson['components'] = [];
  for (let i = 0; i < options.length; i += BUTTONS_PER_ROW)
    rows.push({ type: 1, components: options.slice(i, i + BUTTONS_PER_ROW) });
  for (let i = 0; i < rest.length; i += BUTTONS_PER_ROW)
    rows.push({ type: 1, components: rest.slice(i, i + BUTTONS_PER_ROW) });
  return rows;
}

/**
 * The row of a prompt answered with a form: Answer (opens the modal) and Skip. Empty when the
 * prompt has no form (buildPromptView found its modal does not fit Discord's capabilities): the message keeps the text form.
 */
export function formRow(view: PromptView): MessageJson['components'] {
  const form = view.form;
  if (!form) return [];
  const label = (key: 'control.answer' | 'control.skip') => shorten(translate(view.locale, key), LABEL_MAX, 'utf16');
  const skip: ButtonJson[] = form.skip
    ? [{ type: 2, style: SECONDARY, label: label('control.skip'), custom_id: form.skip }]
    : [];
  return [
    {
      type: 1,
      components: [{ type: 2, style: PRIMARY, label: label('control.answer'), custom_id: form.open }, ...skip],
    },
  ];
}

/** The tally lines of an open prompt, escaped, cut to {@link TALLY_MAX}; '' without a tally. */
function tallyContent(view: PromptView): string {
  const lines = view.tally ?? [];
  return lines.length === 0 ? '' : cut(lines.map(escapeText).join('\n'), TALLY_MAX);
}

/**
 * The deadline line of an open prompt; '' without one. The time is two timestamp tags, which
 * Discord shows in each reader's own zone and locale: the date and time (`f`) and how long is left
 * (`R`, kept current by the client, so it never goes stale as a text "in 2 hours" would).
 */
export function deadlineContent(view: PromptView): string {
  const d = view.deadline;
  return d ? `${escapeText(d.before)}<t:${d.unix}:f> (<t:${d.unix}:R>)${escapeText(d.after)}` : '';
}

/** The message for a prompt (the tally and the deadline, when any, between the questions and the instructions), with its buttons or its form's; throws a permanent ChannelError for a layout Discord would refuse. */
export function renderPrompt(view: PromptView): DiscordMessage {
  const tally = [tallyContent(view), deadlineContent(view)].filter(Boolean).join('\n\n');
  const components = view.buttons ? buttonRows(view.buttons) : formRow(view);
  const instructions = !view.buttons && components.length > 0 && view.form ? view.form.instructions : view.instructions;
  const tail = [tally, footerOf(instructions)];
  const drawn = view.approval
    ? approvalDrawn(view, tail)
    : tally
      ? fitContent(view, CONTENT_MAX - tally.length - 2, instructions)
      : fitContent(view, CONTENT_MAX, instructions);
  const content = !view.approval && tally ? withTally(drawn.content, tally) : drawn.content;
  // No buttons here (no form, or none Discord can show): the answer page is the prompt's only form.
  const open = view.link && (components.length === 0 || drawn.shortened) ? openButton(view) : undefined;
  const message: DiscordMessage = {
    content,
    components: open ? withOpen(components, open) : components,
    allowed_mentions: NO_MENTIONS,
    flags: SUPPRESS_EMBEDS,
  };
  validateLayout(message);
  return message;
}

/** An approval's content, and whether it was shortened: its content with no room limit differs. */
function approvalDrawn(view: PromptView, tail: string[]): { content: string; shortened: boolean } {
  const content = approvalContent(view.approval!, view.locale, CONTENT_MAX, escapeText, tail);
  const whole = approvalContent(view.approval!, view.locale, Infinity, escapeText, tail);
  return { content, shortened: content !== whole };
}

/** The "Open" link button to the answer page, or undefined when its URL is longer than Discord takes. */
function openButton(view: PromptView): LinkButtonJson | undefined {
  const url = view.link!;
  if (url.length > BUTTON_URL_MAX) return undefined;
  return {
    type: 2,
    style: LINK_STYLE,
    label: shorten(translate(view.locale, 'control.open'), LABEL_MAX, 'utf16'),
    url,
  };
}

/** `rows` with the Open button in a row of its own, else in the last row with room; unchanged when every row is full. */
function withOpen(rows: MessageJson['components'], open: LinkButtonJson): MessageJson['components'] {
  if (rows.length < ROWS_MAX) return [...rows, { type: 1, components: [open] }];
  let at = rows.length - 1;
  while (at >= 0 && rows[at]!.components.length >= BUTTONS_PER_ROW) at--;
  if (at < 0) return rows;
  return rows.map((row, i) => (i === at ? { type: 1, components: [...row.components, open] } : row));
}

/** The finalized message: the same questions and options, the outcome instead of the instructions, no components. */
export function renderFinal(view: PromptView, outcome: OutcomeView): DiscordMessage {
  const [first = '', ...rest] = outcome.text.replace(/\n{2,}/g, '\n').split('\n');
  const line = cut([`**${escapeText(first)}**`, ...rest.map(escapeText)].join('\n'), OUTCOME_MAX);
  const content = view.approval
    ? approvalContent(view.approval, view.locale, CONTENT_MAX, escapeText, [line])
    : `${promptContent(view, CONTENT_MAX - line.length - 2, null)}\n\n${line}`;
  const message: DiscordMessage = {
    content,
    components: [],
    allowed_mentions: NO_MENTIONS,
    flags: SUPPRESS_EMBEDS,
  };
  validateLayout(message);
  return message;
}

/** Puts the tally before the instructions line (`-# …`) of prompt content. */
function withTally(content: string, tally: string): string {
  const at = content.lastIndexOf('\n\n-# ');
  return at < 0 ? `${content}\n\n${tally}` : `${content.slice(0, at)}\n\n${tally}${content.slice(at)}`;
}

/** A reminder: a reply to the question (`fail_if_not_exists`: a deleted question fails it), escaped, never pinging. */
export function renderReminder(text: string, questionId: string): MessageJson {
  return {
    content: cut(noticeText(text), CONTENT_MAX),
    components: [],
    allowed_mentions: NO_MENTIONS,
    message_reference: { message_id: questionId, fail_if_not_exists: true },
  };
}

/**
 * The text of a notice from core, escaped. With `mentionIds` (the "this question is for …" notice,
 * which lists the allowed user ids) snowflakes become `<@id>`: shown as names, never pinging.
 */
export function noticeText(text: string, mentionIds = false): string {
  const escaped = escapeText(text);
  return mentionIds ? escaped.replace(/\b(\d{17,20})\b/g, '<@$1>') : escaped;
}

/** A short reply to a person's message (a notice from core): escaped, never pinging. */
export function renderNotice(text: string, replyTo?: string, mentionIds = false): MessageJson {
  return {
    content: cut(noticeText(text, mentionIds), CONTENT_MAX),
    components: [],
    allowed_mentions: NO_MENTIONS,
    ...(replyTo ? { message_reference: { message_id: replyTo, fail_if_not_exists: false as const } } : {}),
  };
}

/** Cuts escaped content to `max` characters without splitting a surrogate pair or leaving a dangling backslash. */
function cut(text: string, max: number): string {
  return cutEscaped(text, max, (head) => ((/\\+$/.exec(head)?.[0].length ?? 0) % 2 === 1 ? head.slice(0, -1) : head));
}
