import { z } from 'zod';
import { shorten } from '../core/text.js';
import { labelKey } from '../core/shown-text.js';
import { AskRequestSchema, type AskResult } from './schemas.js';

/**
 * The pure half of the elicitation bridge: an MCP `elicitation/create` form (params as plain
 * data, MCP spec 2025-11-25 / 2026-07-28) becomes askgate questions, and an askgate result
 * becomes the MCP `ElicitResult`. No MCP package is imported: the shapes are validated here.
 */

/** The MCP `ElicitResult` the bridge answers with. */
export type ElicitResult =
  | { action: 'accept'; content: Record<string, string | boolean | string[]> }
  | { action: 'decline' }
  | { action: 'cancel' };

/** Why a form is refused (`ElicitationRefusedError.reason`). */
export type ElicitationRefusal =
  | 'url_mode'
  | 'invalid_params'
  | 'no_fields'
  | 'too_many_fields'
  | 'free_text'
  | 'number'
  | 'unsupported_field'
  | 'choice_count'
  | 'unsupported_constraint'
  | 'invalid_field';

/** JSON-RPC "Invalid params": the code the MCP SDKs send back to the server for a thrown error. */
export const INVALID_PARAMS = -32602;

/**
 * A form askgate cannot represent. Thrown by the bridge before anything is asked; it carries
 * `code` (-32602) and `data`, so an MCP SDK's request handler turns it into a JSON-RPC error
 * whose message is the reason the server sees.
 */
export class ElicitationRefusedError extends Error {
  readonly code = INVALID_PARAMS;
  readonly data: { reason: ElicitationRefusal; field?: string };

  constructor(
    readonly reason: ElicitationRefusal,
    message: string,
    readonly field?: string,
  ) {
    super(`askgate cannot ask this form: ${message}`);
    this.name = 'ElicitationRefusedError';
    this.data = field === undefined ? { reason } : { reason, field };
  }
}

/** Most fields one ask holds (askgate's question limit). */
export const MAX_FIELDS = 3;
const HEADER_MAX = 60;
const LABEL_MAX = 100;
const QUESTION_MAX = 1000;

/** How one askgate question maps back to its form field. */
export type FieldMapping =
  | { kind: 'single' | 'multi'; key: string; values: readonly string[]; labels: readonly string[] }
  | { kind: 'boolean'; key: string; labels: readonly [string, string] };

/** A form turned into askgate questions, with the way back. */
export interface MappedForm {
  /** The `questions` of the ask (valid for `POST /v1/asks`). */
  questions: z.input<typeof AskRequestSchema>['questions'];
  /** Question id → field, in form order. */
  fields: ReadonlyMap<string, FieldMapping>;
}

