// `adaptiveCard/action` invokes: a card's Action.Execute (a tap, a submitted form, a decision) or
// its `refresh`. Teams waits about five seconds for the invoke's answer and re-sends the invoke
// (twice) when it gets none in time or an empty one, so every invoke is answered with a card or a
// message, and each is claimed by its activity id so a re-sent one never acts twice.
import type { ButtonPressed, InboundOutcome, InboundSink, Logger, Clock } from '../../core/ports.js';
import type { InboundHttpResponse } from '../../core/channel-ports.js';
import { wordsFor } from '../../core/i18n/index.js';
import { outcomeNotice } from '../../core/notices.js';
import { describeError } from '../shared/errors.js';
import { settleOrShow, takeEvent } from '../shared/take-event.js';
import { readCardAction, type CardAction } from './card-actions.js';
import { promptCard } from './cards.js';
import { teamsText } from './words.js';

/** The invoke whose answer is a card or a message. */
export const CARD_ACTION_INVOKE = 'adaptiveCard/action';
/**
 * One attempt holds an invoke 8 s, longer than a slow store makes it take: a re-send meanwhile waits
 * for it to settle (answered "being recorded…" at the deadline) instead of acting a second time.
 * A re-send of an attempt that died goes on waiting after its answer and takes the invoke over when
 * the lease ends, so the click still counts. Its id is kept a day.
 */
const INVOKE_TTL = { leaseMs: 8_000, keepMs: 86_400_000 };
/**
 * How long after an invoke arrived askgate answers it at the latest: Teams waits 5 s for the answer,
 * then shows an error and re-sends the invoke; half a second is left for the answer's way back.
 */
export const INVOKE_DEADLINE_MS = 4_500;
const CARD_TYPE = 'application/vnd.microsoft.card.adaptive';
const MESSAGE_TYPE = 'application/vnd.microsoft.activity.message';

/** What an invoke is about: who, where, in which language. */
export interface InvokeContext {
  activityId: string | undefined;
  user: ButtonPressed['user'];
  chat: string;
  locale?: string;
  /** The invoke's `value` (or an Action.Submit message's `value`): untrusted. */
  value: unknown;
  /** When the request arrived (clock ms): the answer is due {@link INVOKE_DEADLINE_MS} later. */
  arrivedAt?: number;
}

/** The HTTP answer carrying a card: the client shows it in place of the card that was clicked. */
export const cardAnswer = (card: object): InboundHttpResponse => ({
  status: 200,
  body: { statusCode: 200, type: CARD_TYPE, value: card },
});

/** The HTTP answer carrying a message: the client shows it beside the card. */
export const messageAnswer = (text: string): InboundHttpResponse => ({
  status: 200,
  body: { statusCode: 200, type: MESSAGE_TYPE, value: text },
});

