import type { AskEvent } from '../core/lifecycle.js';
import { isTerminal, mayAnswer } from '../core/lifecycle.js';
import type {
  AskIndexes,
  AskStore,
  ButtonPressed,
  Clock,
  DecisionSubmitted,
  DeliveryStatusEvent,
  FormDraftStore,
  FormOpening,
  FormSubmitted,
  InboundOutcome,
  InboundSink,
  SeenEvents,
  TextReceived,
} from '../core/ports.js';
import { buildPromptView } from '../core/prompt-view.js';
import type { ChannelCapabilities } from '../core/capabilities.js';
import { noticeFor, type NoticeOptions } from '../core/outcome-view.js';
import { chooseLocale, wordsFor, wordsOf, type ChannelNames, type Words } from '../core/i18n/index.js';
import { spoken } from '../core/notices.js';
import { parseReply } from '../core/reply-parser.js';
import type { AskRecord, Responder } from '../core/schemas.js';
import { decodeToken, type ButtonChoice } from '../core/token.js';
import { controlFits, formHint, readForm } from '../core/forms.js';
import { kindOf, personContext, type ParseContext } from '../core/questions/index.js';
import { FormSession, type FormAnswered, type FormAnswering, type FormRead, type OpenedForm } from './form-session.js';
import { partialOf } from '../core/agreement.js';
import { agreeOf } from '../core/policy.js';
import type { Gateway } from './gateway.js';
import { judgeAsk } from './kept-copy.js';
import { refusalEntry, resolvedOutcome, toldAfter } from './inbound-told.js';
import { approvalReply, approvalTap, isEvent } from './inbound-approval.js';
import { bindFollowUp, findAsk } from './inbound-find.js';
import { recordDeliveryStatus } from './inbound-status.js';
import { submittedDecision } from './inbound-decide.js';

export { countedNotice } from './inbound-told.js';

/** A tap or a form submission: the token it carries, who sent it, from where. */
type TapEvent = { channel: string; token: string; user: Responder; chat?: string; locale?: string };
/** A tap {@link InboundHandler} may take: the ask, what was chosen, the person's words. */
type Found = { kind: 'found'; record: AskRecord; choice: ButtonChoice; words: Words };
/** A tap turned away with what to tell the person (and the ask, when it was found); `refused` is still to be noted. */
type NotTaken = { kind: 'none'; outcome: InboundOutcome; record?: AskRecord };
type Refused = { kind: 'refused'; record: AskRecord; refusal: InboundOutcome };

/** What the inbound handler talks to. */
export interface InboundDeps {
  /** Commits answers and history notes. */
  gateway: Pick<Gateway, 'apply' | 'note'>;
  store: Pick<AskStore, 'get' | 'kept'>;
  indexes: Pick<AskIndexes, 'findByMessage' | 'pendingInConversation' | 'bindMessage'>;
  clock: Clock;
  /** How long terminal records are kept: follow-up bindings live until the deadline plus this. */
  retentionMs: number;
  /** The language of asks without a locale (ASKGATE_DEFAULT_LOCALE); English when absent. */
  defaultLocale?: string;
  /** Forms answered step by step on a message (Telegram's keyboard): one draft per message. */
  drafts: FormDraftStore;
  /** How the chat channels are named in notices (the channel registry's). */
  channelNames?: ChannelNames;
  /** What a channel draws (a form opened there is built for it); absent: every control. */
  capabilitiesOf?: (channel: string) => ChannelCapabilities | undefined;
}

/**
 * Turns normalised taps and text replies into lifecycle events and tells the channel what to
 * say to the human. Button data and text are untrusted: every decoded value is re-checked
 * against the stored record.
 */
export class InboundHandler implements InboundSink, FormAnswering {
  private readonly gateway: InboundDeps['gateway'];
  /** The form sessions of prompts answered on their message. */
  readonly formSessions: FormSession;

  constructor(
    private readonly deps: InboundDeps,
    private readonly notice: NoticeOptions = {},
    /** Platform event ids seen by every replica, for the channels' de-duplication of re-sends. */
    readonly seen?: SeenEvents,
  ) {
    this.gateway = deps.gateway;
    this.formSessions = new FormSession({ drafts: deps.drafts, clock: deps.clock, answering: this });
  }

