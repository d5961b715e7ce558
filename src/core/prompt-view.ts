import { HEADER_DISPLAY_MAX, labelKey, type AskRecord, type Question, type Responder } from './schemas.js';
import { encodeToken, type ButtonChoice } from './token.js';
import { ownValue } from './own.js';
import { stripInvisible } from './text.js';

/** One numbered option as shown in a message body. */
export interface OptionView {
  /** 1-based number the human can type. */
  number: number;
  label: string;
  description?: string;
}

/** One question as shown in a message body. */
export interface QuestionView {
  /** 1-based position. */
  number: number;
  id: string;
  /** Header shortened to at most 12 characters for display, when the question has one. */
  header?: string;
  question: string;
  multiSelect: boolean;
  options: OptionView[];
}

/** A native button: `token` is the opaque callback data (see core/token.ts). */
export interface ButtonView {
  kind: 'option' | 'other' | 'skip';
  label: string;
  token: string;
}

/** Channel-neutral view of a prompt; each channel's render.ts turns it into a message. */
export interface PromptView {
  askId: string;
  version: number;
  questions: QuestionView[];
  /** Buttons only for a single single-choice question; null means plain text. */
  buttons: ButtonView[] | null;
  /** One line telling the human how to answer. */
  instructions: string;
}

/** The outcome line a finalized message shows. */
export interface OutcomeView {
  status: 'answered' | 'no_answer';
  /** e.g. "Answered: Staging — by @alice", "Expired — no answer", "Cancelled". */
  text: string;
}

/** Instructions under a prompt with buttons. */
export const BUTTON_INSTRUCTIONS = 'Tap an option, or reply to this message with your own words. Send "skip" to skip.';
const TEXT_INSTRUCTIONS = 'Reply with a number, an option name or your own words; send "skip" to skip.';
const MULTI_SELECT_INSTRUCTIONS = 'Pick several like "1,3".';
const SEVERAL_INSTRUCTIONS = 'Answer each question on its own line, in order, or as "2: your answer".';
const OWN_WORDS = 'their own words';
const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** What a length limit counts: grapheme clusters (what a reader sees) or UTF-16 code units (what most platform limits count). */
export type TextUnit = 'graphemes' | 'utf16';

/**
 * The one truncation of askgate, for core and every channel: cuts text to at most `max` units
 * (see {@link TextUnit}) on a grapheme boundary, so no emoji, ZWJ sequence or combining mark is
 * split, ending in "…" when cut (the "…" counts as one unit).
 */
export function shorten(text: string, max: number, unit: TextUnit = 'graphemes'): string {
  if (text.length <= max) return text; // never more graphemes than UTF-16 units: no need to segment
  if (max <= 0) return '';
  let head = '';
  let used = 0;
  for (const { segment } of GRAPHEMES.segment(text)) {
    used += unit === 'utf16' ? segment.length : 1;
    if (used > max) return `${head.trimEnd()}…`;
    if (used < max) head += segment;
  }
  return text; // at most `max` graphemes
}

/** A header as displayed: at most {@link HEADER_DISPLAY_MAX} characters. */
export function displayHeader(header: string): string {
  return shorten(header, HEADER_DISPLAY_MAX);
}

/** Builds the view of a pending ask. */
export function buildPromptView(record: Pick<AskRecord, 'id' | 'version' | 'questions'>): PromptView {
  const questions = record.questions.map((q, i): QuestionView => ({
    number: i + 1,
    id: q.id,
    ...(q.header !== undefined ? { header: displayHeader(q.header) } : {}),
    question: q.question,
    multiSelect: q.multiSelect,
    options: q.options.map((o, j) => ({
      number: j + 1,
      label: o.label,
      ...(o.description !== undefined && o.description !== '' ? { description: o.description } : {}),
    })),
  }));
  const only = record.questions.length === 1 ? record.questions[0]! : null;
  if (only && !only.multiSelect) {
    const token = (choice: ButtonChoice) => encodeToken({ askId: record.id, version: record.version, choice });
    const buttons: ButtonView[] = [
      ...only.options.map((o, index): ButtonView => ({
        kind: 'option',
        label: o.label,
        token: token({ kind: 'option', index }),
      })),
      { kind: 'other', label: 'Other…', token: token({ kind: 'other' }) },
      { kind: 'skip', label: 'Skip', token: token({ kind: 'skip' }) },
    ];
    return { askId: record.id, version: record.version, questions, buttons, instructions: BUTTON_INSTRUCTIONS };
  }
  const instructions = [
    TEXT_INSTRUCTIONS,
    ...(record.questions.some((q) => q.multiSelect) ? [MULTI_SELECT_INSTRUCTIONS] : []),
    ...(record.questions.length > 1 ? [SEVERAL_INSTRUCTIONS] : []),
  ].join(' ');
  return { askId: record.id, version: record.version, questions, buttons: null, instructions };
}

/** The follow-up prompt asking for the questions still unanswered after a partial reply. */
export function partialPrompt(questions: readonly Question[], missing: readonly string[]): string {
  const open = questions.flatMap((q, i) => (missing.includes(q.id) ? [`${i + 1}. ${shorten(q.question, 100)}`] : []));
  if (open.length === 0) return 'Got it.';
  const first = questions.findIndex((q) => missing.includes(q.id)) + 1;
  const how = `Reply with one line per open question, or as "${first}: your answer".`;
  // Several open questions go on their own lines so question texts without "?" stay apart.
  return open.length === 1 ? `Got it. Still open: ${open[0]} ${how}` : ['Got it. Still open:', ...open, how].join('\n');
}

