// A submitted approval modal (Reject…, Request changes…, Edit…): read, then committed through the
// sink's `decide`, which checks it like a decision through the API (issue 36).
import type { ButtonPressed, InboundOutcome, InboundSink } from '../../core/ports.js';
import type { Decision } from '../../core/approval/decisions.js';
import { outcomeWords } from '../../core/notices.js';
import { decodeToken } from '../../core/token.js';
import { readDecisionModal } from './approval-modal.js';
import type { SubmittedField } from './modal-read.js';
import { discordText } from './words.js';

/** The decision of a modal's custom_id when it is an approval's (a decision button's token), else null. */
export function decisionOf(customId: string): Decision | null {
  const choice = decodeToken(customId)?.choice;
  return choice?.kind === 'decide' ? choice.decision : null;
}

/**
 * Commits what an approval modal says. Edited arguments that are not JSON are told before any
 * commit, when the ask would still take a decision (else the honest notice: ended, not yours).
 */
export async function submitDecision(
  sink: InboundSink,
  event: ButtonPressed,
  fields: ReadonlyMap<string, SubmittedField>,
  decision: Decision,
): Promise<InboundOutcome> {
  if (!sink.decide) throw new Error('this askgate takes no decisions from forms');
  const reading = readDecisionModal(fields, decision);
  if (!('problem' in reading)) return sink.decide({ ...event, decision, ...reading });
  const opening = await sink.openForm(event);
  if (opening.kind !== 'form') return opening;
  const hint = discordText(outcomeWords(opening).locale, reading.problem);
  return { kind: 'invalid', askId: opening.view.askId, hint, ...(opening.locale ? { locale: opening.locale } : {}) };
}
