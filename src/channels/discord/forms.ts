import {
  DiscordAPIError,
  MessageFlags,
  RateLimitError,
  type ButtonInteraction,
  type ModalSubmitInteraction,
} from 'discord.js';
import type { ButtonPressed, FormOpening, InboundOutcome, InboundSink, Logger } from '../../core/ports.js';
import { outcomeNotice, outcomeWords } from '../../core/notices.js';
import { chooseLocale, translate } from '../../core/i18n/index.js';
import { discordText } from './words.js';
import { decodeToken } from '../../core/token.js';
import { describeError } from '../shared/errors.js';
import { LABEL_MAX, MODAL_OPEN_BUDGET_MS, NO_MENTIONS, type MessageJson } from './limits.js';
import { formModal, ownWordsModal } from './modal.js';
import { readModal, SHARED_OWN_UNCLEAR, type SubmittedField } from './modal-read.js';
import { ModalMemory, prefilled } from './modal-memory.js';
import { decisionLabel, decisionModal } from './approval-modal.js';
import { decisionOf, submitDecision } from './approval-submit.js';
import { noticeText } from './render.js';
import { responderOf } from './responder.js';
import { shorten } from '../../core/text.js';

const CHANNEL = 'discord';
// Notices are catalogue keys (core/i18n), in the person's language: `form.tooSlow` when the checks
// before a modal took longer than the budget (Discord would refuse a modal sent later),
// `form.doesNotFit` when the prompt's form does not fit a Discord modal (it keeps the text form),
// `form.tapAgain` / `form.tapOtherAgain` after a form's problems (a modal cannot be shown again
// from its own submission), `form.notValid`, `discord.failed`.

/** {@link OPEN_TOO_SLOW} and the rest below: the English texts (tests and docs compare with them). */
export const OPEN_TOO_SLOW = translate('en', 'form.tooSlow');
/** `form.doesNotFit` in English. */
export const FORM_DOES_NOT_FIT = translate('en', 'form.doesNotFit');
/** `form.tapAgain` in English. */
export const TAP_AGAIN = translate('en', 'form.tapAgain');
/** `form.tapOtherAgain` in English. */
export const TAP_OTHER_AGAIN = translate('en', 'form.tapOtherAgain');

/** What {@link DiscordForms} needs. */
export interface DiscordFormsDeps {
  sink: InboundSink;
  logger: Logger;
  /** How long the checks before a modal may take (default {@link MODAL_OPEN_BUDGET_MS}). */
  openBudgetMs?: number;
}

/** True for a button that opens a modal: Answer (`form`), Other… (`other`), an approval's Reject…, Request changes…, Edit…. Untrusted data: decoded only. */
export function opensModal(customId: string): boolean {
  const choice = decodeToken(customId)?.choice;
  if (choice?.kind === 'decide') return choice.decision !== 'approve';
  return choice?.kind === 'form' || choice?.kind === 'other';
}

/**
 * Discord's native forms: the Answer and Other… buttons, and an approval's Reject…, Request
 * changes… and Edit… (approval-modal.ts), open a modal (its first and only response), and the
 * modal's submission answers (or decides) like a tap: acknowledged first (deferred update), then the
 * commit, then an ephemeral notice.
 */
export class DiscordForms {
  /** What people submitted, to re-open a refused form with it (modal-memory.ts). */
  private readonly memory = new ModalMemory();

  constructor(private readonly deps: DiscordFormsDeps) {}

