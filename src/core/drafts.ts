import type { FormAnswer, FormProblem } from './forms.js';
import type { Responder } from './schemas.js';
import type { Draft, DraftPart } from './form-draft-store.js';
import type { ButtonChoice } from './token.js';
import type { RejectReason } from './questions/index.js';
import { responderName } from './display-text.js';
import { ENGLISH, type Words } from './i18n/index.js';

/**
 * How long the person who started a draft holds it in a group, counted from their last tap: others
 * tapping meanwhile are told who is answering (they may still answer by reply).
 */
export const DRAFT_HOLD_MS = 120_000;

/** What the draft logic needs of each question: its kind (absent: a choice), whether it is multi-select, and its options (none: a typed question). */
export interface DraftQuestion {
  kind?: string;
  multiSelect?: boolean;
  options?: readonly unknown[];
}

/** Whether a question is typed (a number, a date, …: answered by a reply to its step's prompt), not a choice. */
export function isTypedStep(question: DraftQuestion | undefined): boolean {
  return !!question && question.kind !== undefined && question.kind !== 'choice';
}

/** One tap on a draft's keyboard (its choice already decoded and checked against the ask). */
export interface DraftTap {
  askId: string;
  version: number;
  choice: ButtonChoice;
  user: Responder;
  now: number;
  expiresAt: number;
}

/**
 * What a tap or a reply does: the new draft and what follows (`render` the keyboard, `ask_own` words
 * or a typed value with a prompt for `draft.awaitingOwn`, `submit` the draft); `held` when another
 * person holds it; `invalid` for a control the questions do not have; `rejected` for a reply a typed
 * step cannot take (the draft is unchanged: `message` says what was expected).
 */
export type DraftStep =
  | { kind: 'draft'; draft: Draft; then: 'render' | 'ask_own' | 'submit' }
  | { kind: 'held'; by: Responder }
  | { kind: 'invalid' }
  | { kind: 'rejected'; question: number; message: string; reason?: RejectReason };

/** The toast a person gets when someone else holds the draft, in `words` (the person's; default English). */
export function heldNotice(by: Responder, words: Words = ENGLISH): string {
  return words.t('form.answering', { name: responderName(by) });
}

/** A fresh draft for `questions`, held by `user`, showing the first question. */
export function newDraft(questions: readonly DraftQuestion[], tap: Omit<DraftTap, 'choice'>): Draft {
  return {
    askId: tap.askId,
    version: tap.version,
    holder: tap.user,
    heldAt: tap.now,
    step: 0,
    parts: questions.map(() => ({ choices: [] })),
    expiresAt: tap.expiresAt,
  };
}

/**
 * Who holds the draft against `user` now: null when `user` may change it (the holder, or anyone
 * once the hold lapsed: the visible state is kept), else the holder.
 */
export function holdBy(draft: Draft, user: Responder, now: number): Responder | null {
  if (draft.holder.userId === user.userId || now - draft.heldAt >= DRAFT_HOLD_MS) return null;
  return draft.holder;
}

/**
 * The draft as `user` holds it from `now` (its parts copied). A person taking over another's draft
 * (the hold lapsed) keeps its choices, which the keyboard shows, but not its typed values: those are
 * never shown (✓ only), so they would submit words they cannot see under their own name, and each
 * was read in the language of the person who typed it.
 */
function takenBy(questions: readonly DraftQuestion[], draft: Draft, user: Responder, now: number): Draft {
  const other = draft.holder.userId !== user.userId || draft.holder.channel !== user.channel;
  const parts = draft.parts.map((p, i) => (other && isTypedStep(questions[i]) ? { choices: [] } : { ...p }));
  return { ...draft, holder: user, heldAt: now, parts };
}

/** The draft as it stands for `tap`: the stored one (if it is this ask version's) or a fresh one. */
function current(questions: readonly DraftQuestion[], stored: Draft | null, tap: DraftTap): Draft {
  if (!stored || stored.version !== tap.version || stored.parts.length !== questions.length)
    return newDraft(questions, tap);
  return stored;
}

