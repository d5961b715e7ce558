import type { AskEvent } from '../core/lifecycle.js';
import { isTerminal, mayAnswer } from '../core/lifecycle.js';
import type {
  AskIndexes,
  AskStore,
  ButtonPressed,
  Clock,
  FormOpening,
  FormSubmitted,
  InboundOutcome,
  InboundSink,
  SeenEvents,
  TextReceived,
} from '../core/ports.js';
import { buildPromptView, partialPrompt } from '../core/prompt-view.js';
import { noticeFor, type NoticeOptions } from '../core/outcome-view.js';
import { chooseLocale, ENGLISH, wordsFor, wordsOf, type ChannelNames, type Words } from '../core/i18n/index.js';
import { spoken } from '../core/notices.js';
import { parseReply } from '../core/reply-parser.js';
import type { AskRecord, Responder } from '../core/schemas.js';
import { decodeToken, type ButtonChoice } from '../core/token.js';
import { controlFits, formHint, readForm } from '../core/forms.js';
import { partialOf } from '../core/agreement.js';
import { agreeOf } from '../core/policy.js';
import type { Gateway } from './gateway.js';

/** What the inbound handler talks to. */
export interface InboundDeps {
  /** Commits answers and history notes. */
  gateway: Pick<Gateway, 'apply' | 'note'>;
  store: Pick<AskStore, 'get' | 'peek'>;
  indexes: Pick<AskIndexes, 'findByMessage' | 'pendingInConversation' | 'bindMessage'>;
  clock: Clock;
  /** How long terminal records are kept: follow-up bindings live until the deadline plus this. */
  retentionMs: number;
  /** The language of asks without a locale (ASKGATE_DEFAULT_LOCALE); English when absent. */
  defaultLocale?: string;
  /** How the chat channels are named in notices (the channel registry's). */
  channelNames?: ChannelNames;
}

/**
 * Turns normalised taps and text replies into lifecycle events and tells the channel what to
 * say to the human. Button data and text are untrusted: every decoded value is re-checked
 * against the stored record.
 */
export class InboundHandler implements InboundSink {
  private readonly gateway: InboundDeps['gateway'];

  constructor(
    private readonly deps: InboundDeps,
    private readonly notice: NoticeOptions = {},
    /** Platform event ids seen by every replica, for the channels' de-duplication of re-sends. */
    readonly seen?: SeenEvents,
  ) {
    this.gateway = deps.gateway;
  }

  /** Handles a button tap: forged or stale data changes nothing. */
  async button(event: ButtonPressed): Promise<InboundOutcome> {
    const found = await this.tapped(event, true);
    if (found.kind !== 'found') return found.outcome;
    const { record, choice, words } = found;
    const question = record.questions[0]!;
    if (choice.kind === 'other')
      return spoken({ kind: 'need_text', askId: record.id, prompt: words.t('notice.ownWords') }, words);
    if (
      (choice.kind !== 'option' && choice.kind !== 'skip') ||
      (choice.kind === 'option' &&
        (record.questions.length !== 1 || question.multiSelect || !question.options[choice.index]))
    ) {
      return spoken({ kind: 'not_found', summary: words.t('notice.invalidButton') }, words);
    }
    const chat = event.chat;
    const ev: AskEvent =
      choice.kind === 'skip'
        ? { type: 'skip', by: event.user, chat }
        : {
            type: 'answer',
            answers: { [question.id]: [question.options[choice.index]!.label] },
            by: event.user,
            chat,
          };
    return this.commit(record.id, ev, record, words);
  }

  /** Checks a tap that opens a form or works on a draft, and returns the prompt as it stands now. */
  async openForm(event: ButtonPressed): Promise<FormOpening> {
    const found = await this.tapped(event);
    if (found.kind !== 'found') return found.outcome;
    const { record, choice, words } = found;
    if (!controlFits(choice, record.questions))
      return spoken({ kind: 'not_found', summary: words.t('notice.invalidButton') }, words);
    const view = buildPromptView(record, this.askWords(record));
    return spoken({ kind: 'form', view, choice, expiresAt: record.expiresAt }, words);
  }

