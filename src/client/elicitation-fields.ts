// One field of an MCP form-mode elicitation (a JSON Schema primitive of the MCP spec 2025-11-25 /
// 2026-07-28) as an askgate question part: enums and booleans become choices, strings, numbers and
// integers typed questions (issue 35). What askgate cannot ask over chat is refused with a reason.
import { z } from 'zod';
import { shorten } from '../core/text.js';
import { compilePattern } from '../core/questions/parse/index.js';

/** Why a form is refused (`ElicitationRefusedError.reason`). */
export type ElicitationRefusal =
  | 'url_mode'
  | 'invalid_params'
  | 'no_fields'
  | 'too_many_fields'
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

/** How one askgate question maps back to its form field. */
export type FieldMapping =
  | { kind: 'single' | 'multi'; key: string; values: readonly string[]; labels: readonly string[] }
  | { kind: 'boolean'; key: string; labels: readonly [string, string] }
  /** A typed question: the field's JSON type decides the value's (`number`/`integer`: a JSON number). */
  | { kind: 'typed'; key: string; type: 'string' | 'number' | 'integer' };

/** The askgate question part of a field: a choice's options, or a typed kind and its constraints. */
export type QuestionPart =
  | { options: { label: string }[]; multiSelect: boolean }
  | { kind: 'text'; minLength?: number; maxLength?: number; pattern?: string }
  | { kind: 'number'; min?: number; max?: number; integer?: true }
  | { kind: 'date' | 'datetime' | 'email' | 'url' };

/** A field: its mapping back, its question part, and what it shows. */
export interface MappedField {
  mapping: FieldMapping;
  part: QuestionPart;
  title?: string;
  description?: string;
}