  /** Handles a button tap: forged or stale data changes nothing. */
  async button(event: ButtonPressed): Promise<InboundOutcome> {
    const found = await this.tapped(event, true);
    if (found.kind !== 'found') return found.outcome;
    const { record, choice, words } = found;
    if (choice.kind === 'decide') {
      const tapped = approvalTap(record, choice, event.user, event.chat, words);
      return isEvent(tapped) ? this.commit(record.id, tapped, words) : tapped;
    }
    const question = record.questions[0]!;
    if (choice.kind === 'other')
      return spoken({ kind: 'need_text', askId: record.id, prompt: words.t('notice.ownWords') }, words);
    const chat = event.chat;
    if (choice.kind === 'skip') return this.commit(record.id, { type: 'skip', by: event.user, chat }, words);
    // An option button answers the only question with what its kind says the button means.
    const values =
      choice.kind === 'option' && record.questions.length === 1
        ? kindOf(question).buttonValues(question, choice)
        : null;
    if (!values) return spoken({ kind: 'not_found', summary: words.t('notice.invalidButton') }, words);
    const ev: AskEvent = { type: 'answer', answers: { [question.id]: values }, by: event.user, chat };
    return this.commit(record.id, ev, words);
  }

  /** Checks a tap that opens a form or works on a draft, and returns the prompt as it stands now. */
  async openForm(event: ButtonPressed): Promise<FormOpening> {
    const opened = await this.opened(event);
    if (opened.kind !== 'form') return opened;
    const { record: _record, words: _words, ...opening } = opened;
    return opening;
  }

  /** {@link openForm} keeping the ask as read and the person's words; not for them but open: the prompt too. */
  async opened(event: ButtonPressed): Promise<OpenedForm | Exclude<FormOpening, { kind: 'form' }>> {
    const [found, caps] = [await this.tapped(event), this.deps.capabilitiesOf?.(event.channel)];
    const theirs = found.kind === 'none' && found.outcome.kind === 'forbidden' && found.record;
    if (theirs) return { ...found.outcome, view: buildPromptView(theirs, this.askWords(theirs), caps) };
    if (found.kind !== 'found') return found.outcome;
    const { record, choice, words } = found;
    if (!controlFits(choice, record.questions))
      return spoken({ kind: 'not_found', summary: words.t('notice.invalidButton') }, words);
    const view = buildPromptView(record, this.askWords(record), caps);
    return { ...spoken({ kind: 'form', view, choice, expiresAt: record.expiresAt }, words), record, words };
  }

  /** Answers every question of an ask from a submitted form; an incomplete form is `invalid` with what to fix. */
  async submitForm(event: FormSubmitted): Promise<InboundOutcome> {
    const found = await this.tapped(event);
    if (found.kind !== 'found') return found.outcome;
    return (await this.answerForm(found, event)).outcome;
  }

  /** A decision from a channel's form (issue 36): checked like a tap, then like the API's (app/inbound-decide.ts). */
  async decide(event: DecisionSubmitted): Promise<InboundOutcome> {
    const found = await this.tapped(event);
    if (found.kind !== 'found') return found.outcome;
    const made = submittedDecision(found.record, found.choice, event, found.words);
    return isEvent(made)
      ? this.commit(found.record.id, made, found.words)
      : this.noted(found.record.id, made, event.user);
  }

  /** Answers a form of the ask as `opened` read it (the commit starts from the store's kept copy); `ended`: the ask ended with it. */
  async answerForm(opened: FormRead, event: FormSubmitted): Promise<FormAnswered> {
    const { record, choice, words } = opened;
    if (!['form', 'other', 'submit'].includes(choice.kind) || !controlFits(choice, record.questions)) {
      return { outcome: spoken({ kind: 'not_found', summary: words.t('notice.invalidButton') }, words), ended: false };
    }
    const reading = readForm(record.questions, event.answers, words, this.parseContext(event.locale, record));
    if (reading.kind === 'invalid') {
      const hint = formHint(reading.problems, record.questions.length, words);
      const outcome = { kind: 'invalid' as const, askId: record.id, hint, problems: reading.problems };
      return { outcome: await this.noted(record.id, spoken(outcome, words), event.user), ended: false };
    }
    const raw = reading.raw ? { raw: reading.raw } : {};
    const answer: AskEvent = { type: 'answer', answers: reading.answers, by: event.user, chat: event.chat, ...raw };
    const applied = await this.gateway.apply(record.id, answer);
    return {
      outcome: toldAfter(record.id, answer, applied, words, this.notice),
      ended: !!applied.record && isTerminal(applied.record),
    };
  }

