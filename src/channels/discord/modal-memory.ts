// What a person typed into a modal, kept so the form re-opens with it after askgate refused the
// submission: Discord cannot show a field's error inside the modal nor open a modal from its own
// submission, so the person taps Answer again (on the ephemeral notice or on the question) and
// finds their text and choices in place.
import { ComponentType, type APIModalInteractionResponseCallbackData } from 'discord.js';
import { BoundedMap } from '../../core/bounded-map.js';
import type { SubmittedField } from './modal-read.js';
import { TEXT_INPUT_MAX } from './limits.js';
import { APPROVAL_FIELD } from './approval-modal.js';

/** What a person entered, by field `custom_id`: text (own words, a typed value), a radio value, checkbox values. */
export type EnteredFields = ReadonlyMap<string, string | readonly string[]>;

/** Modals remembered at most (a person and a form each): the oldest is forgotten past it. */
export const MODAL_MEMORY_MAX = 500;
/** How long what was typed is kept (it may hold anything the person wrote: kept no longer than a retry takes). */
export const MODAL_MEMORY_KEEP_MS = 30 * 60_000;

/** The fields askgate's modals have (modal.ts, modal-typed.ts): only those are kept from an untrusted submission. */
const FIELD_ID = /^(?:[qwt][1-9]|w)$/;
/** Checkbox values kept per field at most (a group has at most 10 options). */
const VALUES_MAX = 10;

/**
 * What people last typed into askgate's modals, per process, by the modal's `custom_id` (the
 * button's token: ask, version, Answer or Other…) and the person: bounded in count and age, never
 * logged. Every gateway connection receives a submission, so every replica running the gateway
 * remembers it, and whichever takes the next tap finds it.
 */
export class ModalMemory {
  private readonly entries: BoundedMap<string, { at: number; fields: EnteredFields }>;

  constructor(
    max = MODAL_MEMORY_MAX,
    private readonly keepMs = MODAL_MEMORY_KEEP_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.entries = new BoundedMap(max);
  }

  /** Keeps what `userId` submitted in modal `modalId` (untrusted: askgate's field ids only, within Discord's lengths). */
  remember(modalId: string, userId: string, submitted: ReadonlyMap<string, SubmittedField>): void {
    const fields = new Map<string, string | readonly string[]>();
    for (const [id, field] of submitted) {
      if (!FIELD_ID.test(id) && !APPROVAL_FIELD.test(id)) continue;
      if (field.type === ComponentType.TextInput && typeof field.value === 'string' && field.value !== '')
        fields.set(id, field.value.slice(0, TEXT_INPUT_MAX));
      else if (field.type === ComponentType.RadioGroup && typeof field.value === 'string')
        fields.set(id, [field.value]);
      else if (field.type === ComponentType.CheckboxGroup && Array.isArray(field.values) && field.values.length > 0)
        fields.set(id, field.values.slice(0, VALUES_MAX).map(String));
    }
    const key = keyOf(modalId, userId);
    if (fields.size === 0) this.entries.delete(key);
    else this.entries.set(key, { at: this.now(), fields });
  }

  /** What `userId` last submitted in modal `modalId`, if kept and recent. */
  recall(modalId: string, userId: string): EnteredFields | undefined {
    const key = keyOf(modalId, userId);
    const entry = this.entries.get(key);
    if (entry && this.now() - entry.at <= this.keepMs) return entry.fields;
    if (entry) this.entries.delete(key);
    return undefined;
  }

  /** Forgets what `userId` typed in modal `modalId` (their answer was taken, or the ask no longer takes one). */
  forget(modalId: string, userId: string): void {
    this.entries.delete(keyOf(modalId, userId));
  }
}

const keyOf = (modalId: string, userId: string) => `${modalId} ${userId}`;

/**
 * The modal with `entered` put back: text inputs pre-filled (`value`, when within the input's
 * lengths), radio and checkbox options that were picked selected (`default`). Fields the modal no
 * longer has, and values it does not offer, are left out.
 */
export function prefilled(
  modal: APIModalInteractionResponseCallbackData,
  entered: EnteredFields,
): APIModalInteractionResponseCallbackData {
  const components = modal.components.map((top) => {
    if (top.type !== ComponentType.Label) return top;
    const inner = top.component;
    if (!('custom_id' in inner)) return top;
    const given = entered.get(inner.custom_id);
    if (given === undefined) return top;
    if (inner.type === ComponentType.TextInput) {
      const text = typeof given === 'string' ? given : '';
      const fits = text.length >= (inner.min_length ?? 0) && text.length <= (inner.max_length ?? TEXT_INPUT_MAX);
      return text !== '' && fits ? { ...top, component: { ...inner, value: text } } : top;
    }
    if (inner.type === ComponentType.RadioGroup || inner.type === ComponentType.CheckboxGroup) {
      const picked = new Set(typeof given === 'string' ? [] : given);
      const options = inner.options.map((o) => (picked.has(o.value) ? { ...o, default: true } : o));
      // A radio group takes one default at most; a checkbox group at most its max_values.
      const defaults = options.filter((o) => o.default).length;
      const most = inner.type === ComponentType.RadioGroup ? 1 : (inner.max_values ?? options.length);
      return defaults > 0 && defaults <= most ? { ...top, component: { ...inner, options } } : top;
    }
    return top;
  });
  return { ...modal, components } as APIModalInteractionResponseCallbackData;
}