const LABEL_MAX = 100;
/** askgate's longest text answer (a longer `maxLength` cannot bind: no answer is longer). */
const TEXT_MAX = 4000;

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
const length = z.number().int('must be a whole number').min(0, 'must not be negative');
const StringField = z.object({
  type: z.literal('string'),
  ...Described,
  minLength: length.optional(),
  maxLength: length.optional(),
  format: z.string().optional(),
  pattern: z.string().max(10_000).optional(),
  // A prefill in a form; chat has none, and a timeout is never an answer nobody gave (see the docs).
  default: z.string().optional(),
});
const NumberField = z.object({
  type: z.enum(['number', 'integer']),
  ...Described,
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  default: z.number().optional(),
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Text on one line: runs of white space as one space, trimmed. */
export const oneLine = (s: string) => s.replace(/\s+/gu, ' ').trim();
/** A property key for a message: quoted, at most 40 characters. */
export const quoted = (key: string) => JSON.stringify(shorten(key, 40));
/** The issues of a zod error on one line. */
export const problem = (error: z.ZodError) =>
  error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; ');

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

const options = (mapping: { labels: readonly string[] }, multiSelect: boolean): QuestionPart => ({
  options: mapping.labels.map((label) => ({ label })),
  multiSelect,
});

/** Each `format` of the spec, the kind that reads it, and the lengths of every value that kind keeps. */
const FORMATS: Record<
  string,
  { kind: 'email' | 'url' | 'date' | 'datetime'; what: string; shortest: number; longest: number }
> = {
  email: { kind: 'email', what: 'an email address', shortest: 5, longest: 254 }, // a@b.c … RFC 5321's path limit
  uri: { kind: 'url', what: 'a link', shortest: 8, longest: 2000 }, // http://a … askgate's longest link
  date: { kind: 'date', what: 'a date', shortest: 10, longest: 10 }, // YYYY-MM-DD
  'date-time': { kind: 'datetime', what: 'a date-time', shortest: 25, longest: 25 }, // YYYY-MM-DDTHH:MM:SS+HH:MM
};

/**
 * A string field without choices: free text (`minLength`, `maxLength`, `pattern`) or, with a
 * `format`, that kind. A format's value cannot be held to a pattern, nor to lengths that could
 * refuse a value the kind keeps (askgate checks an address by its form): those are refused.
 */
function typedString(key: string, f: z.output<typeof StringField>): QuestionPart {
  const unsupported = (message: string) =>
    new ElicitationRefusedError('unsupported_constraint', `field ${quoted(key)} ${message}`, key);
  const { minLength, maxLength, format, pattern } = f;
  if (minLength !== undefined && maxLength !== undefined && minLength > maxLength)
    throw new ElicitationRefusedError('invalid_field', `field ${quoted(key)} has minLength above maxLength`, key);
  if (format !== undefined) {
    const known = Object.hasOwn(FORMATS, format) ? FORMATS[format] : undefined;
    if (!known) throw unsupported(`has format ${quoted(format)}; askgate reads email, uri, date and date-time`);
    if (pattern !== undefined) throw unsupported(`holds ${known.what} to a pattern; askgate reads it by its format`);
    if ((minLength ?? 0) > known.shortest || (maxLength ?? Infinity) < known.longest)
      throw unsupported(
        `limits the length of ${known.what} (${minLength ?? 0} to ${maxLength ?? 'any'}); askgate reads it by its format`,
      );
    return { kind: known.kind };
  }
  if (minLength !== undefined && minLength > TEXT_MAX)
    throw unsupported(`needs at least ${minLength} characters; askgate takes answers of at most ${TEXT_MAX}`);
  if (maxLength === 0) throw unsupported('takes no characters at all');
  const part: QuestionPart & { kind: 'text' } = { kind: 'text' };
  if (minLength) part.minLength = minLength;
  if (maxLength !== undefined) part.maxLength = Math.min(maxLength, TEXT_MAX);
  if (pattern !== undefined) part.pattern = wholeMatch(key, pattern);
  return part;
}

/**
 * A JSON Schema `pattern` (matched anywhere in the value) as askgate's (RE2, matched against the
 * whole answer): wrapped in "anything before and after". One RE2 cannot compile (a backreference, a
 * lookahead: constructs that backtrack) is refused with RE2's reason.
 */
function wholeMatch(key: string, pattern: string): string {
  const whole = `(?s:.*)(?:${pattern})(?s:.*)`;
  const compiled = compilePattern(whole);
  if (!compiled.ok)
    throw new ElicitationRefusedError(
      'unsupported_constraint',
      `field ${quoted(key)} has a pattern askgate cannot match safely: ${compiled.message}`,
      key,
    );
  return whole;
}

/** One property → its mapping and question part, or a refusal naming why. */
export function fieldOf(key: string, raw: unknown): MappedField {
  const type = isObject(raw) ? raw.type : undefined;
  const invalid = (error: z.ZodError) =>
    new ElicitationRefusedError('invalid_field', `field ${quoted(key)} is not a valid field: ${problem(error)}`, key);
  if (type === 'number' || type === 'integer') {
    const f = NumberField.safeParse(raw);
    if (!f.success) throw invalid(f.error);
    const { minimum, maximum, type: numberType, title, description } = f.data;
    const part: QuestionPart = { kind: 'number' };
    if (minimum !== undefined) part.min = minimum;
    if (maximum !== undefined) part.max = maximum;
    if (numberType === 'integer') part.integer = true;
    return { mapping: { kind: 'typed', key, type: numberType }, part, title, description };
  }
  if (type === 'boolean') {
    const f = Bool.safeParse(raw);
    if (!f.success) throw invalid(f.error);
    const mapping = { kind: 'boolean', key, labels: ['Yes', 'No'] } as const;
    return { mapping, part: options(mapping, false), title: f.data.title, description: f.data.description };
  }
  if (type === 'string' && isObject(raw) && raw.enum === undefined && raw.oneOf === undefined) {
    const f = StringField.safeParse(raw);
    if (!f.success) throw invalid(f.error);
    const { title, description } = f.data;
    return { mapping: { kind: 'typed', key, type: 'string' }, part: typedString(key, f.data), title, description };
  }
  if (type === 'string') {
    const f = StringEnum.safeParse(raw);
    if (!f.success) throw invalid(f.error);
    const { oneOf, enum: values, enumNames, title, description } = f.data;
    if (!oneOf && enumNames && enumNames.length !== values!.length)
      throw new ElicitationRefusedError('invalid_field', `field ${quoted(key)} has enumNames not matching enum`, key);
    const mapping = oneOf
      ? choicesOf(
          key,
          oneOf.map((c) => c.const),
          oneOf.map((c) => c.title),
        )
      : choicesOf(key, values!, enumNames ?? values!);
    return { mapping, part: options(mapping, false), title, description };
  }
  if (type === 'array') {
    const f = ArrayEnum.safeParse(raw);
    if (!f.success) throw invalid(f.error);
    const { items, minItems, maxItems, title, description } = f.data;
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
    const mapping = { ...choices, kind: maxItems === 1 ? ('single' as const) : ('multi' as const) };
    return { mapping, part: options(mapping, mapping.kind === 'multi'), title, description };
  }
  throw new ElicitationRefusedError(
    'unsupported_field',
    `field ${quoted(key)} has type ${JSON.stringify(typeof type === 'string' ? shorten(type, 20) : (type ?? null))}`,
    key,
  );
}