  /**
   * The ask a tap or form belongs to, when it may take this person's answer: the token must decode,
   * name the ask's current version and come from one of the ask's own conversations.
   *
   * `cached`: an option or skip tap may start from the record as this process last wrote or read
   * it (the store's kept copy), which saves the tap's read. The answer it makes depends only on the
   * ask's questions, which never change, and the commit's compare-and-set rejects a stale copy (the
   * transition then runs again on a fresh read, its own checks included); a stale copy never
   * refuses: a tap it would turn away is checked again on a fresh read ({@link judgeAsk}). Other
   * taps show the prompt as it stands now, so they read it.
   */
  private async tapped(event: TapEvent, cached = false): Promise<Found | NotTaken> {
    const token = decodeToken(event.token);
    const early = this.personWords(event.locale, null);
    if (!token)
      return { kind: 'none', outcome: spoken({ kind: 'not_found', summary: early.t('notice.invalidButton') }, early) };
    const fromKept = cached && (token.choice.kind === 'option' || token.choice.kind === 'skip');
    const judge = (record: AskRecord | null) => this.judgeTap(event, token, record);
    const verdict = await judgeAsk(this.deps.store, token.askId, judge, (v) => v.kind === 'found', fromKept);
    if (verdict.kind !== 'refused') return verdict;
    const outcome = await this.noted(verdict.record.id, verdict.refusal, event.user);
    return { kind: 'none', outcome, record: verdict.record };
  }

  /** Whether `record` takes the tap: see {@link tapped}; no effects (it may judge a kept copy, then a fresh read). */
  private judgeTap(
    event: TapEvent,
    token: { version: number; choice: ButtonChoice },
    record: AskRecord | null,
  ): Found | NotTaken | Refused {
    // A tap must come from the ask's own chat; one that does not say where it came from (a
    // Telegram inline-mode callback carries no message) cannot be checked, so it is refused.
    // With fan-out and escalation, any conversation the ask was delivered to is its own.
    const here = (c: { channel: string; chat: string }) => c.channel === event.channel && c.chat === event.chat;
    const chatMatches = event.chat !== undefined && !!record?.deliveries.some(here);
    if (!record || record.version !== token.version || !chatMatches) {
      const early = this.personWords(event.locale, null);
      const outcome = { kind: 'not_found' as const, summary: noticeFor(null, 'not_found', {}, early) };
      return { kind: 'none', outcome: spoken(outcome, early) };
    }
    const words = this.personWords(event.locale, record);
    const refusal = this.refusal(record, event.user, event.chat, words);
    if (refusal) return { kind: 'refused', record, refusal };
    return { kind: 'found', record, choice: token.choice, words };
  }

  /** What everyone in the ask's conversations reads: the ask's locale, else the default. */
  private askWords(record: AskRecord): Words {
    return wordsOf(record, this.deps.defaultLocale, this.deps.channelNames);
  }

  /** What one person reads: their language when askgate ships it, else the ask's, else the default, else English. */
  private personWords(locale: string | undefined, record: AskRecord | null): Words {
    return wordsFor(
      chooseLocale(locale, record?.locale, this.deps.defaultLocale),
      record?.timeZone,
      this.deps.channelNames,
    );
  }

