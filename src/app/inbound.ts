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
import { buildPromptView, noticeFor, partialPrompt, type NoticeOptions } from '../core/prompt-view.js';
import { parseReply } from '../core/reply-parser.js';
import type { AskRecord, Responder } from '../core/schemas.js';
import { decodeToken, type ButtonChoice } from '../core/token.js';
import { formHint, readForm } from '../core/forms.js';
import { personKey } from '../core/agreement.js';
import { ownValue } from '../core/own.js';
import { agreeOf } from '../core/policy.js';
import type { Gateway } from './gateway.js';

const INVALID_BUTTON = 'This button is not valid';

/** Whether a form or draft control names a question and option the ask has (`other` and `option` need a single question). */
function fitsShape(choice: ButtonChoice, record: AskRecord): boolean {
  const questions = record.questions;
  switch (choice.kind) {
    case 'other':
      return questions.length === 1;
    case 'option':
      return questions.length === 1 && !questions[0]!.multiSelect && choice.index < questions[0]!.options.length;
    case 'pick':
    case 'toggle': {
      const question = questions[choice.question];
      return (
        !!question && choice.index < question.options.length && question.multiSelect === (choice.kind === 'toggle')
      );
    }
    case 'step':
    case 'own':
      return choice.question < questions.length;
    default:
      return true;
  }
}

/** What the inbound handler talks to. */
export interface InboundDeps {
  /** Commits answers and history notes. */
  gateway: Pick<Gateway, 'apply' | 'note'>;
  store: Pick<AskStore, 'get'>;
  indexes: Pick<AskIndexes, 'findByMessage' | 'pendingInConversation' | 'bindMessage'>;
  clock: Clock;
  /** How long terminal records are kept: follow-up bindings live until the deadline plus this. */
  retentionMs: number;
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
    const found = await this.tapped(event);
    if (found.kind !== 'found') return found.outcome;
    const { record, choice } = found;
    const question = record.questions[0]!;
    if (choice.kind === 'other')
      return {
        kind: 'need_text',
        askId: record.id,
        prompt: 'Reply to the question message with your answer in your own words.',
      };
    if (
      (choice.kind !== 'option' && choice.kind !== 'skip') ||
      (choice.kind === 'option' &&
        (record.questions.length !== 1 || question.multiSelect || !question.options[choice.index]))
    ) {
      return { kind: 'not_found', summary: INVALID_BUTTON };
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
    return this.commit(record.id, ev, record);
  }

  /** Checks a tap that opens a form or works on a draft, and returns the prompt as it stands now. */
  async openForm(event: ButtonPressed): Promise<FormOpening> {
    const found = await this.tapped(event);
    if (found.kind !== 'found') return found.outcome;
    if (!fitsShape(found.choice, found.record)) return { kind: 'not_found', summary: INVALID_BUTTON };
    const { record, choice } = found;
    return { kind: 'form', view: buildPromptView(record), choice, expiresAt: record.expiresAt };
  }

  /** Answers every question of an ask from a submitted form; an incomplete form is `invalid` with what to fix. */
  async submitForm(event: FormSubmitted): Promise<InboundOutcome> {
    const found = await this.tapped(event);
    if (found.kind !== 'found') return found.outcome;
    const { record, choice } = found;
    if (!['form', 'other', 'submit'].includes(choice.kind) || !fitsShape(choice, record)) {
      return { kind: 'not_found', summary: INVALID_BUTTON };
    }
    const reading = readForm(record.questions, event.answers);
    if (reading.kind === 'invalid') {
      const hint = formHint(reading.problems, record.questions.length);
      return this.noted(record.id, { kind: 'invalid', askId: record.id, hint, problems: reading.problems }, event.user);
    }
    return this.commit(
      record.id,
      { type: 'answer', answers: reading.answers, by: event.user, chat: event.chat },
      record,
    );
  }

  /**
   * The ask a tap or form belongs to, when it may take this person's answer: the token must decode,
   * name the ask's current version and come from one of the ask's own conversations.
   */
  private async tapped(event: {
    channel: string;
    token: string;
    user: Responder;
    chat?: string;
  }): Promise<{ kind: 'found'; record: AskRecord; choice: ButtonChoice } | { kind: 'none'; outcome: InboundOutcome }> {
    const token = decodeToken(event.token);
    if (!token) return { kind: 'none', outcome: { kind: 'not_found', summary: INVALID_BUTTON } };
    const record = await this.deps.store.get(token.askId);
    // A tap must come from the ask's own chat; one that does not say where it came from (a
    // Telegram inline-mode callback carries no message) cannot be checked, so it is refused.
    // With fan-out and escalation, any conversation the ask was delivered to is its own.
    const here = (c: { channel: string; chat: string } | null | undefined) =>
      c?.channel === event.channel && c.chat === event.chat;
    const chatMatches = event.chat !== undefined && (here(record?.to) || !!record?.deliveries.some(here));
    if (!record || record.version !== token.version || !chatMatches) {
      return { kind: 'none', outcome: { kind: 'not_found', summary: noticeFor(null, 'not_found') } };
    }
    const refusal = this.refusal(record, event.user, event.chat);
    if (refusal) return { kind: 'none', outcome: await this.noted(record.id, refusal, event.user) };
    return { kind: 'found', record, choice: token.choice };
  }