/**
 * The draft shown at `step`. Reaching a typed step that has no answer yet asks for it with a
 * prompt (`ask_own`), unless its prompt is the one already out (`awaitingOwn`): coming back to it
 * sends no second prompt, and its button asks again.
 */
export function arrive(questions: readonly DraftQuestion[], draft: Draft, step: number): DraftStep {
  const at: Draft = { ...draft, step };
  if (isTypedStep(questions[step]) && !answered(draft.parts[step]) && draft.awaitingOwn !== step)
    return { kind: 'draft', draft: { ...at, awaitingOwn: step }, then: 'ask_own' };
  return { kind: 'draft', draft: at, then: 'render' };
}

/**
 * Applies one tap to a draft (pure). A single-choice pick moves to the next question, or submits on
 * the last; a toggle flips one option and stays; a step goes to another question (a typed one
 * unanswered asks for its value, see {@link arrive}); `own` asks for own words, or a typed step's
 * value; `submit` submits. The tapping person takes (or keeps) the hold.
 */
export function applyTap(questions: readonly DraftQuestion[], stored: Draft | null, tap: DraftTap): DraftStep {
  const base = current(questions, stored, tap);
  const held = holdBy(base, tap.user, tap.now);
  if (held) return { kind: 'held', by: held };
  const draft = takenBy(questions, base, tap.user, tap.now);
  const c = tap.choice;
  const last = questions.length - 1;
  switch (c.kind) {
    case 'form':
      return arrive(questions, draft, Math.min(draft.step, last));
    case 'submit':
      return { kind: 'draft', draft, then: 'submit' };
    case 'step':
      if (c.question > last) return { kind: 'invalid' };
      return arrive(questions, draft, c.question);
    case 'own':
      if (c.question > last) return { kind: 'invalid' };
      return { kind: 'draft', draft: { ...draft, step: c.question, awaitingOwn: c.question }, then: 'ask_own' };
    case 'pick': {
      const q = questions[c.question];
      if (!q || q.multiSelect || c.index >= (q.options?.length ?? 0)) return { kind: 'invalid' };
      draft.parts[c.question] = { choices: [c.index] };
      if (c.question === last) return { kind: 'draft', draft: { ...draft, step: last }, then: 'submit' };
      return arrive(questions, draft, c.question + 1);
    }
    case 'toggle': {
      const q = questions[c.question];
      if (!q || !q.multiSelect || c.index >= (q.options?.length ?? 0)) return { kind: 'invalid' };
      const part = draft.parts[c.question]!;
      const chosen = part.choices.includes(c.index)
        ? part.choices.filter((i) => i !== c.index)
        : [...part.choices, c.index].sort((a, b) => a - b);
      draft.parts[c.question] = { ...part, choices: chosen };
      return { kind: 'draft', draft: { ...draft, step: c.question }, then: 'render' };
    }
    default:
      return { kind: 'invalid' };
  }
}

/**
 * Applies own words (the reply to the force-reply prompt) to the question that asked for them:
 * they replace a single-choice pick (or are a typed step's value, read beforehand: see
 * drafts-typed.ts), or join a multi-select's toggles; then the next question follows (see
 * {@link arrive}), or the draft is submitted after the last.
 */
export function applyOwnWords(
  questions: readonly DraftQuestion[],
  stored: Draft,
  own: { text: string; user: Responder; now: number },
): DraftStep {
  const q = stored.awaitingOwn;
  if (q === undefined || !questions[q] || stored.parts.length !== questions.length) return { kind: 'invalid' };
  const held = holdBy(stored, own.user, own.now);
  if (held) return { kind: 'held', by: held };
  const { awaitingOwn: _asked, ...rest } = takenBy(questions, stored, own.user, own.now);
  const parts = rest.parts;
  parts[q] = questions[q]!.multiSelect ? { ...parts[q]!, own: own.text } : { choices: [], own: own.text };
  const draft: Draft = { ...rest, parts };
  const last = questions.length - 1;
  if (q === last) return { kind: 'draft', draft: { ...draft, step: last }, then: 'submit' };
  return arrive(questions, draft, q + 1);
}