  /** Handles a text message that may answer an ask (routing rules in docs/ARCHITECTURE.md). */
  async text(event: TextReceived): Promise<InboundOutcome> {
    const found = await this.findAsk(event);
    if (found.kind !== 'found') return found.outcome;
    const record = found.record;
    const words = this.personWords(event.locale, record);
    const refusal = this.refusal(record, event.user, event.chat, words);
    if (refusal) return this.noted(record.id, refusal, event.user);
    // With agree > 1 each person has their own partial answers.
    const partial = agreeOf(record) > 1 ? (partialOf(record, event.user) ?? {}) : record.partial;
    // Skip words of the ask's language and of the person's are understood, besides English.
    const locales = [this.askWords(record).locale, words.locale];
    if (record.approval) return this.approvalText(record, event, words, locales);
    const parse = this.parseContext(event.locale, record);
    const parsed = parseReply(record.questions, event.text, partial, words, locales, parse);
    const chat = event.chat;
    switch (parsed.kind) {
      case 'empty':
        return { kind: 'ignored' };
      case 'invalid':
        return this.noted(
          record.id,
          spoken({ kind: 'invalid', askId: record.id, hint: parsed.hint }, words),
          event.user,
          parsed.rejected,
        );
      case 'skip':
        return this.commit(record.id, { type: 'skip', by: event.user, chat }, words);
      case 'answers': {
        const raw = parsed.raw ? { raw: parsed.raw } : {};
        const answer: AskEvent = { type: 'answer', answers: parsed.answers, by: event.user, chat, ...raw };
        return this.commit(record.id, answer, words);
      }
    }
  }

  /** A reply to an approval: a decision, a skip, or the hint (noted, never the text). */
  private async approvalText(record: AskRecord, event: TextReceived, words: Words, locales: readonly string[]) {
    const reply = approvalReply(record, event.text, event.user, event.chat, words, locales);
    if (isEvent(reply)) return this.commit(record.id, reply, words);
    if (reply.kind === 'empty') return { kind: 'ignored' as const };
    const outcome = spoken({ kind: 'invalid', askId: record.id, hint: reply.hint }, words);
    return this.noted(record.id, outcome, event.user);
  }

  /** How this person's typed values read (core/questions/parse-context.ts). */
  private parseContext(locale: string | undefined, record: AskRecord): ParseContext {
    return personContext(locale, record, this.deps.defaultLocale, this.deps.clock.now());
  }

  /** Notes a typed value refused in a form session's step (the history's `reply_rejected`, never the text). */
  async rejected(askId: string, user: ButtonPressed['user'], question: string, reason: string): Promise<void> {
    await this.gateway.note(askId, refusalEntry({ kind: 'ignored' }, user, { question, reason }));
  }

  /** Binds a follow-up message to its ask until the ask's deadline plus retention (app/inbound-find.ts). */
  bindFollowUp(channel: string, chat: string, messageId: string, askId: string): Promise<void> {
    return bindFollowUp(this.deps, { channel, chat }, messageId, askId);
  }

  /** Records a status the platform reported for a message askgate sent (app/inbound-status.ts). */
  deliveryStatus(event: DeliveryStatusEvent): Promise<void> {
    return recordDeliveryStatus(this.deps, event);
  }

  /** The ask a text message answers (app/inbound-find.ts), or what to tell the person. */
  private findAsk(event: TextReceived) {
    return findAsk(this.deps, event, this.personWords(event.locale, null));
  }

  /**
   * Records a refusal or a hint in the ask's history (never the reply text) and returns the outcome;
   * a typed value refused is `reply_rejected` with its question and why.
   */
  private async noted(
    askId: string,
    outcome: InboundOutcome,
    user: ButtonPressed['user'],
    rejected?: { question: string; reason: string },
  ): Promise<InboundOutcome> {
    await this.gateway.note(askId, refusalEntry(outcome, user, rejected));
    return outcome;
  }

  /** The notice for a record that cannot take this person's answer, or null when it can. */
  private refusal(record: AskRecord, user: ButtonPressed['user'], chat: string | undefined, words: Words) {
    if (isTerminal(record)) return resolvedOutcome(record, words, this.notice);
    if (!mayAnswer(record, user, chat)) {
      // The notice names the users allowed where this person tried, not those of every target.
      const where = { ...this.notice, channel: user.channel, ...(chat !== undefined ? { chat } : {}) };
      return spoken({ kind: 'forbidden', summary: noticeFor(record, 'forbidden', where, words) }, words);
    }
    return null;
  }

  private async commit(askId: string, event: AskEvent, words: Words): Promise<InboundOutcome> {
    return toldAfter(askId, event, await this.gateway.apply(askId, event), words, this.notice);
  }
}