  /** Handles a text message that may answer an ask (routing rules in docs/ARCHITECTURE.md). */
  async text(event: TextReceived): Promise<InboundOutcome> {
    const found = await this.findAsk(event);
    if (found.kind !== 'found') return found.outcome;
    const record = found.record;
    const refusal = this.refusal(record, event.user, event.chat);
    if (refusal) return this.noted(record.id, refusal, event.user);
    // With agree > 1 each person has their own partial answers.
    const partial =
      agreeOf(record) > 1 ? (ownValue(record.partials ?? {}, personKey(event.user)) ?? {}) : record.partial;
    const parsed = parseReply(record.questions, event.text, partial);
    const chat = event.chat;
    switch (parsed.kind) {
      case 'empty':
        return { kind: 'ignored' };
      case 'invalid':
        return this.noted(record.id, { kind: 'invalid', askId: record.id, hint: parsed.hint }, event.user);
      case 'skip':
        return this.commit(record.id, { type: 'skip', by: event.user, chat }, record);
      case 'answers':
        return this.commit(record.id, { type: 'answer', answers: parsed.answers, by: event.user, chat }, record);
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
        return {
          kind: 'none',
          outcome: {
            kind: 'ambiguous',
            summary: 'Several questions are waiting here: reply to the question you are answering.',
          },
        };
      }
      askId = pending[0] ?? null;
    }
    if (!askId) return { kind: 'none', outcome: { kind: 'ignored' } };
    const record = await store.get(askId);
    if (!record) return { kind: 'none', outcome: { kind: 'not_found', summary: noticeFor(null, 'not_found') } };
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
  private refusal(record: AskRecord, user: ButtonPressed['user'], chat?: string): InboundOutcome | null {
    if (isTerminal(record)) return this.resolvedOutcome(record);
    if (!mayAnswer(record, user, chat)) {
      // The notice names the users allowed where this person tried, not those of every target.
      const where = { ...this.notice, channel: user.channel, ...(chat !== undefined ? { chat } : {}) };
      return { kind: 'forbidden', summary: noticeFor(record, 'forbidden', where) };
    }
    return null;
  }

  private resolvedOutcome(record: AskRecord): InboundOutcome {
    const expired = record.result?.status === 'no_answer' && record.result.reason === 'timeout';
    return expired
      ? { kind: 'expired', summary: noticeFor(record, 'expired', this.notice) }
      : { kind: 'already_resolved', summary: noticeFor(record, 'already_resolved', this.notice) };
  }

  private async commit(askId: string, event: AskEvent, known: AskRecord): Promise<InboundOutcome> {
    const applied = await this.gateway.apply(askId, event, known);
    const record = applied.record;
    switch (applied.outcome.code) {
      case 'resolved':
        return { kind: 'recorded', summary: noticeFor(record, 'recorded', this.notice) };
      case 'partial':
        return { kind: 'partial', askId, prompt: partialPrompt(record!.questions, applied.outcome.missing) };
      case 'counted':
        return { kind: 'recorded', summary: countedNotice(applied.outcome.matching, applied.outcome.needed) };
      case 'forbidden':
        return { kind: 'forbidden', summary: noticeFor(record, 'forbidden', this.notice) };
      case 'expired':
        return { kind: 'expired', summary: noticeFor(record, 'expired', this.notice) };
      case 'invalid':
        return { kind: 'invalid', askId, hint: applied.outcome.issues.map((i) => i.message).join('; ') };
      case 'not_found':
        return { kind: 'not_found', summary: noticeFor(null, 'not_found') };
      default:
        return record ? this.resolvedOutcome(record) : { kind: 'not_found', summary: noticeFor(null, 'not_found') };
    }
  }
}

/** What a person hears when their answer counts towards an ask that needs several matching answers. */
export function countedNotice(matching: number, needed: number): string {
  return `Your answer is recorded: ${matching} of ${needed} matching answers so far.`;
}
