import type { App, ViewResponseAction, ViewSubmitAction } from '@slack/bolt';
import type { FormOpening, InboundOutcome } from '../../core/ports.js';
import type { Responder } from '../../core/schemas.js';
import { outcomeNotice, outcomeWords } from '../../core/notices.js';
import { slackText } from './words.js';
import { responderOf } from '../shared/responder.js';
import type { SlackInboundDeps } from './inbound.js';
import { describeError, platformErrorCode, TRIGGER_ERRORS } from './limits.js';
import {
  CHOICE_ACTION,
  choiceBlock,
  FORM_CALLBACK_ID,
  formModal,
  OWN_ACTION,
  ownBlock,
  ownWordsModal,
} from './modal.js';
import { errorsFor, readMeta, readSubmission, type FormMeta } from './form-state.js';
import { ephemeral } from './notify.js';
import { VALUE_ACTION, valueBlock } from './typed-inputs.js';

/**
 * How long a view_submission waits for its outcome before it is acknowledged anyway (Slack shows the
 * person an error after 3 s; the HTTP receiver answers on its own at 2.5 s). The answer is still
 * committed and its outcome posted ephemerally.
 */
export const SUBMIT_ACK_DEADLINE_MS = 2000;

/** How a submission's work settled: its outcome or its error. */
export type Settled<T> = { outcome: T } | { error: unknown };

/**
 * Waits for a submission's `work` up to {@link SUBMIT_ACK_DEADLINE_MS}. Settled in time, `first` is
 * its result (the modal may still get `response_action: errors`); else the view is acked (the modal
 * closes) and `first` is null while the result is awaited.
 */
export async function withinAck<T>(
  work: Promise<T>,
  ack: () => Promise<void>,
): Promise<{ first: Settled<T> | null; result: Settled<T> }> {
  const settled = work.then(
    (outcome): Settled<T> => ({ outcome }),
    (error: unknown): Settled<T> => ({ error }),
  );
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), SUBMIT_ACK_DEADLINE_MS)));
  const first = await Promise.race([settled, deadline]);
  clearTimeout(timer);
  return { first, result: first ?? (await ack(), await settled) };
}

// The notices below are catalogue keys (core/i18n): `slack.notOpened` when views.open refused the
// trigger (too old, already used: nothing was lost, a new tap opens it), `slack.ownNotOpened` for
// Other… (also answered by a thread reply), `slack.noForm` when a modal cannot hold the prompt,
// `slack.forged` beside the first field of a modal whose metadata askgate did not write, and
// `slack.lateInvalid` before the problems of a submission acknowledged before its outcome was known.

/** The notice of a refused trigger, in English (every locale's is `slack.notOpened`). */
export const NOT_OPENED_NOTICE = slackText('en', 'notOpened');
/** The same for Other…, in English (`slack.ownNotOpened`). */
export const OWN_NOT_OPENED_NOTICE = slackText('en', 'ownNotOpened');
/** Beside the first field of a forged modal, in English (`slack.forged`). */
export const FORGED_FORM_ERROR = slackText('en', 'forged');

/** A tap on Answer (token kind `form`) or on Other… (kind `other`): what opening its modal needs. */
export interface FormTap {
  token: string;
  channel: string;
  user: Responder;
  triggerId: string;
  threadTs?: string;
  /** Other… on a single single-choice question: the one-field modal. */
  own: boolean;
  /** The ask's shipped locale as its message says (untrusted, checked): for a notice when the ask could not be read. */
  locale?: string;
}

/**
 * Opens the modal of a tap that was already acknowledged: checks the tap (sink.openForm), then
 * `views.open` with its trigger_id (valid once, for 3 s). A refusal (already answered, expired, not
 * for this person) is shown ephemerally instead, and so is a trigger Slack refused.
 */
