import type { AskRecord, Question } from './schemas.js';
import { encodeToken, type ButtonChoice } from './token.js';
import { shorten } from './text.js';
import { displayHeader } from './display-text.js';
import { ENGLISH, translate, wordsOf, type Words } from './i18n/index.js';
import { tallyLines } from './policy-view.js';
import {
  isChoice,
  kindOf,
  type ChoiceView,
  type KindButton,
  type TypedQuestion,
  type TypedViewPart,
} from './questions/index.js';
import {
  ALL_CAPABILITIES,
  buttonsFitInRows,
  drawsKind,
  formFits,
  type ButtonCapability,
  type ChannelCapabilities,
} from './capabilities.js';
import { approvalPrompt, type ApprovalQuestionView } from './approval/approval-prompt.js';
import type { ApprovalView } from './approval/approval-view.js';
import { deadlineView, type DeadlineView } from './deadline-view.js';

export type { DeadlineView } from './deadline-view.js';

export type { OptionView } from './questions/index.js';

/** What every question's view has, whatever its kind: a renderer without a case for a kind shows this and takes a text reply. */
export interface QuestionViewBase {
  /** 1-based position. */
  number: number;
  id: string;
  /** Header shortened to at most 12 characters for display, when the question has one. */
  header?: string;
  question: string;
}

/**
 * One question as shown in a message body: a union by `kind` (a choice's view leaves `kind` out as
 * its question does). Renderers switch on it through {@link choiceView} and {@link typedView}; a
 * kind without a case falls back to {@link QuestionViewBase} as text (the prompt's instructions say
 * what a typed question expects).
 */
export type QuestionView = ChoiceQuestionView | TypedQuestionView | ApprovalQuestionView;

/** The view of a choice question (`kind` left out, as on the question). */
export type ChoiceQuestionView = QuestionViewBase & ChoiceView & { kind?: 'choice' };

/** The view of a typed question: its kind and constraints as declared, what is expected, the ask's time zone. */
export type TypedQuestionView = QuestionViewBase & TypedQuestion & TypedViewPart;

/** The view of a choice question, or null for another kind (which a renderer without its case shows as text). */
export function choiceView(view: QuestionView): ChoiceQuestionView | null {
  return isChoice(view) ? (view as ChoiceQuestionView) : null;
}

/** The view of a typed question, or null for a choice (or an approval). */
export function typedView(view: QuestionView): TypedQuestionView | null {
  return isChoice(view) || view.kind === 'approval' ? null : (view as TypedQuestionView);
}

/** A native button: `token` is the opaque callback data (see core/token.ts). */
export interface ButtonView {
  kind: 'option' | 'other' | 'skip' | 'decision';
  label: string;
  token: string;
}

/**
 * The controls of a prompt answered with a form, for every shape but a single single-choice question
 * (which has {@link PromptView.buttons}): an Answer button that opens the platform's form (or starts a
 * draft on the message), and Skip. Left out when the form does not fit the channel ({@link buildPromptView}).
 */
export interface FormView {
  /** Token of the Answer button (kind `form`). */
  open: string;
  /** Token of the Skip button; null when the ask cannot be skipped (several matching answers needed). */
  skip: string | null;
  /** The line telling the human how to answer, with the form or by reply. */
  instructions: string;
}