  /**
   * Opens the modal of an Answer, Other…, Reject…, Request changes… or Edit… tap. A modal must be the interaction's first response
   * (it cannot follow a deferral), so the ask is checked first, within a budget; past it, or when
   * the check refuses, the person gets an ephemeral notice instead and no modal.
   */
  async open(interaction: ButtonInteraction): Promise<void> {
    const event = this.event(interaction);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), this.deps.openBudgetMs ?? MODAL_OPEN_BUDGET_MS);
    });
    let opening: FormOpening | 'late' | 'failed';
    try {
      opening = await Promise.race([this.deps.sink.openForm(event), late]);
    } catch (err) {
      this.deps.logger.error(
        { channel: CHANNEL, interactionId: interaction.id, err: describeError(err) },
        'discord form open failed',
      );
      opening = 'failed';
    } finally {
      clearTimeout(timer);
    }
    if (opening === 'late' || opening === 'failed') {
      if (opening === 'late')
        this.deps.logger.warn({ channel: CHANNEL, interactionId: interaction.id }, 'discord form check too slow');
      // The ask is unknown here: the person's language (Discord always says it), else English.
      const person = chooseLocale(event.locale);
      return this.reply(
        interaction,
        opening === 'late' ? translate(person, 'form.tooSlow') : discordText(person, 'failed'),
      );
    }
    if (opening.kind !== 'form') return this.reply(interaction, outcomeNotice(opening), opening.kind === 'forbidden');
    // Only this person sees the modal: core chose their language (else the ask's).
    const words = outcomeWords(opening);
    const choice = opening.choice;
    const modal =
      choice.kind === 'decide'
        ? opening.view.approval
          ? decisionModal(opening.view.approval, choice.decision, interaction.customId, words.locale)
          : null
        : choice.kind === 'other'
          ? ownWordsModal(opening.view, interaction.customId, words.locale)
          : formModal(opening.view, interaction.customId, words.locale);
    if (!modal) return this.reply(interaction, words.t('form.doesNotFit'));
    // After a refused submission the form opens again with what this person typed in it.
    const entered = this.memory.recall(interaction.customId, interaction.user.id);
    await interaction
      .showModal(entered ? prefilled(modal.toJSON(), entered) : modal)
      .catch((err: unknown) => this.ackFailed(interaction.id, err));
  }

  /**
   * A submitted modal: deferred update first (3 s), then the form's outcome, told ephemerally. A
   * refused one is told with its problems and an Answer button that re-opens the form with what
   * was typed (Discord shows no error inside a modal and opens none from a modal's submission).
   */
  async submit(interaction: ModalSubmitInteraction): Promise<void> {
    if (!interaction.isFromMessage())
      return this.reply(interaction, translate(chooseLocale(interaction.locale), 'form.notValid'));
    // Kept before the race for the ack: every replica on the gateway gets the submission, and the
    // one that takes the next tap re-opens the form with it.
    this.memory.remember(interaction.customId, interaction.user.id, interaction.fields.fields);
    try {
      await interaction.deferUpdate();
    } catch (err) {
      // 10062: the window passed; 40060: another gateway connection took it. Either way, do nothing.
      return this.ackFailed(interaction.id, err);
    }
    const event = this.event(interaction);
    let notice: string | null;
    let forbidden = false;
    let again: MessageJson['components'] = [];
    // An approval's Reject…, Request changes… or Edit… modal decides (approval-submit.ts); any other answers.
    const decision = decisionOf(event.token);
    try {
      const outcome = decision
        ? await submitDecision(this.deps.sink, event, interaction.fields.fields, decision)
        : await this.formOutcome(event, interaction.fields.fields);
      notice = outcomeNotice(outcome);
      const other = decodeToken(event.token)?.choice.kind === 'other';
      if (outcome.kind === 'invalid') {
        // The button that opened the modal again: it re-opens with what was typed.
        const words = outcomeWords(outcome);
        const label = shorten(
          decision ? decisionLabel(decision, words.locale) : words.t(other ? 'control.other' : 'control.answer'),
          LABEL_MAX,
          'utf16',
        );
        const tapAgain = decision
          ? discordText(words.locale, 'tapAgain', { label })
          : words.t(other ? 'form.tapOtherAgain' : 'form.tapAgain');
        notice = `${notice} ${tapAgain}`;
        again = [{ type: 1, components: [{ type: 2, style: PRIMARY, label, custom_id: interaction.customId }] }];
      } else this.memory.forget(interaction.customId, interaction.user.id);
      forbidden = outcome.kind === 'forbidden';
    } catch (err) {
      this.deps.logger.error(
        { channel: CHANNEL, interactionId: interaction.id, err: describeError(err) },
        'discord form submission failed',
      );
      notice = discordText(chooseLocale(event.locale), 'failed');
    }
    if (notice === null) return;
    await interaction
      .followUp({
        content: noticeText(notice, forbidden),
        components: again,
        flags: MessageFlags.Ephemeral,
        allowedMentions: NO_MENTIONS,
      })
      .catch((err: unknown) =>
        this.deps.logger.warn(
          { channel: CHANNEL, interactionId: interaction.id, code: codeOf(err) },
          'discord follow-up failed',
        ),
      );
  }

  /** A submitted form's outcome: its answers, or what it could not read (told only when the ask would take an answer). */
  private async formOutcome(
    event: ButtonPressed,
    fields: ReadonlyMap<string, SubmittedField>,
  ): Promise<InboundOutcome> {
    const reading = readModal(fields);
    if (reading.kind === 'answers') return this.deps.sink.submitForm({ ...event, answers: reading.answers });
    const opening = await this.deps.sink.openForm(event);
    if (opening.kind !== 'form') return opening;
    const hint = reading.message === SHARED_OWN_UNCLEAR ? outcomeWords(opening).t('form.ownUnclear') : reading.message;
    return { kind: 'invalid', askId: opening.view.askId, hint, ...(opening.locale ? { locale: opening.locale } : {}) };
  }

  /** The normalised event: the token is the button's (or the modal's) custom_id; a thread counts as its parent. */
  private event(interaction: ButtonInteraction | ModalSubmitInteraction): ButtonPressed {
    const channel = interaction.channel;
    const chat = channel?.isThread() ? (channel.parentId ?? interaction.channelId) : interaction.channelId;
    return {
      channel: CHANNEL,
      token: interaction.customId,
      user: responderOf(interaction.user),
      ...(chat ? { chat } : {}),
      // The person's client language (always sent with an interaction).
      ...(interaction.locale ? { locale: interaction.locale } : {}),
    };
  }

  /** An ephemeral reply as the interaction's first response (no modal follows it). */
  private async reply(
    interaction: ButtonInteraction | ModalSubmitInteraction,
    text: string | null,
    forbidden = false,
  ): Promise<void> {
    const answer =
      text === null
        ? interaction.deferUpdate()
        : interaction.reply({
            content: noticeText(text, forbidden),
            flags: MessageFlags.Ephemeral,
            allowedMentions: NO_MENTIONS,
          });
    await answer.then(
      () => undefined,
      (err: unknown) => this.ackFailed(interaction.id, err),
    );
  }

  private ackFailed(interactionId: string, err: unknown): void {
    this.deps.logger.warn({ channel: CHANNEL, interactionId, code: codeOf(err) }, 'discord interaction ack failed');
  }
}

/** Discord's primary (blurple) button style. */
const PRIMARY = 1;

function codeOf(err: unknown): string | number {
  if (err instanceof DiscordAPIError) return err.code;
  if (err instanceof RateLimitError) return 429;
  return err instanceof Error ? err.name : 'unknown';
}
