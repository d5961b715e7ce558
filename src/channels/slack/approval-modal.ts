// The modals of an approval's decisions: Reject… and Request changes… ask for a reason (required),
// Edit… shows the arguments to change (one text input per flat argument, or one JSON field for
// nested ones). Built from the prompt view; a submission is read back here as untrusted data and
// decided by the sink (app/inbound-approval.ts `approvalForm`: the edit checked and hashed there).
import type { types } from '@slack/bolt';
import type { PromptView } from '../../core/prompt-view.js';
import type { DecisionMade } from '../../core/ports.js';
import type { Decision } from '../../core/approval/decisions.js';
import { wordsFor, type MessageKey } from '../../core/i18n/index.js';
import { ownValue } from '../../core/own.js';
import { ID_PREFIX } from './mrkdwn.js';
import { approvalHead, splitLine } from './approval-render.js';
import { fitPlain, modalProblem, type Modal } from './modal.js';
import { encodeMeta, type FormMeta } from './form-state.js';
import { INPUT_LABEL_MAX, MODAL_BLOCKS_MAX, MODAL_TITLE_MAX, TEXT_INPUT_MAX } from './limits.js';
import { slackText } from './words.js';

/** `callback_id` of a decision's modal: its own view_submission listener matches it. */
export const DECIDE_CALLBACK_ID = `${ID_PREFIX}decide`;
/** block_id and action_id of the reason input. */
export const REASON_BLOCK = `${ID_PREFIX}reason`;
/** block_id and action_id of the arguments' JSON input. */
export const JSON_BLOCK = `${ID_PREFIX}json`;
/** action_id of a flat argument's input. */
export const ARG_ACTION = `${ID_PREFIX}arg`;
/** block_id of the `n`th (1-based) flat argument's input, in the approval's order. */
export const argBlock = (n: number): string => `${ID_PREFIX}arg${n}`;
/** block_id of the section that shows what is decided on (action, hash). */
const HEAD_BLOCK = `${ID_PREFIX}head`;

const TITLES: Readonly<Record<Decision, MessageKey>> = {
  approve: 'control.approve',
  reject: 'control.reject',
  request_changes: 'control.requestChanges',
  edit: 'control.edit',
};

const plain = (text: string, max: number): types.PlainTextElement => ({
  type: 'plain_text',
  text: fitPlain(text, max),
  emoji: true,
});

function textInput(
  blockId: string,
  actionId: string,
  label: string,
  options: { initial?: string; optional?: boolean; multiline?: boolean },
): types.InputBlock {
  return {
    type: 'input',
    block_id: blockId,
    optional: options.optional ?? false,
    label: plain(label, INPUT_LABEL_MAX),
    element: {
      type: 'plain_text_input',
      action_id: actionId,
      multiline: options.multiline ?? true,
      max_length: TEXT_INPUT_MAX,
      ...(options.initial ? { initial_value: options.initial } : {}),
    },
  };
}

/** The inputs of an edit: one per flat argument when they fit, else the JSON field; null when neither fits. */
function editInputs(view: NonNullable<PromptView['approval']>, locale: string): types.InputBlock[] | null {
  const lines = view.lines;
  const room = MODAL_BLOCKS_MAX - 1;
  if (lines && lines.length > 0 && lines.length <= room) {
    const fields = lines.map(splitLine);
    if (fields.every((f) => f.value.length <= TEXT_INPUT_MAX))
      return fields.map((f, i) =>
        textInput(argBlock(i + 1), ARG_ACTION, f.key, {
          initial: f.value,
          optional: true,
          multiline: f.value.includes('\n'),
        }),
      );
  }
  const json = view.json ?? '{}';
  if (json.length > TEXT_INPUT_MAX) return null;
  return [textInput(JSON_BLOCK, JSON_BLOCK, slackText(locale, 'argumentsLabel'), { initial: json })];
}

/**
 * The modal of a decision that needs words (Reject…, Request changes…: a required reason; Edit…: the
 * arguments), in `locale` (the person's). Null when it cannot fit a modal: the tap then says how to
 * reply in the thread instead.
 */
export function decisionModal(view: PromptView, decision: Decision, meta: FormMeta, locale: string): Modal | null {
  const approval = view.approval;
  if (!approval || decision === 'approve') return null;
  const words = wordsFor(locale);
  const inputs =
    decision === 'edit'
      ? editInputs(approval, locale)
      : [
          textInput(
            REASON_BLOCK,
            REASON_BLOCK,
            slackText(locale, decision === 'reject' ? 'reasonLabel' : 'changesLabel'),
            {},
          ),
        ];
  if (!inputs) return null;
  const built: Modal = {
    type: 'modal',
    callback_id: DECIDE_CALLBACK_ID,
    title: plain(words.t(TITLES[decision]).replace(/…$/, ''), MODAL_TITLE_MAX),
    submit: plain(words.t('control.submit'), MODAL_TITLE_MAX),
    close: plain(words.t('control.cancel'), MODAL_TITLE_MAX),
    private_metadata: encodeMeta(meta),
    blocks: [
      { type: 'section', block_id: HEAD_BLOCK, text: { type: 'mrkdwn', text: approvalHead(approval, locale) } },
      ...inputs,
    ],
  };
  return modalProblem(built) === null ? built : null;
}

type Entry = Record<string, unknown>;

/** The text of input `blockId` (action `actionId`) in untrusted `state.values`: '' when empty, undefined when absent. */
function textOf(values: Entry, blockId: string, actionId: string): string | undefined {
  const block = ownValue(values, blockId);
  if (typeof block !== 'object' || block === null || Array.isArray(block)) return undefined;
  const input = ownValue(block as Entry, actionId);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  const value = (input as Entry).value;
  return typeof value === 'string' ? value : value === null || value === undefined ? '' : undefined;
}

/** What a decision's modal says (untrusted `state.values`), and the block to show a problem beside; null when it is not one. */
export function readDecision(values: unknown): { made: Pick<DecisionMade, 'reason' | 'edit'>; field: string } | null {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) return null;
  const state = values as Entry;
  const reason = textOf(state, REASON_BLOCK, REASON_BLOCK);
  if (reason !== undefined) return { made: { reason }, field: REASON_BLOCK };
  const json = textOf(state, JSON_BLOCK, JSON_BLOCK);
  if (json !== undefined) return { made: { edit: { json } }, field: JSON_BLOCK };
  const fields: string[] = [];
  for (let n = 1; n <= MODAL_BLOCKS_MAX; n++) {
    const text = textOf(state, argBlock(n), ARG_ACTION);
    if (text === undefined) break;
    fields.push(text);
  }
  return fields.length > 0 ? { made: { edit: { fields } }, field: argBlock(1) } : null;
}

/**
 * The block to show an edit's problem beside: the flat argument the schema's message names
 * ("does not match the schema: replicas must be <= 5", app/approval-edits.ts), else `fallback`.
 * `blocks`: the submitted view's blocks (Slack echoes them), read as untrusted.
 */
export function fieldNamed(blocks: unknown, hint: string, fallback: string): string {
  const named = /schema: ([^ ]+) /.exec(hint)?.[1];
  if (!named || !Array.isArray(blocks)) return fallback;
  const decode = (t: string) => t.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  for (const b of blocks as { block_id?: unknown; label?: { text?: unknown } }[]) {
    const id = b?.block_id;
    const label = b?.label?.text;
    if (typeof id === 'string' && id.startsWith(ARG_ACTION) && typeof label === 'string' && decode(label) === named)
      return id;
  }
  return fallback;
}