/** Answers `adaptiveCard/action` invokes through the sink. */
export class InvokeHandler {
  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  /**
   * Handles one invoke; never throws (a failure is answered as an error the client shows). Answered
   * by {@link INVOKE_DEADLINE_MS} after `invoke.arrivedAt` at the latest: when the sink is slower,
   * the answer is "being recorded…" and the work goes on; when it ends, the card changes through the
   * outcome's usual edit (finalize, refresh), and anything else to say (a refusal, an error) is
   * handed to `late` (the channel replies to the card).
   */
  async handle(
    sink: InboundSink,
    invoke: InvokeContext,
    late?: (notice: string) => Promise<void>,
  ): Promise<InboundHttpResponse> {
    const work = this.work(sink, invoke);
    const left = (invoke.arrivedAt ?? this.clock.now()) + INVOKE_DEADLINE_MS - this.clock.now();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), Math.max(0, left))));
    const done = await Promise.race([work, deadline]);
    clearTimeout(timer);
    if (done) return done.answer;
    this.logger.info({ channel: 'teams' }, 'invoke answered before the sink returned: finishing in the background');
    void work.then(async ({ lateNotice }) => {
      if (lateNotice && late)
        await late(lateNotice).catch((error: unknown) =>
          this.logger.warn({ channel: 'teams', err: describeError(error) }, 'late notice not sent'),
        );
    });
    return messageAnswer(teamsText(invoke.locale, 'recording'));
  }

  /** The invoke's answer, and what to say instead if it comes too late to be the answer (a refusal or an error). */
  private async work(
    sink: InboundSink,
    invoke: InvokeContext,
  ): Promise<{ answer: InboundHttpResponse; lateNotice?: string }> {
    const words = wordsFor(invoke.locale);
    const action = readCardAction(invoke.value);
    if (!action) return { answer: messageAnswer(words.t('notice.invalidButton')) };
    // A blank reason or arguments that are not JSON: said at once, the card left as it is to fix.
    if (action.kind === 'refused') return { answer: messageAnswer(teamsText(invoke.locale, action.problem)) };
    const tap: ButtonPressed = {
      channel: 'teams',
      token: action.token,
      user: invoke.user,
      chat: invoke.chat,
      ...(invoke.locale ? { locale: invoke.locale } : {}),
    };
    try {
      if (action.kind === 'refresh') return { answer: await this.current(sink, tap) };
      // Without an id nothing can be de-duplicated: handled once as it comes (Teams always sends one).
      const gate = invoke.activityId
        ? await takeEvent(sink.seen, 'teams', `invoke:${invoke.activityId}`, INVOKE_TTL, this.clock)
        : undefined;
      // Already handled (or still held by another attempt): what the card shows now, nothing done again.
      if (gate === 'done' || gate === 'busy') return { answer: await this.current(sink, tap) };
      const outcome = await act(sink, action, tap);
      const shown = gate
        ? await settleOrShow(gate, (error) =>
            this.logger.warn({ channel: 'teams', err: describeError(error) }, 'invoke not marked handled'),
          )
        : true;
      if (!shown) return { answer: await this.current(sink, tap) };
      const notice = noticeOf(outcome, words.t('notice.invalidButton'));
      // Recorded: the card's own edit shows it; anything else would be lost without a reply.
      return { answer: messageAnswer(notice), ...(outcome.kind !== 'recorded' ? { lateNotice: notice } : {}) };
    } catch (error) {
      this.logger.warn({ channel: 'teams', err: describeError(error) }, 'card action not handled');
      const message = teamsText(invoke.locale, 'notRecorded');
      return {
        answer: {
          status: 200,
          body: { statusCode: 500, type: 'application/vnd.microsoft.error', value: { code: 'InternalError', message } },
        },
        lateNotice: message,
      };
    }
  }

  /**
   * What the card should show the person now, changing nothing: the live prompt when it is open to
   * them, a read-only one when it is for someone else, else the honest notice (answered, expired…).
   */
  private async current(sink: InboundSink, tap: ButtonPressed): Promise<InboundHttpResponse> {
    const opening = await sink.openForm(tap);
    if (opening.kind === 'form') return cardAnswer(promptCard(opening.view, { live: true }));
    // Open but not for this person (any replica reads it from the ask): the card without its actions.
    if (opening.kind === 'forbidden' && opening.view) return cardAnswer(promptCard(opening.view, { live: false }));
    return messageAnswer(noticeOf(opening, wordsFor(tap.locale).t('notice.invalidButton')));
  }
}

/** Hands a card action to the sink: a tap, a submitted form, or a decision (Approve alone is a tap without `decide`). */
function act(
  sink: InboundSink,
  action: Exclude<CardAction, { kind: 'refused' | 'refresh' }>,
  tap: ButtonPressed,
): Promise<InboundOutcome> {
  if (action.kind === 'tap') return sink.button(tap);
  if (action.kind === 'form') return sink.submitForm({ ...tap, answers: action.answers });
  if (sink.decide)
    return sink.decide({
      ...tap,
      decision: action.decision,
      ...(action.reason !== undefined ? { reason: action.reason } : {}),
      ...(action.arguments !== undefined ? { arguments: action.arguments } : {}),
    });
  return sink.button(tap);
}

/** The outcome's notice, never empty (an invoke answer must say something). */
function noticeOf(outcome: InboundOutcome, fallback: string): string {
  return outcomeNotice(outcome) || fallback;
}
