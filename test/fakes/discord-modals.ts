/**
 * Discord modals as the fake models them: the checks Discord runs on an interaction callback of
 * type 9 (MODAL), and the MODAL_SUBMIT components a person's client sends back. Shapes follow
 * discord-api-types 0.38 (`APIModalInteractionResponseCallbackData`, `APILabelComponent`,
 * `APIRadioGroupComponent`, `APICheckboxGroupComponent`, `APITextInputComponent`; on submit
 * `ModalSubmitLabelComponent` with `APIModalSubmitRadioGroupComponent` {value: string | null},
 * `APIModalSubmitCheckboxGroupComponent` {values: string[]}, `APIModalSubmitTextInputComponent`
 * {value: string}) and Discord's component reference (limits below).
 */

/** The modal callback's limits (Discord: "Between 1 and 5 components"; title and labels ≤ 45). */
export const MODAL = {
  components: 5,
  title: 45,
  customId: 100,
  label: 45,
  description: 100,
  optionText: 100,
  radioOptions: [2, 10],
  checkboxOptions: [1, 10],
  text: 4000,
  placeholder: 100,
} as const;

const LABEL = 18;
const TEXT_DISPLAY = 10;
const ACTION_ROW = 1;
const TEXT_INPUT = 4;
const RADIO_GROUP = 21;
const CHECKBOX_GROUP = 22;
const CHECKBOX = 23;

/** A modal as the fake keeps it: the callback's data with every component's `id` assigned. */
export interface StoredModal {
  custom_id: string;
  title: string;
  components: any[];
}

/** What a person enters, by field `custom_id`: a radio value (or null), checkbox values, or text. */
export type ModalValues = Record<string, string | null | string[]>;

const isText = (v: unknown, min: number, max: number) => typeof v === 'string' && v.length >= min && v.length <= max;
const optionalText = (v: unknown, max: number) => v === undefined || isText(v, 0, max);
const isInt = (v: unknown, min: number, max: number) =>
  Number.isInteger(v) && (v as number) >= min && (v as number) <= max;

/** The 50035 `errors` of a modal callback's `data`, keyed by field path; null when Discord would accept it. */
export function modalErrors(data: any): Record<string, string> | null {
  const errors: Record<string, string> = {};
  const err = (path: string, message: string) => (errors[path] ??= message);
  if (!isText(data?.custom_id, 1, MODAL.customId)) err('data.custom_id', 'Must be between 1 and 100 in length.');
  if (!isText(data?.title, 1, MODAL.title)) err('data.title', 'Must be between 1 and 45 in length.');
  const top: any[] = Array.isArray(data?.components) ? data.components : [];
  if (top.length < 1 || top.length > MODAL.components) err('data.components', 'Must be between 1 and 5 in length.');
  const ids = new Set<string>();
  const customId = (path: string, c: any) => {
    if (!isText(c.custom_id, 1, MODAL.customId)) err(`${path}.custom_id`, 'Must be between 1 and 100 in length.');
    else if (ids.has(c.custom_id)) err(`${path}.custom_id`, 'Component custom id is duplicated.');
    ids.add(c.custom_id);
  };
  top.forEach((c, i) => {
    const path = `data.components.${i}`;
    if (c?.type === TEXT_DISPLAY) {
      if (!isText(c.content, 1, MODAL.text)) err(`${path}.content`, 'Must be between 1 and 4000 in length.');
    } else if (c?.type === ACTION_ROW) {
      // Legacy: one text input with its own label.
      const inner = c.components?.[0];
      if (c.components?.length !== 1 || inner?.type !== TEXT_INPUT)
        err(path, 'A modal action row holds one text input.');
      else {
        if (!isText(inner.label, 1, MODAL.label))
          err(`${path}.components.0.label`, 'Must be between 1 and 45 in length.');
        textInputErrors(`${path}.components.0`, inner, err, customId);
      }
    } else if (c?.type === LABEL) {
      if (!isText(c.label, 1, MODAL.label)) err(`${path}.label`, 'Must be between 1 and 45 in length.');
      if (!optionalText(c.description, MODAL.description) || c.description === '')
        err(`${path}.description`, 'Must be between 1 and 100 in length.');
      const inner = c.component;
      const at = `${path}.component`;
      if (inner?.type === TEXT_INPUT) textInputErrors(at, inner, err, customId);
      else if (inner?.type === RADIO_GROUP || inner?.type === CHECKBOX_GROUP) groupErrors(at, inner, err, customId);
      else if (inner?.type === CHECKBOX) customId(at, inner);
      else err(at, 'The fake models Label children of type 4, 21, 22 and 23 only.');
    } else err(path, `Component type ${c?.type} is not valid in a modal.`);
  });
  return Object.keys(errors).length > 0 ? errors : null;
}