export async function openFormModal(deps: SlackInboundDeps, tap: FormTap): Promise<void> {
  const say = (text: string) => ephemeral(deps, tap.channel, tap.user.userId, text, tap.threadTs);
  let opening: FormOpening;
  try {
    opening = await deps.sink.openForm({ channel: 'slack', token: tap.token, user: tap.user, chat: tap.channel });
  } catch (error) {
    deps.logger.error({ channel: 'slack', err: describeError(error) }, 'slack form could not be checked');
    return say(slackText(tap.locale ?? 'en', 'failed'));
  }
  if (opening.kind !== 'form') {
    const notice = outcomeNotice(opening);
    return notice ? say(notice) : undefined;
  }
  // The modal only this person sees speaks their language (core chose it: theirs, else the ask's).
  const words = outcomeWords(opening);
  const meta: FormMeta = {
    token: tap.token,
    channel: tap.channel,
    ...(tap.threadTs ? { thread: tap.threadTs } : {}),
    locale: words.locale,
  };
  const view =
    opening.choice.kind === 'other'
      ? ownWordsModal(opening.view, meta, words.locale)
      : formModal(opening.view, meta, words.locale);
  if (!view) return say(slackText(words.locale, 'noForm'));
  try {
    await deps.client.views.open({ trigger_id: tap.triggerId, view });
  } catch (error) {
    const code = platformErrorCode(error);
    const log = { channel: 'slack', err: describeError(error) };
    if (code && TRIGGER_ERRORS.has(code)) deps.logger.info(log, 'slack modal not opened: trigger refused');
    else deps.logger.warn(log, 'slack modal could not be opened');
    await say(slackText(words.locale, tap.own ? 'ownNotOpened' : 'notOpened'));
  }
}

type Ack = (response?: ViewResponseAction) => Promise<void>;

/** Registers the view_submission listener of askgate's modals. */
export function registerForms(app: App, deps: SlackInboundDeps): void {
  app.view<ViewSubmitAction>({ type: 'view_submission', callback_id: FORM_CALLBACK_ID }, async ({ ack, body }) => {
    await onSubmit(deps, body, ack as Ack);
  });
}

/**
 * A submitted modal: read (untrusted), then sink.submitForm. Problems go back into the modal
 * (`response_action: errors`, by block_id); any other outcome closes it and is posted ephemerally
 * in the conversation, like a tap's (a form sent after the ask ended gets the honest notice there).
 * An outcome slower than {@link SUBMIT_ACK_DEADLINE_MS} closes the modal first and is posted when known.
 */
async function onSubmit(deps: SlackInboundDeps, body: ViewSubmitAction, ack: Ack): Promise<void> {
  const meta = readMeta(body.view?.private_metadata);
  const read = readSubmission(
    body.view?.state?.values,
    choiceBlock,
    ownBlock,
    { choice: CHOICE_ACTION, own: OWN_ACTION },
    { block: valueBlock, action: VALUE_ACTION, timeZone: meta?.zone ?? 'UTC' },
  );
  if (!meta || !read) {
    deps.logger.warn({ channel: 'slack' }, 'slack form submission refused: not an askgate form');
    const first = read?.fields.choice[0] ?? read?.fields.own[0];
    const forged = slackText(meta?.locale ?? 'en', 'forged');
    return first ? ack({ response_action: 'errors', errors: { [first]: forged } }) : ack();
  }
  const failed = slackText(meta.locale ?? 'en', 'failed');
  const user = responderOf('slack', { id: body.user.id, username: usernameOf(body.user) });
  const say = (text: string) => ephemeral(deps, meta.channel, user.userId, text, meta.thread);
  const submitted = deps.sink.submitForm({
    channel: 'slack',
    token: meta.token,
    user,
    chat: meta.channel,
    answers: read.answers,
  });
  const { first, result } = await withinAck(submitted, () => ack());
  if ('error' in result) {
    deps.logger.error({ channel: 'slack', err: describeError(result.error) }, 'slack form could not be recorded');
    // Still open: the person can submit again, nothing lost.
    const block = read.fields.choice[0] ?? read.fields.own[0]!;
    if (first) return ack({ response_action: 'errors', errors: { [block]: failed } });
    return say(failed);
  }
  const outcome: InboundOutcome = result.outcome;
  if (outcome.kind === 'invalid') {
    const words = outcomeWords(outcome);
    const errors = outcome.problems
      ? errorsFor(outcome.problems, read.fields, words)
      : { [read.fields.choice[0] ?? read.fields.own[0]!]: outcome.hint };
    if (first) return ack({ response_action: 'errors', errors });
    return say(`${slackText(words.locale, 'lateInvalid')} ${outcome.hint}`);
  }
  if (first) await ack();
  const notice = outcomeNotice(outcome);
  if (notice) await say(notice);
}

/** The username of a view_submission's user: Slack sends `username` beside the `name` bolt's type declares. */
export function usernameOf(user: ViewSubmitAction['user']): string | undefined {
  const named = user as { username?: unknown; name?: unknown };
  if (typeof named.username === 'string') return named.username;
  return typeof named.name === 'string' ? named.name : undefined;
}
