// An approval's part of a prompt: the approval drawn as one question's text (so a channel without
// an approval case shows it whole), its decisions as buttons where they fit, how to answer by reply.
import type { AskRecord } from '../schemas.js';
import type { Words } from '../i18n/index.js';
import { encodeToken } from '../token.js';
import { buttonsFitInRows, type ChannelCapabilities } from '../capabilities.js';
import { approvalText, approvalView, type ApprovalView } from './approval-view.js';
import { DECISION_LABELS, type Decision } from './decisions.js';

/** The approval as the prompt's one question (kind `approval`): its text is the whole approval. */
export interface ApprovalQuestionView {
  number: 1;
  id: 'approval';
  header?: string;
  question: string;
  kind: 'approval';
}

/** A decision button (`decision`), or Skip. */
export interface DecisionButton {
  kind: 'decision' | 'skip';
  label: string;
  token: string;
}

/** The approval's prompt parts for a channel with `capabilities`. */
export function approvalPrompt(
  record: Pick<AskRecord, 'id' | 'version'> & { approval: NonNullable<AskRecord['approval']> },
  words: Words,
  capabilities: ChannelCapabilities,
  agree: number,
): { approval: ApprovalView; question: ApprovalQuestionView; buttons: DecisionButton[] | null; instructions: string } {
  const view = approvalView(record.approval);
  const question: ApprovalQuestionView = {
    number: 1,
    id: 'approval',
    question: approvalText(view, words),
    kind: 'approval',
  };
  const token = (decision: Decision) =>
    encodeToken({ askId: record.id, version: record.version, choice: { kind: 'decide', decision } });
  const skip = encodeToken({ askId: record.id, version: record.version, choice: { kind: 'skip' } });
  const buttons: DecisionButton[] = [
    ...view.decisions.map((d): DecisionButton => ({
      kind: 'decision',
      label: words.t(DECISION_LABELS[d]),
      token: token(d),
    })),
    ...(agree > 1 ? [] : [{ kind: 'skip' as const, label: words.t('control.skip'), token: skip }]),
  ];
  const limits = capabilities.buttons;
  const fits = !!limits && buttonsFitInRows(buttons, limits);
  return {
    approval: view,
    question,
    buttons: fits ? buttons : null,
    instructions: words.t(fits ? 'approval.prompt' : 'approval.howToReply'),
  };
}