function textInputErrors(
  path: string,
  c: any,
  err: (p: string, m: string) => void,
  customId: (p: string, c: any) => void,
) {
  customId(path, c);
  if (c.style !== 1 && c.style !== 2) err(`${path}.style`, 'Value must be one of {1, 2}.');
  if (c.min_length !== undefined && !isInt(c.min_length, 0, MODAL.text))
    err(`${path}.min_length`, 'Must be between 0 and 4000.');
  if (c.max_length !== undefined && !isInt(c.max_length, 1, MODAL.text))
    err(`${path}.max_length`, 'Must be between 1 and 4000.');
  if ((c.min_length ?? 0) > (c.max_length ?? MODAL.text)) err(`${path}.min_length`, 'Must be at most max_length.');
  if (!optionalText(c.placeholder, MODAL.placeholder)) err(`${path}.placeholder`, 'Must be 100 or fewer in length.');
  if (!optionalText(c.value, MODAL.text)) err(`${path}.value`, 'Must be 4000 or fewer in length.');
  if (c.required !== undefined && typeof c.required !== 'boolean') err(`${path}.required`, 'Must be a boolean.');
}

function groupErrors(path: string, c: any, err: (p: string, m: string) => void, customId: (p: string, c: any) => void) {
  customId(path, c);
  const radio = c.type === RADIO_GROUP;
  const [min, max] = radio ? MODAL.radioOptions : MODAL.checkboxOptions;
  const options: any[] = Array.isArray(c.options) ? c.options : [];
  if (options.length < min || options.length > max)
    err(`${path}.options`, `Must be between ${min} and ${max} in length.`);
  const values = new Set<string>();
  options.forEach((o, j) => {
    const at = `${path}.options.${j}`;
    if (!isText(o?.label, 1, MODAL.optionText)) err(`${at}.label`, 'Must be between 1 and 100 in length.');
    if (!isText(o?.value, 1, MODAL.optionText)) err(`${at}.value`, 'Must be between 1 and 100 in length.');
    if (!optionalText(o?.description, MODAL.optionText)) err(`${at}.description`, 'Must be 100 or fewer in length.');
    if (values.has(o?.value)) err(`${at}.value`, 'Option values must be unique.');
    values.add(o?.value);
  });
  const defaults = options.filter((o) => o?.default === true).length;
  if (radio) {
    if (defaults > 1) err(`${path}.options`, 'At most one option may be selected by default.');
    return;
  }
  const minValues = c.min_values ?? 1;
  const maxValues = c.max_values ?? options.length;
  if (!isInt(minValues, 0, 10)) err(`${path}.min_values`, 'Must be between 0 and 10.');
  if (!isInt(maxValues, 1, 10)) err(`${path}.max_values`, 'Must be between 1 and 10.');
  if (minValues > maxValues || maxValues > options.length)
    err(`${path}.max_values`, 'Must be at least min_values and at most the number of options.');
  if (c.min_values === 0 && c.required !== false)
    err(`${path}.min_values`, 'min_values must be at least 1 unless required is false.');
  if (defaults > maxValues) err(`${path}.options`, 'More options selected by default than max_values.');
}

/** The modal with Discord's numeric component ids filled in (sequential, as Discord assigns them). */
export function storeModal(data: any): StoredModal {
  let next = 1;
  const taken = new Set<number>();
  const walk = (c: any): any => {
    const out = { ...c };
    if (out.id === undefined) {
      while (taken.has(next)) next++;
      out.id = next;
    }
    taken.add(out.id);
    if (out.component) out.component = walk(out.component);
    if (Array.isArray(out.components)) out.components = out.components.map(walk);
    return out;
  };
  return { custom_id: data.custom_id, title: data.title, components: data.components.map(walk) };
}

/**
 * The MODAL_SUBMIT `data.components` a person's client sends for `values`. A field not in `values`
 * keeps what the modal opened with, as the client sends it untouched: a text input's pre-filled
 * `value`, the options selected by `default`. Throws for what the real client does not let a person
 * do (a value not offered, too few or too many checks, an empty required field, text over its
 * limits): a test that needs such a payload forges it with `rawModalSubmit`.
 */