const Text = z.string().max(10_000);
const Choice = z.object({ const: z.string(), title: Text });
const Described = { title: Text.optional(), description: Text.optional() };
const StringEnum = z.object({
  type: z.literal('string'),
  ...Described,
  enum: z.array(z.string()).optional(),
  enumNames: z.array(Text).optional(),
  oneOf: z.array(Choice).optional(),
});
const ArrayEnum = z.object({
  type: z.literal('array'),
  ...Described,
  minItems: z.number().optional(),
  maxItems: z.number().optional(),
  items: z.union([z.object({ anyOf: z.array(Choice) }), z.object({ enum: z.array(z.string()) })]),
});
const Bool = z.object({ type: z.literal('boolean'), ...Described, default: z.boolean().optional() });
const Params = z.object({
  mode: z.literal('form').optional(),
  message: Text,
  requestedSchema: z.object({
    type: z.literal('object'),
    properties: z.custom<object>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'must be an object'),
    required: z.array(z.string()).optional(),
  }),
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const oneLine = (s: string) => s.replace(/\s+/gu, ' ').trim();
const quoted = (key: string) => JSON.stringify(shorten(key, 40));
const problem = (error: z.ZodError) =>
  error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; ');

/** A snake_case question id from a property key, unique among `taken`. */
export function questionIdFor(key: string, taken: ReadonlySet<string>): string {
  let base = key
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!/^[a-z]/.test(base)) base = `f_${base}`.replace(/_+$/, '');
  base = base.slice(0, 40).replace(/_+$/, '');
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base.slice(0, 40 - String(n).length - 1)}_${n}`;
  return id;
}

/** The choices of a field: `[values, titles]`, refused unless 2–4 distinct values. */
function choicesOf(key: string, values: string[], titles: string[]): FieldMapping & { kind: 'single' } {
  if (values.length < 2 || values.length > 4)
    throw new ElicitationRefusedError(
      'choice_count',
      `field ${quoted(key)} offers ${values.length} choices; askgate asks with 2 to 4`,
      key,
    );
  if (new Set(values).size !== values.length)
    throw new ElicitationRefusedError('invalid_field', `field ${quoted(key)} repeats a value`, key);
  return { kind: 'single', key, values, labels: titles.map((t) => shorten(oneLine(t), LABEL_MAX, 'utf16')) };
}

/** One property → its mapping, or a refusal naming why. */
function fieldOf(key: string, raw: unknown): { mapping: FieldMapping; title?: string; description?: string } {
  const type = isObject(raw) ? raw.type : undefined;
  const invalid = (error: z.ZodError) =>
    new ElicitationRefusedError('invalid_field', `field ${quoted(key)} is not a valid field: ${problem(error)}`, key);
  if (type === 'number' || type === 'integer')
    throw new ElicitationRefusedError('number', `field ${quoted(key)} asks for a number; askgate offers choices`, key);
  if (type === 'boolean') {
    const f = Bool.safeParse(raw);
    if (!f.success) throw invalid(f.error);
    return { mapping: { kind: 'boolean', key, labels: ['Yes', 'No'] }, ...f.data };
  }
  if (type === 'string') {
    if (!isObject(raw) || (raw.enum === undefined && raw.oneOf === undefined))
      throw new ElicitationRefusedError(
        'free_text',
        `field ${quoted(key)} asks for free text; askgate offers choices (use enum or oneOf)`,
        key,
      );
    const f = StringEnum.safeParse(raw);
    if (!f.success) throw invalid(f.error);
    const { oneOf, enum: values, enumNames, ...shown } = f.data;
    if (oneOf)
      return {
        mapping: choicesOf(
          key,
          oneOf.map((c) => c.const),
          oneOf.map((c) => c.title),
        ),
        ...shown,
      };
    if (enumNames && enumNames.length !== values!.length)
      throw new ElicitationRefusedError('invalid_field', `field ${quoted(key)} has enumNames not matching enum`, key);
    return { mapping: choicesOf(key, values!, enumNames ?? values!), ...shown };
  }
  if (type === 'array') {
    const f = ArrayEnum.safeParse(raw);
    if (!f.success) throw invalid(f.error);
    const { items, minItems, maxItems, ...shown } = f.data;
    const [values, titles] =
      'anyOf' in items ? [items.anyOf.map((c) => c.const), items.anyOf.map((c) => c.title)] : [items.enum, items.enum];
    const choices = choicesOf(key, values, titles);
    // askgate takes at least one selection and cannot cap a multi-select below its option count.
    if ((minItems ?? 0) > 1 || (maxItems !== undefined && maxItems !== 1 && maxItems < values.length))
      throw new ElicitationRefusedError(
        'unsupported_constraint',
        `field ${quoted(key)} limits the selection (minItems ${minItems ?? 0}, maxItems ${maxItems}); askgate takes any 1 or more`,
        key,
      );
    return { mapping: { ...choices, kind: maxItems === 1 ? 'single' : 'multi' }, ...shown };
  }
  throw new ElicitationRefusedError(
    'unsupported_field',
    `field ${quoted(key)} has type ${JSON.stringify(typeof type === 'string' ? shorten(type, 20) : (type ?? null))}`,
    key,
  );
}

/**
 * Maps `elicitation/create` params to askgate questions. Throws {@link ElicitationRefusedError}
 * for what askgate cannot represent: URL mode, free text, numbers, more than 3 fields, fewer
 * than 2 or more than 4 choices, selection limits, texts askgate refuses (control characters,
 * duplicate or reserved labels "Other"/"Skip").
 */
export function mapElicitation(params: unknown): MappedForm {
  if (isObject(params) && params.mode === 'url')
    throw new ElicitationRefusedError('url_mode', 'URL-mode elicitation needs a browser; askgate asks in chat');
  const parsed = Params.safeParse(params);
  if (!parsed.success)
    throw new ElicitationRefusedError('invalid_params', `not form-mode elicitation params (${problem(parsed.error)})`);
  const entries = Object.entries(parsed.data.requestedSchema.properties as Record<string, unknown>);
  if (entries.length === 0) throw new ElicitationRefusedError('no_fields', 'the form has no fields');
  if (entries.length > MAX_FIELDS)
    throw new ElicitationRefusedError(
      'too_many_fields',
      `the form has ${entries.length} fields; askgate asks at most ${MAX_FIELDS}`,
    );

  const message = parsed.data.message.trim();
  const fields = new Map<string, FieldMapping>();
  const questions = entries.map(([key, raw], i) => {
    const { mapping, title, description } = fieldOf(key, raw);
    const id = questionIdFor(key, new Set(fields.keys()));
    fields.set(id, mapping);
    const header = title ? shorten(oneLine(title), HEADER_MAX, 'utf16') : undefined;
    const own = description?.trim() || title?.trim() || (i === 0 && message ? '' : key);
    const text = i === 0 && message ? (own && own !== message ? `${message}\n\n${own}` : message) : own;
    return {
      id,
      ...(header ? { header } : {}),
      question: shorten(text, QUESTION_MAX, 'utf16'),
      options: mapping.labels.map((label) => ({ label })),
      multiSelect: mapping.kind === 'multi',
    };
  });

  // The server's own rules (text, reserved and duplicate labels) decide the rest.
  const checked = AskRequestSchema.safeParse({ runId: 'elicitation', questions });
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const index = typeof issue.path[1] === 'number' ? issue.path[1] : 0;
    const key = [...fields.values()][index]?.key ?? '';
    const where = issue.path.slice(2).join('.');
    throw new ElicitationRefusedError(
      'invalid_field',
      `field ${quoted(key)} cannot be shown (${where || 'question'}: ${issue.message})`,
      key,
    );
  }
  return { questions, fields };
}

/** The value of one answered field, or undefined when the answer names no choice (own words). */
function valueOf(field: FieldMapping, answer: readonly string[]): string | boolean | string[] | undefined {
  const keys = field.labels.map(labelKey);
  const picked = answer.map((a) => keys.indexOf(labelKey(a)));
  if (picked.length === 0 || picked.some((p) => p < 0)) return undefined;
  if (field.kind === 'boolean') return picked.length === 1 ? picked[0] === 0 : undefined;
  if (field.kind === 'single') return picked.length === 1 ? field.values[picked[0]!] : undefined;
  return field.values.filter((_, i) => picked.includes(i));
}

/**
 * The MCP result of an ask: `accept` with each field's `const` values (booleans for yes/no
 * fields) when every answer names choices; `decline` for Skip; `cancel` for timeout,
 * cancellation, supersede, undelivered, and for an answer in the human's own words (an enum
 * field cannot carry free text, and the text itself is never passed on).
 */
export function elicitResultOf(form: MappedForm, result: AskResult): ElicitResult {
  if (result.status === 'no_answer') return result.reason === 'skipped' ? { action: 'decline' } : { action: 'cancel' };
  const content: [string, string | boolean | string[]][] = [];
  for (const [id, field] of form.fields) {
    const answer = Object.hasOwn(result.answers, id) ? result.answers[id]! : [];
    const value = valueOf(field, answer);
    if (value === undefined) return { action: 'cancel' };
    content.push([field.key, value]);
  }
  // fromEntries defines own properties: a key such as "__proto__" stays an ordinary key.
  return { action: 'accept', content: Object.fromEntries(content) };
}
