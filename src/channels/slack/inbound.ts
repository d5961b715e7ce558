import type { App, BlockAction, ButtonAction, webApi } from '@slack/bolt';
import type { InboundOutcome, InboundSink, Logger, SeenTtl } from '../../core/ports.js';
import type { Responder } from '../../core/schemas.js';
import { ID_PREFIX, unescapeMrkdwn } from './render.js';
import { describeError } from './limits.js';
import { responderOf } from '../shared/responder.js';
import { outcomeNotice, outcomeWords } from '../../core/notices.js';
import { slackText } from './words.js';
import { localeOfActions, OPEN_ACTION } from './render.js';
import { decodeToken } from '../../core/token.js';
import { openFormModal, registerForms } from './forms.js';
import { decisionNotice, openDecisionModal, registerDecisions } from './approval-forms.js';
import { ephemeral, inThread } from './notify.js';

/** What the Slack inbound handlers need. */
export interface SlackInboundDeps {
  sink: InboundSink;
  client: webApi.WebClient;
  logger: Logger;
}

/** The ephemeral notice after "Other", in English (`slack.otherPrompt`): Slack answers in the thread, not by replying to the message. */
export const OTHER_PROMPT = slackText('en', 'otherPrompt');
const ACTION_ID = new RegExp(`^${ID_PREFIX}`);
/**
 * Slack re-sends an unanswered event after about 3 s, 1 min and 5 min: an hour covers them all. The
 * lease only keeps two attempts from running at once; it is short so the re-send of an attempt that
 * died is not refused for long (two attempts that do overlap still post once: the first settle wins).
 */
export const SLACK_EVENT_TTL: SeenTtl = { leaseMs: 3_000, keepMs: 3_600_000 };

/** An event another attempt (on any replica) is processing: answered non-2xx or not acked, so Slack re-sends it later. */
export class EventInProgressError extends Error {
  /** bolt passes errors with a `code` through unchanged. */
  readonly code = 'askgate_event_in_progress';
  constructor() {
    super('this event is being processed by another attempt');
    this.name = 'EventInProgressError';
  }
}

/** True for {@link EventInProgressError}, however bolt passed it on. */
export function isEventInProgress(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'askgate_event_in_progress';
}

/** The fields of a message event askgate reads; every other subtype is ignored. */
interface MessageEvent {
  type: 'message';
  subtype?: string;
  channel?: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
}

// thread_broadcast is a thread reply also shown in the channel: still a reply.
const ANSWER_SUBTYPES = new Set([undefined, 'thread_broadcast']);

/** Registers the block_actions, view_submission and message listeners on a bolt App. */
export function registerInbound(app: App, deps: SlackInboundDeps): void {
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: ACTION_ID },
    async ({ ack, body, action }) => {
      // Ack first: Slack shows the person an error after 3 s, and nothing below is fast enough to wait for.
      await ack();
      // The Open button is a link: the person's browser opens the answer page, there is nothing to record.
      if (action.action_id === OPEN_ACTION) return;
      await onButton(deps, body, action);
    },
  );
  registerForms(app, deps);
  registerDecisions(app, deps);
  app.event('message', async ({ event, body, context }) => {
    const eventId = typeof body.event_id === 'string' && body.event_id !== '' ? body.event_id : undefined;
    await onMessage(deps, event as unknown as MessageEvent, eventId, (context.retryNum ?? 0) > 0);
  });
}