/**
 * How a responder is named in summaries: "@username", else their name, else their user id.
 * Platform names are not validated by askgate: bidi overrides and other invisible characters are dropped.
 */
export function responderName(by: Responder): string {
  if (by.username) return `@${stripInvisible(by.username).replace(/^@/, '')}`;
  return stripInvisible(by.name ?? '') || stripInvisible(by.userId);
}

/** " — by @alice", or " — via API" for answers through the API. */
function byline(by: Responder): string {
  return by.channel === 'api' ? ' — via API' : ` — by ${responderName(by)}`;
}

/**
 * The chosen option labels (without "(Recommended)"), in the order given; any value that is not
 * an option is shown only as "their own words": free text may hold secrets or mentions.
 */
export function answerSummary(question: Pick<Question, 'options'>, values: readonly string[]): string {
  const shown = values.map((v) => {
    const option =
      question.options.find((o) => o.label === v) ?? question.options.find((o) => labelKey(o.label) === labelKey(v));
    return option ? option.label.replace(/\s*\(recommended\)\s*$/i, '') : OWN_WORDS;
  });
  return [...new Set(shown)].join(', ');
}

/** The outcome of a terminal record, as shown in the edited message. Throws for a pending record. */
export function outcomeView(record: AskRecord): OutcomeView {
  const result = record.result;
  if (record.status === 'pending' || !result) throw new Error(`ask ${record.id} has no outcome yet`);
  if (result.status === 'no_answer') {
    switch (result.reason) {
      case 'timeout':
        return { status: 'no_answer', text: 'Expired — no answer' };
      case 'skipped':
        if (!result.by) return { status: 'no_answer', text: 'Skipped' };
        return {
          status: 'no_answer',
          text: result.by.channel === 'api' ? 'Skipped via API' : `Skipped by ${responderName(result.by)}`,
        };
      case 'cancelled':
        return { status: 'no_answer', text: 'Cancelled' };
      case 'superseded':
        return { status: 'no_answer', text: 'Replaced by a newer question' };
      case 'undelivered':
        return { status: 'no_answer', text: 'Not delivered' };
    }
  }
  const by = byline(result.answeredBy);
  if (record.questions.length === 1) {
    const q = record.questions[0]!;
    return { status: 'answered', text: `Answered: ${answerSummary(q, ownValue(result.answers, q.id) ?? [])}${by}` };
  }
  const lines = record.questions.map(
    (q, i) =>
      `${i + 1}. ${q.header !== undefined ? displayHeader(q.header) : shorten(q.question, 40)}: ${answerSummary(q, ownValue(result.answers, q.id) ?? [])}`,
  );
  return { status: 'answered', text: [`Answered${by}`, ...lines].join('\n') };
}

/** Situations a channel tells the human about after a tap or a reply. */
export type NoticeCode = 'recorded' | 'already_resolved' | 'expired' | 'cancelled' | 'forbidden' | 'not_found';

/** Options of {@link noticeFor}. */
export interface NoticeOptions {
  /** Renders a platform user id as the channel shows it (e.g. `<@U123>`); default: the id itself. */
  mention?: (userId: string) => string;
}

/**
 * The short notice shown after a tap or reply ("Answer recorded", "This question was already
 * answered by @x", "This question expired at 14:02 UTC", ...). `record` is null when it is gone.
 */
export function noticeFor(record: AskRecord | null, code: NoticeCode, options: NoticeOptions = {}): string {
  if (!record) return 'This question is no longer open';
  const result = record.result;
  switch (code) {
    case 'recorded':
      return result?.status === 'no_answer' && result.reason === 'skipped' ? 'Skip recorded' : 'Answer recorded';
    case 'expired':
      return expiredNotice(record);
    case 'cancelled':
      return 'This question was cancelled';
    case 'forbidden': {
      const users = record.to?.users ?? [];
      if (users.length === 0) return 'This question is not for you';
      const mention = options.mention ?? ((id: string) => id);
      const named = users.slice(0, 5).map(mention);
      const more = users.length > 5 ? ` and ${users.length - 5} more` : '';
      return `This question is for ${named.join(', ')}${more}`;
    }
    case 'not_found':
      return 'This question is no longer open';
    case 'already_resolved':
      break;
  }
  if (!result) return 'This question is no longer open';
  if (result.status === 'answered') {
    return result.answeredBy.channel === 'api'
      ? 'This question was already answered via API'
      : `This question was already answered by ${responderName(result.answeredBy)}`;
  }
  switch (result.reason) {
    case 'timeout':
      return expiredNotice(record);
    case 'skipped':
      if (!result.by) return 'This question was already skipped';
      return result.by.channel === 'api'
        ? 'This question was already skipped via API'
        : `This question was already skipped by ${responderName(result.by)}`;
    case 'cancelled':
      return 'This question was cancelled';
    case 'superseded':
      return 'This question was replaced by a newer one';
    case 'undelivered':
      return 'This question is no longer open';
  }
}

function expiredNotice(record: AskRecord): string {
  const time = utcTime(record.expiresAt);
  return time ? `This question expired at ${time}` : 'This question expired';
}

/** "HH:MM UTC" of an ISO 8601 timestamp, or null when it does not parse. */
export function utcTime(iso: string): string | null {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : `${new Date(ms).toISOString().slice(11, 16)} UTC`;
}