/** Channel-neutral view of a prompt; each channel's render.ts turns it into a message. */
export interface PromptView {
  askId: string;
  version: number;
  /** The shipped locale its words are in (`en`, `pt-BR`, ...): a channel's own words follow it (core/i18n). */
  locale: string;
  questions: QuestionView[];
  /** Buttons for a single single-choice question or an approval's decisions; null means plain text. */
  buttons: ButtonView[] | null;
  /** An approval: what a person decides on (its text is also the prompt's one question). */
  approval?: ApprovalView;
  /** One line telling the human how to answer (by text reply, when there are no buttons). */
  instructions: string;
  /** The form controls of a prompt without buttons, present only when its form fits the channel's capabilities (else the text form). */
  form?: FormView;
  /**
   * Lines under the question while it is open, for an ask that needs several matching answers:
   * the tally ("Approve 1 · Reject 1 — 2 matching answers needed") and who answered. Plain text,
   * built from option labels and names only (never free text); each channel escapes it.
   */
  tally?: string[];
  /**
   * When the ask expires (core/deadline-view.ts), for a line under the prompt: absent when the
   * source has no `expiresAt`. Built once here so every channel shows the same time; a channel that
   * can show times in each reader's zone uses `unix`/`expiresAt`, the others `line` (the ask's zone).
   */
  deadline?: DeadlineView;
  /**
   * The answer page's URL for this message's recipient (src/links/): set by the shell, which signs
   * it, when `ASKGATE_PUBLIC_URL` is set and the channel shows links; never by core. A renderer
   * shows it as an "Open" link button when it shortened the prompt to fit, or when
   * {@link drawsNoForm} (the prompt is answered by text reply only).
   */
  link?: string;
}

/** True when a prompt has neither buttons nor a form here: a link to the answer page is its only form. */
export function drawsNoForm(view: Pick<PromptView, 'buttons' | 'form'>): boolean {
  return view.buttons === null && view.form === undefined;
}

/** Instructions under a prompt with buttons (English; every locale's in core/i18n). */
export const BUTTON_INSTRUCTIONS = translate('en', 'prompt.buttons');
/** Instructions under a prompt answered with a form (the text reply rules follow them). */
export const FORM_INSTRUCTIONS = translate('en', 'prompt.form');

/** What {@link buildPromptView} reads: the questions, the policy fields of an ask that needs several answers, its locale. */
export type PromptSource = Pick<AskRecord, 'id' | 'version' | 'questions'> &
  Partial<Pick<AskRecord, 'policy' | 'responses' | 'deliveries' | 'locale' | 'timeZone' | 'approval' | 'expiresAt'>>;

/**
 * Builds the view of a pending ask, in `words` (default: the ask's own locale, else English), for a
 * channel with `capabilities` (default: every control): it picks the controls centrally, so renderers
 * only draw. A single question of a kind with buttons gets them when the channel has buttons; any
 * other prompt gets `form` only when its form fits the channel (core/capabilities.ts), else the text
 * form. An ask that needs several matching answers (`policy.agree` > 1) gets its tally lines and no
 * Skip (a skip cannot agree); its instructions say so. A source with `expiresAt` gets its
 * `deadline`, in the zone of `words` (the ask's, else UTC).
 */
export function buildPromptView(
  record: PromptSource,
  words: Words = wordsOf(record),
  capabilities: ChannelCapabilities = ALL_CAPABILITIES,
): PromptView {
  const t = words.t;
  const agree = record.policy?.agree ?? 1;
  const tally = tallyLines({ deliveries: [], ...record }, words);
  const deadline = record.expiresAt !== undefined ? deadlineView(record.expiresAt, words) : undefined;
  const extra = { ...(tally.length > 0 ? { tally } : {}), ...(deadline ? { deadline } : {}) };
  if (record.approval) {
    const { approval, question, buttons, instructions } = approvalPrompt(
      { id: record.id, version: record.version, approval: record.approval },
      words,
      capabilities,
      agree,
    );
    const head = { askId: record.id, version: record.version, locale: words.locale };
    return { ...head, questions: [question], buttons, instructions, approval, ...extra };
  }
  const questions = record.questions.map(
    (q, i) =>
      kindOf(q).view(
        q,
        {
          number: i + 1,
          id: q.id,
          ...(q.header !== undefined ? { header: displayHeader(q.header) } : {}),
          question: q.question,
        },
        words,
      ) as QuestionView,
  );
  const only = record.questions.length === 1 ? record.questions[0]! : null;
  const native = only && capabilities.buttons && drawsKind(capabilities, only.kind);
  const kindButtons = native ? kindOf(only).buttons(only) : null;
  const buttons = kindButtons && singleButtons(record, kindButtons, agree, words, capabilities.buttons!);
  if (buttons) {
    const instructions = agree > 1 ? t('prompt.buttonsAgree', { count: agree }) : t('prompt.buttons');
    const head = { askId: record.id, version: record.version, locale: words.locale };
    return { ...head, questions, buttons, instructions, ...extra };
  }
  const typed = !record.questions.some(isChoice);
  const instructions = [
    agree > 1
      ? t(typed ? 'prompt.typedAgree' : 'prompt.textAgree', { count: agree })
      : t(typed ? 'prompt.typed' : 'prompt.text'),
    ...promptNotes(record.questions, words),
    ...(record.questions.length > 1 ? [t('prompt.several')] : []),
  ].join(' ');
  const token = (choice: ButtonChoice) => encodeToken({ askId: record.id, version: record.version, choice });
  const skip = agree > 1 ? null : token({ kind: 'skip' });
  const head = { askId: record.id, version: record.version, locale: words.locale };
  if (!formFits({ askId: record.id, version: record.version, questions, skip, words }, capabilities))
    return { ...head, questions, buttons: null, instructions, ...extra };
  const tapHint = t(typed ? 'prompt.formTyped' : 'prompt.form');
  const form: FormView = { open: token({ kind: 'form' }), skip, instructions: `${tapHint} ${instructions}` };
  return { ...head, questions, buttons: null, instructions, form, ...extra };
}