async function onButton(deps: SlackInboundDeps, body: BlockAction<ButtonAction>, action: ButtonAction): Promise<void> {
  const channel = body.channel?.id ?? (body.container as { channel_id?: string } | undefined)?.channel_id;
  const user: Responder = responderOf('slack', { id: body.user.id, username: body.user.username });
  const threadTs = typeof body.message?.thread_ts === 'string' ? body.message.thread_ts : undefined;
  // Slack sends no user locale with a tap: the ask's, as its message's actions block says, is the fallback.
  const askLocale = localeOfActions(action.block_id);
  // Answer and Other… open a modal (the token is only routed by here; openForm checks it).
  const choice = decodeToken(action.value)?.choice;
  const kind = choice?.kind;
  // Reject…, Request changes… and Edit… open the decision's modal (approval-forms.ts).
  if (choice?.kind === 'decide' && choice.decision !== 'approve' && channel && typeof body.trigger_id === 'string') {
    const tap = { token: action.value!, channel, user, triggerId: body.trigger_id };
    const where = { ...(threadTs ? { threadTs } : {}), ...(askLocale ? { locale: askLocale } : {}) };
    return openDecisionModal(deps, { ...tap, ...where }, choice.decision);
  }
  if ((kind === 'form' || kind === 'other') && channel && typeof body.trigger_id === 'string') {
    return openFormModal(deps, {
      token: action.value!,
      channel,
      user,
      triggerId: body.trigger_id,
      own: kind === 'other',
      ...(threadTs ? { threadTs } : {}),
      ...(askLocale ? { locale: askLocale } : {}),
    });
  }
  let notice: string | null;
  try {
    const outcome = await deps.sink.button({
      channel: 'slack',
      token: action.value ?? '',
      user,
      ...(channel ? { chat: channel } : {}),
    });
    // A decision tap without a trigger_id (no modal can open): how to decide by a reply in the thread.
    notice = choice?.kind === 'decide' ? decisionNotice(outcome, choice.decision) : buttonNotice(outcome);
  } catch (error) {
    deps.logger.error({ channel: 'slack', err: describeError(error) }, 'slack button could not be recorded');
    notice = slackText(askLocale ?? 'en', 'failed');
  }
  if (notice && channel) await ephemeral(deps, channel, user.userId, notice, threadTs);
}

async function onMessage(
  deps: SlackInboundDeps,
  event: MessageEvent,
  eventId: string | undefined,
  isRetry: boolean,
): Promise<void> {
  if (
    !ANSWER_SUBTYPES.has(event.subtype) ||
    event.bot_id ||
    !event.user ||
    !event.channel ||
    typeof event.text !== 'string'
  )
    return;
  const replyTo = event.thread_ts && event.thread_ts !== event.ts ? event.thread_ts : undefined;
  const privateChat = event.channel_type === 'im';
  // A top-level message in a channel is never an answer: skip the store lookup for all channel chatter.
  if (!replyTo && !privateChat) return;
  // A failure here propagates: the HTTP receiver answers 500, the Socket Mode receiver does not
  // ack the envelope, and Slack retries the event either way. So does a store that cannot say
  // whether the event was seen, and an event another attempt is still processing.
  const claim = eventId && deps.sink.seen ? await deps.sink.seen.claim('slack', eventId, SLACK_EVENT_TTL) : null;
  if (claim === 'done') return; // settled by an earlier delivery, on any replica: acknowledge, say nothing
  if (claim === 'busy') throw new EventInProgressError();
  let outcome: InboundOutcome;
  try {
    outcome = await deps.sink.text({
      channel: 'slack',
      chat: event.channel,
      ...(replyTo ? { replyTo } : {}),
      privateChat,
      user: responderOf('slack', { id: event.user }),
      text: unescapeMrkdwn(event.text),
    });
  } catch (error) {
    await claim?.release().catch(() => {});
    throw error;
  }
  // Settled before anything is posted: a re-send after this point shows nothing; one before it
  // (this attempt failed or died) is processed again. Unreachable store: 500, Slack re-sends.
  if (claim && !(await claim.settle())) return;
  await reactTo(
    deps,
    { channel: event.channel, user: event.user, ...(replyTo ? { replyTo } : {}) },
    outcome,
    claim ? claim.status === 'retry' : isRetry,
  );
}

/** Tells the person an outcome: in the thread (partial, invalid) or privately (the rest). */
async function reactTo(
  deps: SlackInboundDeps,
  event: { channel: string; user: string; replyTo?: string },
  outcome: InboundOutcome,
  retried: boolean,
): Promise<void> {
  const { replyTo } = event;
  switch (outcome.kind) {
    case 'ignored':
      return;
    case 'partial':
    case 'invalid':
      await inThread(deps, event.channel, outcome.kind === 'partial' ? outcome.prompt : outcome.hint, replyTo);
      return;
    case 'need_text':
      await ephemeral(deps, event.channel, event.user, slackText(outcomeWords(outcome).locale, 'otherPrompt'), replyTo);
      return;
    case 'already_resolved':
      // A retried event whose first attempt committed and then failed: the answer is recorded.
      if (retried) return;
      await ephemeral(deps, event.channel, event.user, outcome.summary, replyTo);
      return;
    default:
      await ephemeral(deps, event.channel, event.user, outcome.summary, replyTo);
  }
}

/** The notice for a tap's outcome, in the outcome's language, or null when nothing should be said. */
export function buttonNotice(outcome: InboundOutcome): string | null {
  return outcomeNotice(outcome, slackText(outcomeWords(outcome).locale, 'otherPrompt'));
}