  /** Answers every question of an ask from a submitted form; an incomplete form is `invalid` with what to fix. */
  async submitForm(event: FormSubmitted): Promise<InboundOutcome> {
    const found = await this.tapped(event);
    if (found.kind !== 'found') return found.outcome;
    const { record, choice, words } = found;
    if (!['form', 'other', 'submit'].includes(choice.kind) || !controlFits(choice, record.questions)) {
      return spoken({ kind: 'not_found', summary: words.t('notice.invalidButton') }, words);
    }
    const reading = readForm(record.questions, event.answers, words);
    if (reading.kind === 'invalid') {
      const hint = formHint(reading.problems, record.questions.length, words);
      const outcome = { kind: 'invalid' as const, askId: record.id, hint, problems: reading.problems };
      return this.noted(record.id, spoken(outcome, words), event.user);
    }
    return this.commit(
      record.id,
      { type: 'answer', answers: reading.answers, by: event.user, chat: event.chat },
      record,
      words,
    );
  }

  /**
   * The ask a tap or form belongs to, when it may take this person's answer: the token must decode,
   * name the ask's current version and come from one of the ask's own conversations.
   *
   * `cached`: an option or skip tap may start from the record as this process last wrote or read
   * it (`store.peek`), which saves the tap's read. The answer it makes depends only on the ask's
   * questions, which never change, and the commit's compare-and-set rejects a stale copy (the
   * transition then runs again on a fresh read, its own checks included); a stale copy never
   * refuses: a tap it would turn away is checked again on a fresh read.
   */
  private async tapped(
    event: { channel: string; token: string; user: Responder; chat?: string; locale?: string },
    cached = false,
  ): Promise<
    { kind: 'found'; record: AskRecord; choice: ButtonChoice; words: Words } | { kind: 'none'; outcome: InboundOutcome }
  > {
    const token = decodeToken(event.token);
    const early = this.personWords(event.locale, null);
    if (!token)
      return { kind: 'none', outcome: spoken({ kind: 'not_found', summary: early.t('notice.invalidButton') }, early) };
    const kept =
      cached && (token.choice.kind === 'option' || token.choice.kind === 'skip')
        ? this.deps.store.peek(token.askId)
        : null;
    const record = kept ?? (await this.deps.store.get(token.askId));
    // A tap must come from the ask's own chat; one that does not say where it came from (a
    // Telegram inline-mode callback carries no message) cannot be checked, so it is refused.
    // With fan-out and escalation, any conversation the ask was delivered to is its own.
    const here = (c: { channel: string; chat: string } | null | undefined) =>
      c?.channel === event.channel && c.chat === event.chat;
    const chatMatches = event.chat !== undefined && (here(record?.to) || !!record?.deliveries.some(here));
    if (!record || record.version !== token.version || !chatMatches) {
      if (kept) return this.tapped(event);
      const outcome = { kind: 'not_found' as const, summary: noticeFor(null, 'not_found', {}, early) };
      return { kind: 'none', outcome: spoken(outcome, early) };
    }
    const words = this.personWords(event.locale, record);
    const refusal = this.refusal(record, event.user, event.chat, words);
    if (refusal && kept) return this.tapped(event);
    if (refusal) return { kind: 'none', outcome: await this.noted(record.id, refusal, event.user) };
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
    const parsed = parseReply(record.questions, event.text, partial, words, locales);
    const chat = event.chat;
    switch (parsed.kind) {
      case 'empty':
        return { kind: 'ignored' };
      case 'invalid':
        return this.noted(
          record.id,
          spoken({ kind: 'invalid', askId: record.id, hint: parsed.hint }, words),
          event.user,
        );
      case 'skip':
        return this.commit(record.id, { type: 'skip', by: event.user, chat }, record, words);
      case 'answers':
        return this.commit(record.id, { type: 'answer', answers: parsed.answers, by: event.user, chat }, record, words);
    }
  }

  /** Binds a follow-up message to its ask until the ask's deadline plus retention. */
  async bindFollowUp(channel: string, chat: string, messageId: string, askId: string): Promise<void> {
    const { store, indexes, retentionMs, clock } = this.deps;
    const record = await store.get(askId);
    if (!record) return;
    await indexes.bindMessage(
      { channel, chat },
      messageId,
      askId,
      Date.parse(record.expiresAt) - clock.now() + retentionMs,
    );
  }

