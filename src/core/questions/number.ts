// The `number` kind: a number in the person's notation ("3,5" in pt-BR, "1,000.5" in en), within
// `min`/`max`, whole when `integer`, shown with its `unit`.
import { z } from 'zod';
import { singleLine } from '../shown-text.js';
import { formatNumber, parseNumber } from './parse/index.js';
import { englishBounds, notApplicable, typedKind, type TypedReading } from './typed-kind.js';
import type { ParseContext } from './kind.js';

/** A number question. */
export interface NumberQuestion {
  readonly kind: 'number';
  readonly min?: number;
  readonly max?: number;
  /** Whole numbers only. */
  readonly integer?: boolean;
  /** Shown beside the number ("GB") and accepted after it in a reply. */
  readonly unit?: string;
}

/** Numbers askgate keeps: below this in size, so their text is plain digits (never an exponent) and exact. */
const LARGEST = 1e15;

const bound = z
  .number('must be a number')
  .refine((n) => Math.abs(n) < LARGEST, `must be smaller than ${LARGEST} in size`);

const fields = {
  kind: z.literal('number'),
  min: bound.optional(),
  max: bound.optional(),
  integer: z.boolean('must be true or false').optional(),
  unit: singleLine(16).optional(),
  ...notApplicable('number', ['min', 'max', 'integer', 'unit']),
};

/** A number as kept: plain decimal digits ("-0" is "0"). */
const canonical = (n: number): string => String(n === 0 ? 0 : n);

function read(q: NumberQuestion, text: string, ctx: ParseContext): TypedReading {
  const parsed = parseNumber(text, ctx, q.unit);
  if (!parsed.ok || Math.abs(parsed.value) >= LARGEST) return { ok: false, reason: 'format' };
  const n = parsed.value;
  if (q.integer && !Number.isInteger(n)) return { ok: false, reason: 'integer' };
  if ((q.min !== undefined && n < q.min) || (q.max !== undefined && n > q.max)) return { ok: false, reason: 'range' };
  return { ok: true, value: canonical(n), literal: parsed.literal };
}

/** A value inside the question's bounds to show as an example. */
function example(q: NumberQuestion): number {
  let n = q.integer ? 42 : 2.5;
  if (q.max !== undefined && n > q.max) n = q.max;
  if (q.min !== undefined && n < q.min) n = q.min;
  return n;
}

/** The number kind. */
export const number = typedKind({
  name: 'number',
  fields,
  stored: {
    kind: z.literal('number'),
    min: z.number().optional(),
    max: z.number().optional(),
    integer: z.boolean().optional(),
    unit: z.string().optional(),
  },
  refine(q, ctx) {
    if (q.min !== undefined && q.max !== undefined && q.min > q.max)
      ctx.addIssue({ code: 'custom', path: ['min'], message: `must not be above max (${q.max})` });
    if (q.integer && q.min !== undefined && q.max !== undefined && Math.ceil(q.min) > Math.floor(q.max))
      ctx.addIssue({ code: 'custom', path: ['integer'], message: 'no whole number lies between min and max' });
  },
  read,
  expected(q, words) {
    const what = words.t(q.integer ? 'typed.what.integer' : 'typed.what.number');
    const shown = (n: number) => formatNumber(n, words.locale);
    return {
      what: q.unit ? words.t('typed.what.unit', { what, unit: q.unit }) : what,
      ...(q.min !== undefined ? { min: shown(q.min) } : {}),
      ...(q.max !== undefined ? { max: shown(q.max) } : {}),
      example: formatNumber(example(q), words.locale, q.unit),
    };
  },
  apiForm: (q) =>
    `${q.integer ? 'a whole number' : 'a number'}${englishBounds(q.min?.toString(), q.max?.toString())}, written like 42 or -3.5`,
  shown: (q, value, words) => formatNumber(Number(value), words.locale, q.unit),
  value: (value) => Number(value),
  literalWords: (q) => (q.unit ? [q.unit, q.unit.toLowerCase(), q.unit.toUpperCase()] : []),
});