/**
 * The buttons of a prompt whose only question has them (its kind's, then Other and Skip), or null
 * when they do not fit the channel (labels that read the same once cut, too many, tokens too long:
 * rows as full as the channel allows), which then gets the form or the text form.
 */
function singleButtons(
  record: PromptSource,
  kindButtons: readonly KindButton[],
  agree: number,
  words: Words,
  limits: ButtonCapability,
): ButtonView[] | null {
  const token = (choice: ButtonChoice) => encodeToken({ askId: record.id, version: record.version, choice });
  const buttons: ButtonView[] = [
    ...kindButtons.map((b): ButtonView => ({ kind: 'option', label: b.label, token: token(b.choice) })),
    { kind: 'other', label: words.t('control.other'), token: token({ kind: 'other' }) },
    ...(agree > 1 ? [] : [{ kind: 'skip', label: words.t('control.skip'), token: token({ kind: 'skip' }) } as const]),
  ];
  return buttonsFitInRows(buttons, limits) ? buttons : null;
}

/**
 * The notes the questions' kinds add to a prompt's instructions, each once: a typed question's is
 * what it expects, numbered when the prompt has several questions.
 */
function promptNotes(questions: readonly Question[], words: Words): string[] {
  const notes: string[] = [];
  questions.forEach((q, i) => {
    for (const note of kindOf(q).promptNotes(q, words)) {
      const line = questions.length > 1 && !isChoice(q) ? words.t('form.problem', { n: i + 1, message: note }) : note;
      if (!notes.includes(line)) notes.push(line);
    }
  });
  return notes;
}

/** The follow-up prompt asking for the questions still unanswered after a partial reply, in `words` (default English). */
export function partialPrompt(
  questions: readonly Question[],
  missing: readonly string[],
  words: Words = ENGLISH,
): string {
  const t = words.t;
  const open = questions.flatMap((q, i) => (missing.includes(q.id) ? [`${i + 1}. ${shorten(q.question, 100)}`] : []));
  if (open.length === 0) return t('partial.done');
  const first = questions.findIndex((q) => missing.includes(q.id)) + 1;
  const how = t('partial.how', { first });
  // Several open questions go on their own lines so question texts without "?" stay apart.
  return open.length === 1
    ? t('partial.one', { question: open[0]!, how })
    : [t('partial.many'), ...open, how].join('\n');
}

/** How free text is shown in summaries (English; `prompt.ownWords` in core/i18n): never echoed (it may hold secrets or mentions). */
export const OWN_WORDS = translate('en', 'prompt.ownWords');

/** "HH:MM UTC" of an ISO 8601 timestamp, or null when it does not parse (see {@link Words.time} for other locales and zones). */
export function utcTime(iso: string): string | null {
  return ENGLISH.time(iso);
}