  private async findAsk(
    event: TextReceived,
  ): Promise<{ kind: 'found'; record: AskRecord } | { kind: 'none'; outcome: InboundOutcome }> {
    const { store, indexes, clock } = this.deps;
    const conv = { channel: event.channel, chat: event.chat };
    let askId: string | null = null;
    if (event.replyTo) askId = await indexes.findByMessage(conv, event.replyTo);
    // In a private chat a message that replies to nothing of ours is still "the next message".
    if (!askId && event.privateChat) {
      const pending = await indexes.pendingInConversation(conv, clock.now());
      if (pending.length > 1) {
        const words = this.personWords(event.locale, null);
        return { kind: 'none', outcome: spoken({ kind: 'ambiguous', summary: words.t('notice.ambiguous') }, words) };
      }
      askId = pending[0] ?? null;
    }
    if (!askId) return { kind: 'none', outcome: { kind: 'ignored' } };
    const record = await store.get(askId);
    if (!record) {
      const words = this.personWords(event.locale, null);
      return {
        kind: 'none',
        outcome: spoken({ kind: 'not_found', summary: noticeFor(null, 'not_found', {}, words) }, words),
      };
    }
    return { kind: 'found', record };
  }

  /** Records a refusal or a hint in the ask's history (never the reply text) and returns the outcome. */
  private async noted(askId: string, outcome: InboundOutcome, user: ButtonPressed['user']): Promise<InboundOutcome> {
    const by = { channel: user.channel, userId: user.userId };
    const entry =
      outcome.kind === 'invalid'
        ? { type: 'hint_sent' as const, ...by, reason: 'invalid_selection' }
        : { type: 'reply_rejected' as const, ...by, reason: outcome.kind };
    await this.gateway.note(askId, entry);
    return outcome;
  }

  /** The notice for a record that cannot take this person's answer, or null when it can. */
  private refusal(record: AskRecord, user: ButtonPressed['user'], chat: string | undefined, words: Words) {
    if (isTerminal(record)) return this.resolvedOutcome(record, words);
    if (!mayAnswer(record, user, chat)) {
      // The notice names the users allowed where this person tried, not those of every target.
      const where = { ...this.notice, channel: user.channel, ...(chat !== undefined ? { chat } : {}) };
      return spoken({ kind: 'forbidden', summary: noticeFor(record, 'forbidden', where, words) }, words);
    }
    return null;
  }

  private resolvedOutcome(record: AskRecord, words: Words): InboundOutcome {
    const expired = record.result?.status === 'no_answer' && record.result.reason === 'timeout';
    return spoken(
      expired
        ? { kind: 'expired', summary: noticeFor(record, 'expired', this.notice, words) }
        : { kind: 'already_resolved', summary: noticeFor(record, 'already_resolved', this.notice, words) },
      words,
    );
  }

  private async commit(askId: string, event: AskEvent, known: AskRecord, words: Words): Promise<InboundOutcome> {
    const applied = await this.gateway.apply(askId, event, known);
    const record = applied.record;
    const notice = (code: 'recorded' | 'forbidden' | 'expired') => noticeFor(record, code, this.notice, words);
    switch (applied.outcome.code) {
      case 'resolved':
        return spoken({ kind: 'recorded', summary: notice('recorded') }, words);
      case 'partial': {
        const prompt = partialPrompt(record!.questions, applied.outcome.missing, words);
        return spoken({ kind: 'partial', askId, prompt }, words);
      }
      case 'counted': {
        const summary = countedNotice(applied.outcome.matching, applied.outcome.needed, words);
        return spoken({ kind: 'recorded', summary }, words);
      }
      case 'forbidden':
        return spoken({ kind: 'forbidden', summary: notice('forbidden') }, words);
      case 'expired':
        return spoken({ kind: 'expired', summary: notice('expired') }, words);
      case 'invalid':
        return { kind: 'invalid', askId, hint: applied.outcome.issues.map((i) => i.message).join('; ') };
      case 'not_found':
        return spoken({ kind: 'not_found', summary: noticeFor(null, 'not_found', {}, words) }, words);
      default:
        return record
          ? this.resolvedOutcome(record, words)
          : spoken({ kind: 'not_found', summary: noticeFor(null, 'not_found', {}, words) }, words);
    }
  }
}

/** What a person hears when their answer counts towards an ask that needs several matching answers (in `words`, default English). */
export function countedNotice(matching: number, needed: number, words: Words = ENGLISH): string {
  return words.t('counted.notice', { count: matching, needed });
}
