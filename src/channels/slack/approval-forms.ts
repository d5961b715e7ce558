// Reject…, Request changes… and Edit… on Slack: the tap opens a modal (approval-modal.ts) the way
// Answer opens a form (forms.ts: the tap checked by sink.openForm, then views.open with its trigger);
// the submission is decided by sink.decide. A blank reason, an edit the schema refuses or a decision
// the ask refuses (self-approval) go back into the modal beside the field (`response_action: errors`).
import type { App, ViewResponseAction, ViewSubmitAction } from '@slack/bolt';
import type { Decision } from '../../core/approval/decisions.js';
import type { FormOpening, InboundOutcome } from '../../core/ports.js';
import { outcomeNotice, outcomeWords } from '../../core/notices.js';
import { responderOf } from '../shared/responder.js';
import type { SlackInboundDeps } from './inbound.js';
import { describeError, platformErrorCode, TRIGGER_ERRORS } from './limits.js';
import { decisionModal, DECIDE_CALLBACK_ID, fieldNamed, readDecision } from './approval-modal.js';
import { readMeta, type FormMeta } from './form-state.js';
import { usernameOf, withinAck, type FormTap } from './forms.js';
import { ephemeral } from './notify.js';
import { slackText } from './words.js';
import { decodeToken } from '../../core/token.js';
import { decisionWord } from '../../core/approval/decisions.js';
import { hasVisible } from '../../core/text.js';

type Ack = (response?: ViewResponseAction) => Promise<void>;

/**
 * What a person reads after a Reject…, Request changes… or Edit… tap that opens no modal (no
 * trigger_id, an edit too large for one): how to decide by a reply in the thread, with the
 * decision's word in their language (`reject:` and why; `edit:` and the arguments as JSON). Any
 * other outcome (answered, not theirs) is its own notice.
 */
export function decisionNotice(outcome: InboundOutcome, decision: Decision): string | null {
  if (outcome.kind !== 'need_text') return outcomeNotice(outcome);
  const words = outcomeWords(outcome);
  const word = decisionWord(decision, words);
  return slackText(words.locale, decision === 'edit' ? 'replyEdit' : 'replyReason', { word });
}

/**
 * A tap on Reject…, Request changes… or Edit…, already acknowledged: checks it (sink.openForm), then
 * opens the decision's modal. Without sink.decide, or when the modal cannot hold the approval, the
 * tap goes to sink.button, whose answer says how to decide by a reply in the thread.
 */
export async function openDecisionModal(
  deps: SlackInboundDeps,
  tap: Omit<FormTap, 'own'>,
  decision: Decision,
): Promise<void> {
  const say = (text: string) => ephemeral(deps, tap.channel, tap.user.userId, text, tap.threadTs);
  const event = { channel: 'slack', token: tap.token, user: tap.user, chat: tap.channel };
  let opening: FormOpening;
  try {
    opening = deps.sink.decide ? await deps.sink.openForm(event) : await deps.sink.button(event);
  } catch (error) {
    deps.logger.error({ channel: 'slack', err: describeError(error) }, 'slack decision could not be checked');
    return say(slackText(tap.locale ?? 'en', 'failed'));
  }
  const words = outcomeWords(opening);
  const meta: FormMeta = {
    token: tap.token,
    channel: tap.channel,
    ...(tap.threadTs ? { thread: tap.threadTs } : {}),
    locale: words.locale,
  };
  const view = opening.kind === 'form' ? decisionModal(opening.view, decision, meta, words.locale) : null;
  if (!view) {
    // Refused (answered, not this person's), or no modal: the notice, or how to reply in the thread.
    const told = opening.kind === 'form' ? await deps.sink.button(event) : opening;
    const notice = decisionNotice(told, decision);
    return notice ? say(notice) : undefined;
  }
  try {
    await deps.client.views.open({ trigger_id: tap.triggerId, view });
  } catch (error) {
    const code = platformErrorCode(error);
    const log = { channel: 'slack', err: describeError(error) };
    if (code && TRIGGER_ERRORS.has(code)) deps.logger.info(log, 'slack decision modal not opened: trigger refused');
    else deps.logger.warn(log, 'slack decision modal could not be opened');
    await say(slackText(words.locale, 'notOpened'));
  }
}

/** Registers the view_submission listener of the decision modals. */
export function registerDecisions(app: App, deps: SlackInboundDeps): void {
  app.view<ViewSubmitAction>({ type: 'view_submission', callback_id: DECIDE_CALLBACK_ID }, async ({ ack, body }) => {
    await onDecision(deps, body, ack as Ack);
  });
}

/**
 * A submitted decision modal: read (untrusted); a blank reason and JSON that does not read are
 * refused on their field here; then sink.decide with the decision its token names and the reason or
 * the edited arguments. An `invalid` outcome (an edit the schema refuses, self-approval) goes back
 * beside the field; any other outcome closes the modal and is posted ephemerally. An outcome slower
 * than {@link SUBMIT_ACK_DEADLINE_MS} closes the modal first and is posted when known.
 */
async function onDecision(deps: SlackInboundDeps, body: ViewSubmitAction, ack: Ack): Promise<void> {
  const meta = readMeta(body.view?.private_metadata);
  const read = readDecision(body.view?.state?.values);
  const decision = decodeToken(meta?.token)?.choice;
  if (!meta || !read || !deps.sink.decide || decision?.kind !== 'decide') {
    deps.logger.warn({ channel: 'slack' }, 'slack decision refused: not an askgate decision modal');
    const forged = slackText(meta?.locale ?? 'en', 'forged');
    return read ? ack({ response_action: 'errors', errors: { [read.field]: forged } }) : ack();
  }
  const locale = meta.locale ?? 'en';
  const { read: said, field } = read;
  const refuse = (key: 'reasonEmpty' | 'notJson') =>
    ack({ response_action: 'errors', errors: { [field]: slackText(locale, key) } });
  // Slack's client refuses an empty required field, not one of spaces: said here in the modal's words.
  if ('reason' in said && !hasVisible(said.reason)) return refuse('reasonEmpty');
  if ('notJson' in said) return refuse('notJson');
  const user = responderOf('slack', { id: body.user.id, username: usernameOf(body.user) });
  const say = (text: string) => ephemeral(deps, meta.channel, user.userId, text, meta.thread);
  // The token names the decision; the sink checks it is that decision's button on this ask.
  const decided = deps.sink.decide({
    channel: 'slack',
    token: meta.token,
    user,
    chat: meta.channel,
    decision: decision.decision,
    ...said,
  });
  const { first, result } = await withinAck(decided, () => ack());
  if ('error' in result) {
    deps.logger.error({ channel: 'slack', err: describeError(result.error) }, 'slack decision could not be recorded');
    const failed = slackText(locale, 'failed');
    if (first) return ack({ response_action: 'errors', errors: { [field]: failed } });
    return say(failed);
  }
  const outcome: InboundOutcome = result.outcome;
  if (outcome.kind === 'invalid') {
    const beside = fieldNamed(body.view?.blocks, outcome.hint, field);
    if (first) return ack({ response_action: 'errors', errors: { [beside]: outcome.hint } });
    return say(`${slackText(outcomeWords(outcome).locale, 'lateInvalid')} ${outcome.hint}`);
  }
  if (first) await ack();
  const notice = outcomeNotice(outcome);
  if (notice) await say(notice);
}