export function submission(modal: StoredModal, values: ModalValues): any[] {
  const known = new Set<string>();
  const preset = (c: any): string | string[] | null | undefined => {
    if (c.type === TEXT_INPUT) return c.value;
    const picked = ((c.options ?? []) as any[]).filter((o) => o.default === true).map((o) => o.value as string);
    if (c.type === RADIO_GROUP) return picked[0];
    return picked.length > 0 ? picked : undefined;
  };
  const field = (c: any) => {
    known.add(c.custom_id);
    const given = Object.hasOwn(values, c.custom_id) ? values[c.custom_id] : preset(c);
    if (c.type === TEXT_INPUT) {
      const text = typeof given === 'string' ? given : '';
      if (given !== undefined && typeof given !== 'string') throw new Error(`${c.custom_id} takes text`);
      if (text.length > (c.max_length ?? MODAL.text) || (text.length > 0 && text.length < (c.min_length ?? 0)))
        throw new Error(`${c.custom_id}: the client keeps text within its length limits`);
      if (text === '' && c.required !== false) throw new Error(`${c.custom_id} is required`);
      return { type: TEXT_INPUT, id: c.id, custom_id: c.custom_id, value: text };
    }
    const offered = new Set((c.options as any[]).map((o) => o.value));
    if (c.type === RADIO_GROUP) {
      const value = given === undefined ? null : given;
      if (value !== null && (typeof value !== 'string' || !offered.has(value)))
        throw new Error(`${c.custom_id}: the client offers only its options`);
      if (value === null && c.required !== false) throw new Error(`${c.custom_id} is required`);
      return { type: RADIO_GROUP, id: c.id, custom_id: c.custom_id, value };
    }
    if (c.type === CHECKBOX_GROUP) {
      const chosen = given === undefined || given === null ? [] : Array.isArray(given) ? given : [given];
      if (chosen.some((v) => !offered.has(v))) throw new Error(`${c.custom_id}: the client offers only its options`);
      // A group that is not required may stay empty; anything chosen keeps within min..max.
      const empty = chosen.length === 0 && c.required === false;
      if (!empty && (chosen.length < (c.min_values ?? 1) || chosen.length > (c.max_values ?? offered.size)))
        throw new Error(`${c.custom_id}: the client keeps the count within min_values..max_values`);
      return { type: CHECKBOX_GROUP, id: c.id, custom_id: c.custom_id, values: [...chosen] };
    }
    throw new Error(`the fake does not submit component type ${c.type}`);
  };
  const components = modal.components.map((c) => {
    if (c.type === LABEL) return { type: LABEL, id: c.id, component: field(c.component) };
    if (c.type === ACTION_ROW) return { type: ACTION_ROW, id: c.id, components: c.components.map(field) };
    return { type: c.type, id: c.id };
  });
  for (const id of Object.keys(values)) if (!known.has(id)) throw new Error(`the modal has no field ${id}`);
  return components;
}

/**
 * A modal as a person sees it, in text (docs/forms-discord.md shows it): the title, each Label with
 * its description (`*` marks a required field, as Discord's red asterisk), radio options `◯` (`◉`
 * selected), checkboxes `☐` (`☑` ticked) with how many may be ticked, text inputs as a box with
 * their lengths and their placeholder or pre-filled text, then Cancel and Submit.
 */
export function modalText(modal: StoredModal): string {
  const out = [`╔ ${modal.title}`];
  const field = (label: string, description: string | undefined, c: any) => {
    const required =
      c.type === TEXT_INPUT || c.type === RADIO_GROUP
        ? c.required !== false
        : c.required !== false && (c.min_values ?? 1) > 0;
    out.push(`║ ${label}${required ? ' *' : ''}`);
    if (description) out.push(`║   ${description}`);
    const about = (o: any) => `${o.label}${o.description ? ` — ${o.description}` : ''}`;
    if (c.type === RADIO_GROUP) for (const o of c.options) out.push(`║   ${o.default ? '◉' : '◯'} ${about(o)}`);
    if (c.type === CHECKBOX_GROUP) {
      for (const o of c.options) out.push(`║   ${o.default ? '☑' : '☐'} ${about(o)}`);
      out.push(`║   (tick ${c.min_values ?? 1} to ${c.max_values ?? c.options.length})`);
    }
    if (c.type === TEXT_INPUT) {
      const lengths =
        c.min_length > 1 && c.max_length
          ? `, ${c.min_length} to ${c.max_length} characters`
          : c.max_length
            ? `, up to ${c.max_length} characters`
            : '';
      // Grey placeholder text inside the empty box, or the text it opens with.
      const inside = c.value ? `: ${c.value}` : c.placeholder ? ` (greyed: ${c.placeholder})` : '';
      out.push(`║   [${c.style === 2 ? ' paragraph' : ' one line'}${lengths}${inside} ]`);
    }
    out.push('║');
  };
  for (const c of modal.components) {
    if (c.type === LABEL) field(c.label, c.description, c.component);
    else if (c.type === ACTION_ROW) field(c.components[0].label, undefined, c.components[0]);
    else if (c.type === TEXT_DISPLAY) out.push(`║ ${c.content}`, '║');
  }
  out.push('╚ [Cancel]  [Submit]');
  return out.join('\n');
}
