import { applyTap, formAnswers, heldNotice, holdBy, newDraft, showProblem } from '../core/drafts.js';
import type { DraftStep } from '../core/drafts.js';
import { applyStepReply } from '../core/drafts-typed.js';
import { personContext } from '../core/questions/index.js';
import type { Draft } from '../core/form-draft-store.js';
import { outcomeNotice } from '../core/notices.js';
import type {
  ButtonPressed,
  Clock,
  DraftKey,
  FormDraftStore,
  FormInput,
  FormOpening,
  FormReply,
  FormSessions,
  FormSubmitted,
  InboundOutcome,
  StoredDraft,
} from '../core/ports.js';
import type { AskRecord } from '../core/schemas.js';
import { decodeToken, encodeToken, type ButtonChoice } from '../core/token.js';
import type { Words } from '../core/i18n/index.js';

/** Reads and compare-and-set writes one input may try before it gives up (taps racing on one draft). */
const CAS_TRIES = 8;

/** A form tap checked against its ask: the prompt as it stands, the ask as read and the person's words. */
export type OpenedForm = Extract<FormOpening, { kind: 'form' }> & { record: AskRecord; words: Words };

/** What answering a form needs of the read that checked it: the ask, the control and the person's words. */
export type FormRead = Pick<OpenedForm, 'record' | 'choice' | 'words'>;

/** A form answered: what to tell the person, and whether the ask ended with it. */
export type FormAnswered = { outcome: InboundOutcome; ended: boolean };

/** What the session needs of the inbound handler: the one record read of an input, and a commit from it. */
export interface FormAnswering {
  /** Checks a form tap against its ask (one record read), or the notice to show instead. */
  opened(event: ButtonPressed): Promise<OpenedForm | InboundOutcome>;
  /** Answers the form from the ask as `opened` read it (no second read). */
  answerForm(opened: FormRead, event: FormSubmitted): Promise<FormAnswered>;
  /** Notes a typed value refused in the ask's history (`reply_rejected`: the question id and why, never the text). */
  rejected(askId: string, user: ButtonPressed['user'], question: string, reason: string): Promise<void>;
}

/** What a form session is built over. */
export interface FormSessionDeps {
  drafts: FormDraftStore;
  clock: Clock;
  answering: FormAnswering;
}

type Changed = DraftStep | { kind: 'closed' };

/**
 * The form session of a prompt answered on its message, for a channel without modals: a draft per
 * message (its holder, step, choices and own words), every input applied to it by compare-and-set
 * (core/drafts.ts decides), and a complete draft answered once, exactly like a typed answer.
 */
export class FormSession implements FormSessions {
  constructor(private readonly deps: FormSessionDeps) {}

  /** Applies one input (see {@link FormSessions.step}). */
  step(input: FormInput): Promise<FormReply | null> {
    switch (input.kind) {
      case 'tap':
        return this.tap(input);
      case 'skip':
        return this.skipHeld(input);
      case 'words':
        return this.ownWords(input);
    }
  }

  /** The draft a message shows now. */
  shown(key: DraftKey): Promise<StoredDraft | null> {
    return this.deps.drafts.get(key);
  }

  /** Marks a message's draft finalized. */
  close(key: DraftKey): Promise<void> {
    return this.deps.drafts.close(key);
  }

  private async tap(input: Extract<FormInput, { kind: 'tap' }>): Promise<FormReply> {
    const { event } = input;
    const opened = await this.deps.answering.opened(event);
    if (opened.kind !== 'form') return told(opened);
    const { view, words } = opened;
    const invalid = { notice: words.t('notice.invalidButton'), ...localeOf(opened) };
    // A draft lives on the ask's own controls: data claiming a message without them (a reminder, a
    // prompt: forged) would draw a form there.
    if (!input.onAsksMessage) return invalid;
    const now = this.deps.clock.now();
    const expiresAt = Date.parse(opened.expiresAt ?? '') || now;
    const key: DraftKey = { askId: view.askId, chat: event.chat, messageId: input.messageId };
    const tap = { askId: view.askId, version: view.version, choice: opened.choice, user: event.user, now, expiresAt };
    const step = await this.change(key, (draft) => applyTap(view.questions, draft, tap));
    switch (step.kind) {
      case 'closed':
        return { notice: '' };
      case 'held':
        return { notice: heldNotice(step.by, words), ...localeOf(opened) };
      case 'invalid':
      case 'rejected': // a tap is never a reply
        return invalid;
    }
    if (step.then === 'submit') return this.submit(opened, key, step.draft, event);
    return this.drawn(opened, key, step.draft, step.then);
  }

  /** Draws the draft's step; `ask_own`: after the prompt asking for the step's own words or typed value. */
  private drawn(opened: OpenedForm, key: DraftKey, draft: Draft, then: 'render' | 'ask_own'): FormReply {
    const draw = { key, view: opened.view };
    if (then === 'render') return { notice: '', draw };
    return { notice: '', ...localeOf(opened), draw, askOwn: this.askOwn(key, draft, draft.awaitingOwn ?? 0) };
  }

  /** Asks for a step's words: the channel sends the prompt, whose id then points at the draft. */
  private askOwn(key: DraftKey, draft: Draft, question: number): NonNullable<FormReply['askOwn']> {
    const sent = (promptId: string) => this.deps.drafts.pointOwn(key.chat, promptId, key, draft.expiresAt);
    return { question, sent };
  }

