// The modals of an approval's decisions: Reject… and Request changes… ask for a reason (required),
// Edit… shows the arguments to change (one text input per flat argument, or one JSON field for
// nested ones). Built from the prompt view; a submission is read back here as untrusted data and
// decided by the sink (`InboundSink.decide`, app/inbound-decide.ts: the edit checked and hashed there).
import type { types } from '@slack/bolt';
import type { PromptView } from '../../core/prompt-view.js';
import type { ApprovalView } from '../../core/approval/approval-view.js';
import type { Decision } from '../../core/approval/decisions.js';
import { wordsFor, type MessageKey } from '../../core/i18n/index.js';
import { ownValue } from '../../core/own.js';
import { ID_PREFIX } from './mrkdwn.js';
import { approvalHead } from './approval-render.js';
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
/** block_id prefixes of a flat argument's input (the key follows): a string kept as typed, or JSON (a number, true, null). */
const STRING_ARG = `${ID_PREFIX}as:`;
const JSON_ARG = `${ID_PREFIX}aj:`;
/** Longest key with a field of its own (a block_id holds 255 characters); a longer one: the JSON field. */
const KEY_MAX = 200;
/** block_id of a flat argument's input: how its value reads back, then its key. */
export const argBlock = (key: string, json: boolean): string => `${json ? JSON_ARG : STRING_ARG}${key}`;
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

/** Whether a typed value reads as JSON other than a string (a number, true, false, null). */
function isJsonValue(text: string): boolean {
  try {
    return typeof JSON.parse(text) !== 'string';
  } catch {
    return false;
  }
}

/** The inputs of an edit: one per flat argument when they fit, else the JSON field; null when neither fits. */
function editInputs(view: ApprovalView, locale: string): types.InputBlock[] | null {
  // The arguments exactly as proposed: the edit starts from them (lines show strings unquoted).
  const fields = view.lines ? Object.entries(view.arguments) : [];
  const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  const each =
    fields.length > 0 &&
    fields.length <= MODAL_BLOCKS_MAX - 1 &&
    fields.every(([key, value]) => key.length >= 1 && key.length <= KEY_MAX && shown(value).length <= TEXT_INPUT_MAX);
  if (each)
    return fields.map(([key, value]) =>
      textInput(argBlock(key, typeof value !== 'string'), ARG_ACTION, key, {
        initial: shown(value),
        optional: true,
        multiline: shown(value).includes('\n'),
      }),
    );
  const json = JSON.stringify(view.arguments, null, 2);
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

/** What a decision's modal says: a reason, edited arguments, or arguments that are not JSON. */
export type DecisionReading = { reason: string } | { arguments: unknown } | { notJson: true };

/** What a decision's modal says (untrusted `state.values`), and the block to show a problem beside; null when it is not one. */
export function readDecision(values: unknown): { read: DecisionReading; field: string } | null {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) return null;
  const state = values as Entry;
  const reason = textOf(state, REASON_BLOCK, REASON_BLOCK);
  if (reason !== undefined) return { read: { reason }, field: REASON_BLOCK };
  const json = textOf(state, JSON_BLOCK, JSON_BLOCK);
  if (json !== undefined) {
    try {
      return { read: { arguments: JSON.parse(json) as unknown }, field: JSON_BLOCK };
    } catch {
      return { read: { notJson: true }, field: JSON_BLOCK };
    }
  }
  const args: [string, unknown][] = [];
  let first: string | undefined;
  for (const blockId of Object.keys(state)) {
    const json = blockId.startsWith(JSON_ARG);
    if (!json && !blockId.startsWith(STRING_ARG)) continue;
    const text = textOf(state, blockId, ARG_ACTION);
    if (text === undefined) continue;
    first ??= blockId;
    const key = blockId.slice((json ? JSON_ARG : STRING_ARG).length);
    args.push([key, json && isJsonValue(text) ? (JSON.parse(text) as unknown) : text]);
  }
  // fromEntries: a key such as "__proto__" stays an own property.
  return first ? { read: { arguments: Object.fromEntries(args) }, field: first } : null;
}

const isArgBlock = (id: string) => id.startsWith(STRING_ARG) || id.startsWith(JSON_ARG);

/**
 * The block to show an edit's problem beside: the flat argument the schema's message names
 * ("Does not match the schema: replicas must be <= 5", app/approval-edits.ts), else `fallback`.
 * `blocks`: the submitted view's blocks (Slack echoes them), read as untrusted.
 */
export function fieldNamed(blocks: unknown, hint: string, fallback: string): string {
  const named = /schema: ([^ ]+) /.exec(hint)?.[1];
  if (!named || !Array.isArray(blocks)) return fallback;
  const decode = (t: string) => t.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  for (const b of blocks as { block_id?: unknown; label?: { text?: unknown } }[]) {
    const id = b?.block_id;
    const label = b?.label?.text;
    if (typeof id === 'string' && isArgBlock(id) && typeof label === 'string' && decode(label) === named) return id;
  }
  return fallback;
}
