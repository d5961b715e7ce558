// Slack modals as the fake models them: the limits views.open checks (as @slack/types documents
// them for ModalView, InputBlock, RadioButtons, Checkboxes, Option, and the typed inputs of
// slack-inputs.ts), what a person can fill in (Slack's client refuses an empty required input, text
// over max_length and the rest slack-inputs.ts lists before anything is sent), the view_submission
// `state.values` it then sends (bolt's ViewStateValue), and a text rendering of a modal for tests and docs.
import type { ViewStateValue } from '@slack/bolt';
import { checkTypedElement, fillTypedInput, isEmptyState, renderTypedInput } from './slack-inputs.js';

/** A view opened with views.open, as the fake stores it. */
export interface FakeView {
  id: string;
  /** The user whose tap gave the trigger_id: the only one who can submit it. */
  user: string;
  trigger_id: string;
  view: any;
  hash: string;
}

/** A trigger_id the fake issued in an interaction payload. */
export interface FakeTrigger {
  user: string;
  issuedAt: number;
  used: boolean;
}

/** How long a trigger_id can open a view (Slack: 3 s). */
export const TRIGGER_LIFETIME_MS = 3000;

const decode = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
const isPlain = (t: any, max: number, required = true) =>
  t === undefined
    ? !required
    : t?.type === 'plain_text' && typeof t.text === 'string' && t.text.length > 0 && t.text.length <= max;

function checkOption(o: any, seen: Set<string>): boolean {
  const textOk =
    (o?.text?.type === 'plain_text' || o?.text?.type === 'mrkdwn') &&
    typeof o.text.text === 'string' &&
    o.text.text.length > 0 &&
    o.text.text.length <= 75;
  if (!textOk || typeof o.value !== 'string' || o.value.length === 0 || o.value.length > 75) return false;
  if (seen.has(o.value)) return false;
  seen.add(o.value);
  return isPlain(o.description, 75, false);
}

function checkElement(e: any): string | null {
  if (typeof e?.action_id !== 'string' || e.action_id.length === 0 || e.action_id.length > 255) return 'action_id';
  if (e.type === 'radio_buttons' || e.type === 'checkboxes') {
    if (!Array.isArray(e.options) || e.options.length === 0 || e.options.length > 10) return 'options';
    const seen = new Set<string>();
    if (!e.options.every((o: any) => checkOption(o, seen))) return 'option';
    return null;
  }
  const typed = checkTypedElement(e);
  return typed === undefined ? 'element type' : typed;
}

/** What Slack's views.open would refuse in a modal (`invalid_arguments`), or null. */
export function checkModal(view: any): string | null {
  if (typeof view !== 'object' || view === null || view.type !== 'modal') return 'type';
  if (!isPlain(view.title, 24)) return 'title';
  if (!isPlain(view.close, 24, false)) return 'close';
  const blocks = view.blocks;
  if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > 100) return 'blocks';
  if (blocks.some((b: any) => b.type === 'input') && !isPlain(view.submit, 24)) return 'submit';
  if (!isPlain(view.submit, 24, false)) return 'submit';
  if (view.private_metadata !== undefined && String(view.private_metadata).length > 3000) return 'private_metadata';
  if (view.callback_id !== undefined && String(view.callback_id).length > 255) return 'callback_id';
  const ids = new Set<string>();
  for (const b of blocks) {
    if (b.block_id !== undefined) {
      if (typeof b.block_id !== 'string' || b.block_id.length > 255 || ids.has(b.block_id)) return 'block_id';
      ids.add(b.block_id);
    }
    if (b.type === 'input') {
      if (!isPlain(b.label, 2000) || !isPlain(b.hint, 2000, false)) return 'label';
      const problem = checkElement(b.element);
      if (problem) return problem;
    } else if (b.type === 'section') {
      if (typeof b.text?.text !== 'string' || b.text.text.length === 0 || b.text.text.length > 3000) return 'section';
    } else if (b.type !== 'context' && b.type !== 'divider' && b.type !== 'header') {
      return 'block type';
    }
  }
  return null;
}