  /** A Skip on a message whose draft someone else holds is held back ("@alice is answering"): Skip ends the ask for everyone. */
  private async skipHeld({ event, messageId }: Extract<FormInput, { kind: 'skip' }>): Promise<FormReply | null> {
    const askId = decodeToken(event.token)?.askId;
    if (!askId) return null;
    const stored = await this.deps.drafts.get({ askId, chat: event.chat, messageId });
    const by = stored?.draft && !stored.closed ? holdBy(stored.draft, event.user, this.deps.clock.now()) : null;
    if (!by) return null;
    // Only a held Skip reads the ask, for its language; an ask that ended takes the Skip's own path.
    const opened = await this.deps.answering.opened(event);
    return opened.kind === 'form' ? { notice: heldNotice(by, opened.words), ...localeOf(opened) } : null;
  }

  /**
   * A reply to an own-words prompt: the words go into the draft, a typed step's value once its kind
   * reads it in the person's language (else the step stays open: the person is told what was
   * expected, with a new prompt). Null when the message replies to no such prompt (it is then an
   * ordinary reply).
   */
  private async ownWords({ event }: Extract<FormInput, { kind: 'words' }>): Promise<FormReply | null> {
    const key = await this.deps.drafts.ownOf(event.chat, event.replyTo);
    if (!key) return null;
    // A reply to one of our prompts is never an answer to the whole ask: without a draft waiting for
    // it (applied already by an attempt that died before settling, or the ask ended) it is told or dropped.
    const stored = await this.deps.drafts.get(key);
    const draft = stored?.draft;
    if (!draft) return { notice: '' };
    const choice: ButtonChoice = { kind: 'own', question: draft.awaitingOwn ?? 0 };
    const token = encodeToken({ askId: draft.askId, version: draft.version, choice });
    const { channel, user, chat, locale } = event;
    const tap = { channel, token, user, chat, ...(locale ? { locale } : {}) };
    const opened = await this.deps.answering.opened(tap);
    if (opened.kind !== 'form') return told(opened);
    if (stored.closed || draft.awaitingOwn === undefined) return { notice: '' };
    const { record, view, words } = opened;
    const now = this.deps.clock.now();
    const reply = { text: event.text, user, now };
    // Read as the submitted draft will be (app/inbound.ts answerForm): the person's language, then the ask's.
    const reading = { words, parse: personContext(locale, record, view.locale, now) };
    const step = await this.change(key, (d) =>
      d ? applyStepReply(record.questions, d, reply, reading) : { kind: 'invalid' },
    );
    switch (step.kind) {
      case 'closed':
      case 'invalid':
        return { notice: '' };
      case 'held':
        return { notice: heldNotice(step.by, words), ...localeOf(opened) };
      case 'rejected':
        if (step.reason)
          await this.deps.answering.rejected(record.id, user, record.questions[step.question]!.id, step.reason);
        return { notice: step.message, ...localeOf(opened), askOwn: this.askOwn(key, draft, step.question) };
    }
    if (step.then !== 'submit') return this.drawn(opened, key, step.draft, step.then);
    const submitted = await this.submit(opened, key, step.draft, tap);
    // A recorded answer shows in the question message (finalize edits it), as for a typed answer.
    return submitted.recorded ? { ...submitted, notice: '' } : submitted;
  }

  /** Answers a complete draft with the ask as the input read it: one commit, no second read. */
  private async submit(
    opened: OpenedForm,
    key: DraftKey,
    draft: Draft,
    by: Pick<ButtonPressed, 'channel' | 'user' | 'locale'>,
  ): Promise<FormReply> {
    const { view } = opened;
    const token = encodeToken({ askId: view.askId, version: view.version, choice: { kind: 'submit' } });
    const form: FormSubmitted = {
      channel: by.channel,
      token,
      user: by.user,
      chat: key.chat,
      answers: formAnswers(draft),
      ...(by.locale ? { locale: by.locale } : {}),
    };
    const { outcome, ended } = await this.deps.answering.answerForm({ ...opened, choice: { kind: 'submit' } }, form);
    const reply = told(outcome);
    if (outcome.kind === 'recorded') {
      // An ask that needs several matching answers goes on: the next person starts afresh, with no
      // one holding it. An ask that ended keeps its draft as submitted (finalize closes it).
      if (!ended) {
        const { askId, version, expiresAt } = draft;
        const fresh = newDraft(view.questions, { askId, version, expiresAt, user: by.user, now: 0 });
        await this.change(key, () => ({ kind: 'draft', draft: fresh, then: 'render' })).catch(() => undefined);
      }
      return { ...reply, recorded: true };
    }
    if (outcome.kind !== 'invalid') return reply;
    const problems = outcome.problems ?? [];
    await this.change(key, (d) =>
      d ? { kind: 'draft', draft: showProblem(d, problems), then: 'render' } : { kind: 'invalid' },
    );
    return { ...reply, draw: { key, view: opened.view } };
  }

  /** Reads, changes and writes a draft by compare-and-set, again while other inputs get there first. */
  private async change(key: DraftKey, apply: (draft: Draft | null) => DraftStep): Promise<Changed> {
    for (let i = 0; i < CAS_TRIES; i++) {
      const stored = await this.deps.drafts.get(key);
      if (stored?.closed) return { kind: 'closed' };
      const step = apply(stored?.draft ?? null);
      if (step.kind !== 'draft') return step;
      const written = await this.deps.drafts.put(key, stored?.rev ?? 0, step.draft);
      if (written === 'closed') return { kind: 'closed' };
      if (written !== 'conflict') return step;
    }
    throw new Error('draft changed by too many taps at once');
  }
}

/** The reply that only tells an outcome. */
function told(outcome: InboundOutcome): FormReply {
  return { notice: outcomeNotice(outcome) ?? '', ...localeOf(outcome) };
}

function localeOf(said: { locale?: string }): { locale?: string } {
  return said.locale ? { locale: said.locale } : {};
}