/** The draft as a submitted form: one entry per question, in order (for `InboundSink.submitForm`). */
export function formAnswers(draft: Draft): FormAnswer[] {
  return draft.parts.map((p) => ({ choices: [...p.choices], ...(p.own !== undefined ? { own: p.own } : {}) }));
}

/** After a refused submission: the draft shows the first question with a problem (its step, without problems). */
export function showProblem(draft: Draft, problems: readonly FormProblem[]): Draft {
  const asked = problems.map((p) => p.question).filter((q) => Number.isInteger(q) && q >= 0 && q < draft.parts.length);
  return asked.length > 0 ? { ...draft, step: Math.min(...asked) } : draft;
}

/** Whether a question of the draft has an answer yet (an option or own words). */
function answered(part: DraftPart | undefined): boolean {
  return !!part && (part.choices.length > 0 || (part.own !== undefined && part.own.trim() !== ''));
}

/** A button of a draft keyboard: its label and what it does. */
export interface DraftButton {
  label: string;
  choice: ButtonChoice;
}

/** What {@link draftKeyboard} shows of each question. */
export interface DraftKeyboardQuestion extends DraftQuestion {
  header?: string;
  options?: readonly { label: string }[];
}

/** The marks of a draft keyboard (its words are the ask's: core/i18n `control.*`). */
export const DRAFT_MARKS = { on: '☑', off: '☐', picked: '✓', back: '«', next: '»', typed: '✎' } as const;

/**
 * The keyboard of the draft's current step (pure; the channel encodes each choice as a token):
 * "Question q of n" (several questions), one option per row (☐/☑ toggles, or ✓ on the picked
 * one), Other… and Skip (a typed question: ✎ Answer, which asks for its value, and Skip), then
 * Back, Next (a multi-select or answered question) or Submit (the last question, when multi-select
 * or answered), in `words`. `draft` null: the first step, untouched. A typed value is never shown on
 * the keyboard (✓ says it was given): it may be free text, and the keyboard is the group's.
 */
export function draftKeyboard(
  questions: readonly DraftKeyboardQuestion[],
  draft: Pick<Draft, 'step' | 'parts'> | null,
  canSkip: boolean,
  words: Words = ENGLISH,
): DraftButton[][] {
  const t = words.t;
  const step = Math.min(draft?.step ?? 0, questions.length - 1);
  const q = questions[step]!;
  const part = draft?.parts[step];
  const rows: DraftButton[][] = [];
  const button = (label: string, choice: ButtonChoice): DraftButton => ({ label, choice });
  if (questions.length > 1) {
    const progress = t('control.progress', { n: step + 1, total: questions.length });
    rows.push([button(`${progress}${q.header ? ` · ${q.header}` : ''}`, { kind: 'step', question: step })]);
  }
  (q.options ?? []).forEach((o, index) => {
    const on = !!part?.choices.includes(index);
    rows.push([
      q.multiSelect
        ? button(`${on ? DRAFT_MARKS.on : DRAFT_MARKS.off} ${o.label}`, { kind: 'toggle', question: step, index })
        : button(on ? `${DRAFT_MARKS.picked} ${o.label}` : o.label, { kind: 'pick', question: step, index }),
    ]);
  });
  const given = part?.own !== undefined && part.own !== '';
  const own = isTypedStep(q) ? `${DRAFT_MARKS.typed} ${t('control.answer')}` : t('control.other');
  rows.push([
    button(`${own}${given ? ` ${DRAFT_MARKS.picked}` : ''}`, { kind: 'own', question: step }),
    ...(canSkip ? [button(t('control.skip'), { kind: 'skip' })] : []),
  ]);
  const nav: DraftButton[] = [];
  if (step > 0) nav.push(button(`${DRAFT_MARKS.back} ${t('control.back')}`, { kind: 'step', question: step - 1 }));
  const onward = q.multiSelect || answered(part);
  if (onward && step < questions.length - 1)
    nav.push(button(`${t('control.next')} ${DRAFT_MARKS.next}`, { kind: 'step', question: step + 1 }));
  if (onward && step === questions.length - 1) nav.push(button(t('control.submit'), { kind: 'submit' }));
  if (nav.length > 0) rows.push(nav);
  return rows;
}