/**
 * What a person fills in, by block_id: option texts (as shown) to select, or the text typed (a
 * number as typed, a picked date "YYYY-MM-DD" or time "HH:mm", a picked instant as ISO 8601 with
 * the offset of the person's own clocks).
 */
export type ModalFill = Record<string, string[] | string>;

/**
 * The `view.state.values` Slack sends for a filled-in modal: every input block, untouched ones with
 * null (`selected_option`, `value`, `selected_date`…) or `[]` (`selected_options`). Throws what
 * Slack's client would not let the person send: an empty required input, an unknown option, two
 * radio options, text over `max_length`, and the typed inputs' refusals (slack-inputs.ts).
 */
export function fillModal(view: any, fill: ModalFill): Record<string, Record<string, ViewStateValue>> {
  const values: Record<string, Record<string, ViewStateValue>> = {};
  const inputs = view.blocks.filter((b: any) => b.type === 'input');
  for (const key of Object.keys(fill)) {
    if (!inputs.some((b: any) => b.block_id === key)) throw new Error(`the modal has no input ${key}`);
  }
  for (const b of inputs) {
    const e = b.element;
    // An input left as it opened sends its initial_value, as Slack's client does.
    const initial = typeof e.initial_value === 'string' ? e.initial_value : undefined;
    const given: string[] | string | undefined = Object.hasOwn(fill, b.block_id) ? fill[b.block_id] : initial;
    let value: ViewStateValue;
    if (e.type !== 'radio_buttons' && e.type !== 'checkboxes') {
      if (given !== undefined && typeof given !== 'string') throw new Error(`${b.block_id} takes text`);
      const filled = fillTypedInput(b.block_id, e, given);
      if (!filled) throw new Error(`${b.block_id}: the fake cannot fill a ${e.type}`);
      value = filled;
    } else {
      const labels = given === undefined ? [] : typeof given === 'string' ? [given] : given;
      const chosen = labels.map((label) => {
        const option = e.options.find((o: any) => decode(o.text.text) === label);
        if (!option) throw new Error(`${b.block_id} has no option ${label}`);
        return { text: option.text, value: option.value };
      });
      if (e.type === 'radio_buttons') {
        if (chosen.length > 1) throw new Error(`${b.block_id}: radio buttons take one option`);
        value = { type: 'radio_buttons', selected_option: chosen[0] ?? null };
      } else value = { type: 'checkboxes', selected_options: chosen };
    }
    if (!b.optional && isEmptyState(value)) throw new Error(`${b.block_id} is required: Slack does not send the form`);
    values[b.block_id] = { [e.action_id]: value };
  }
  return values;
}

/**
 * A modal as a person sees it, as text: the title, its sections' text (mrkdwn as sent), each input's label (decoded), its options as
 * `( )` radio buttons or `[ ]` checkboxes with their descriptions, text inputs as a box, and the buttons.
 */
export function renderModal(view: any): string {
  const lines = [`┌─ ${decode(view.title.text)} ─┐`];
  for (const b of view.blocks) {
    if (b.type === 'section' && typeof b.text?.text === 'string') lines.push(decode(b.text.text));
    if (b.type !== 'input') continue;
    const e = b.element;
    lines.push(`${decode(b.label.text)}${b.optional ? ' (optional)' : ''}`);
    if (b.hint) lines.push(`  ${decode(b.hint.text)}`);
    const typed = renderTypedInput(e, decode);
    if (typed !== null) lines.push(`  ${typed}`);
    else
      for (const o of e.options) {
        const mark = e.type === 'radio_buttons' ? '( )' : '[ ]';
        lines.push(`  ${mark} ${decode(o.text.text)}${o.description ? ` — ${decode(o.description.text)}` : ''}`);
      }
  }
  lines.push(`[${view.close ? decode(view.close.text) : 'Close'}]  [${decode(view.submit?.text ?? '')}]`);
  return lines.join('\n');
}
