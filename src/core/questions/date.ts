// The `date` kind: a calendar day ("2026-12-08", "12/08/2026" in the person's order, "8 de
// dezembro", "tomorrow"), within `min`/`max`, kept as YYYY-MM-DD.
import { z } from 'zod';
import { formatDate, isIsoDate, parseDate } from './parse/index.js';
import { englishBounds, notApplicable, typedKind, type TypedReading } from './typed-kind.js';
import type { ParseContext } from './kind.js';

/** A date question. */
export interface DateQuestion {
  readonly kind: 'date';
  /** Earliest day allowed (YYYY-MM-DD). */
  readonly min?: string;
  /** Latest day allowed (YYYY-MM-DD). */
  readonly max?: string;
}

const day = z.string('must be a date YYYY-MM-DD').refine(isIsoDate, 'must be a date YYYY-MM-DD');

const fields = {
  kind: z.literal('date'),
  min: day.optional(),
  max: day.optional(),
  ...notApplicable('date', ['min', 'max']),
};

function read(q: DateQuestion, text: string, ctx: ParseContext): TypedReading {
  const parsed = parseDate(text, ctx);
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  // ISO days compare as text.
  if ((q.min !== undefined && parsed.value < q.min) || (q.max !== undefined && parsed.value > q.max))
    return { ok: false, reason: 'range' };
  return { ok: true, value: parsed.value, literal: parsed.literal };
}

/** The date kind. */
export const date = typedKind({
  name: 'date',
  fields,
  stored: { kind: z.literal('date'), min: z.string().optional(), max: z.string().optional() },
  refine(q, ctx) {
    if (q.min !== undefined && q.max !== undefined && q.min > q.max)
      ctx.addIssue({ code: 'custom', path: ['min'], message: `must not be after max (${q.max})` });
  },
  read,
  expected: (q, words) => ({
    what: words.t('typed.what.date'),
    ...(q.min !== undefined ? { min: q.min } : {}),
    ...(q.max !== undefined ? { max: q.max } : {}),
    example: q.min ?? q.max ?? words.t('typed.form.date'),
  }),
  apiForm: (q) => `a date YYYY-MM-DD${englishBounds(q.min, q.max)}`,
  shown: (_q, value, words) => formatDate(value, words.locale),
  value: (value) => value,
});
