import { z } from 'zod';
import { shorten } from '../core/text.js';
import { labelKey } from '../core/shown-text.js';
import { AskRequestSchema, type AskResult } from './schemas.js';
import { ElicitationRefusedError, fieldOf, oneLine, problem, quoted, type FieldMapping } from './elicitation-fields.js';

/**
 * The pure half of the elicitation bridge: an MCP `elicitation/create` form (params as plain
 * data, MCP spec 2025-11-25 / 2026-07-28) becomes askgate questions, and an askgate result
 * becomes the MCP `ElicitResult`. No MCP package is imported: the shapes are validated here.
 */

/** The MCP `ElicitResult` the bridge answers with (a number field's value is a JSON number). */
export type ElicitResult =
  | { action: 'accept'; content: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' }
  | { action: 'cancel' };

export {
  ElicitationRefusedError,
  INVALID_PARAMS,
  type ElicitationRefusal,
  type FieldMapping,
} from './elicitation-fields.js';

/** Most fields one ask holds (askgate's question limit). */
export const MAX_FIELDS = 3;
const HEADER_MAX = 60;
const QUESTION_MAX = 1000;

/** A form turned into askgate questions, with the way back. */
export interface MappedForm {
  /** The `questions` of the ask (valid for `POST /v1/asks`). */
  questions: NonNullable<z.input<typeof AskRequestSchema>['questions']>;
  /** Question id → field, in form order. */
  fields: ReadonlyMap<string, FieldMapping>;
}

const Text = z.string().max(10_000);
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

/**
 * Maps `elicitation/create` params to askgate questions: enums and booleans become choices;
 * strings, numbers and integers typed questions (text, email, url, date, datetime, number). Throws
 * {@link ElicitationRefusedError} for what askgate cannot represent: URL mode, more than 3 fields,
 * fewer than 2 or more than 4 choices, selection limits, a format other than email, uri, date and
 * date-time, a pattern RE2 cannot match, lengths a formatted value cannot be held to, texts
 * askgate refuses (control characters, duplicate or reserved labels "Other"/"Skip").
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
    const { mapping, part, title, description } = fieldOf(key, raw);
    const id = questionIdFor(key, new Set(fields.keys()));
    fields.set(id, mapping);
    const header = title ? shorten(oneLine(title), HEADER_MAX, 'utf16') : undefined;
    const own = description?.trim() || title?.trim() || (i === 0 && message ? '' : key);
    const text = i === 0 && message ? (own && own !== message ? `${message}\n\n${own}` : message) : own;
    return {
      id,
      ...(header ? { header } : {}),
      question: shorten(text, QUESTION_MAX, 'utf16'),
      ...part,
    };
  }) as MappedForm['questions'];

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

/** The value of one answered field, or undefined when it cannot be put in the field (own words for choices). */
function valueOf(
  field: FieldMapping,
  answer: readonly string[],
  typed: unknown,
): string | number | boolean | string[] | undefined {
  if (field.kind === 'typed') {
    // `values` has the JSON type (askgate 0.x results before typed kinds carry answers only).
    const value = typed ?? (field.type === 'string' ? answer[0] : Number(answer[0]));
    const fits =
      field.type === 'string' ? typeof value === 'string' : typeof value === 'number' && Number.isFinite(value);
    return answer.length === 1 && fits ? (value as string | number) : undefined;
  }
  const keys = field.labels.map(labelKey);
  const picked = answer.map((a) => keys.indexOf(labelKey(a)));
  if (picked.length === 0 || picked.some((p) => p < 0)) return undefined;
  if (field.kind === 'boolean') return picked.length === 1 ? picked[0] === 0 : undefined;
  if (field.kind === 'single') return picked.length === 1 ? field.values[picked[0]!] : undefined;
  return field.values.filter((_, i) => picked.includes(i));
}

/**
 * The MCP result of an ask: `accept` with each field's value: a choice's `const` values, booleans
 * for yes/no fields, a typed field's normalized value from the result's `values` (a number field's
 * a JSON number); `decline` for Skip; `cancel` for timeout, cancellation, supersede, undelivered,
 * and for an answer in the human's own words to a choice (an enum field cannot carry free text,
 * and the text itself is never passed on).
 */
export function elicitResultOf(form: MappedForm, result: AskResult): ElicitResult {
  if (result.status === 'no_answer') return result.reason === 'skipped' ? { action: 'decline' } : { action: 'cancel' };
  const content: [string, string | number | boolean | string[]][] = [];
  for (const [id, field] of form.fields) {
    const answer = Object.hasOwn(result.answers, id) ? result.answers[id]! : [];
    const typed = result.values && Object.hasOwn(result.values, id) ? result.values[id] : undefined;
    const value = valueOf(field, answer, typed);
    if (value === undefined) return { action: 'cancel' };
    content.push([field.key, value]);
  }
  // fromEntries defines own properties: a key such as "__proto__" stays an ordinary key.
  return { action: 'accept', content: Object.fromEntries(content) };
}
