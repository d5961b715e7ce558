// What the `date` and `time` kinds share: one canonical text value (YYYY-MM-DD, HH:MM) that orders
// as text, optional `min`/`max` bounds of the same form, read from a reply by the kind's parser.
import { z } from 'zod';
import type { Words } from '../i18n/index.js';
import type { ParseContext } from './kind.js';
import type { Parsed } from './parse/index.js';
import { englishBounds, notApplicable, typedKind, type TypedReading } from './typed-kind.js';

/** A question of an ordered kind: its name and its bounds (canonical text). */
export interface OrderedQuestion<K extends string> {
  readonly kind: K;
  readonly min?: string;
  readonly max?: string;
}

/** One ordered kind's own parts. */
export interface OrderedSpec<K extends string> {
  name: K;
  /** Whether a text is the canonical form (a bound must be). */
  canonical(text: string): boolean;
  /** The canonical form in English, for schema and API messages ("a date YYYY-MM-DD"). */
  form: string;
  parse(text: string, ctx: ParseContext): Parsed<string>;
  /** What is asked for, in `words` ("a time in Europe/Berlin"). */
  what(words: Words): string;
  /** The example when the question has no bound, in `words`. */
  example(words: Words): string;
  /** The value as shown in outcomes. */
  shown(value: string, words: Words): string;
}

/** An ordered kind made whole. */
export function orderedKind<K extends string>(spec: OrderedSpec<K>) {
  type Q = OrderedQuestion<K>;
  const bound = z.string(`must be ${spec.form}`).refine(spec.canonical, `must be ${spec.form}`);
  const read = (q: Q, text: string, ctx: ParseContext): TypedReading => {
    const parsed = spec.parse(text, ctx);
    if (!parsed.ok) return { ok: false, reason: parsed.reason };
    // The canonical forms order as text.
    if ((q.min !== undefined && parsed.value < q.min) || (q.max !== undefined && parsed.value > q.max))
      return { ok: false, reason: 'range' };
    return { ok: true, value: parsed.value, literal: parsed.literal };
  };
  return typedKind({
    name: spec.name,
    fields: {
      kind: z.literal(spec.name),
      min: bound.optional(),
      max: bound.optional(),
      ...notApplicable(spec.name, ['min', 'max']),
    },
    stored: { kind: z.literal(spec.name), min: z.string().optional(), max: z.string().optional() },
    refine(q: Q, ctx) {
      if (q.min !== undefined && q.max !== undefined && q.min > q.max)
        ctx.addIssue({ code: 'custom', path: ['min'], message: `must not be after max (${q.max})` });
    },
    read,
    expected: (q, words) => ({
      what: spec.what(words),
      ...(q.min !== undefined ? { min: q.min } : {}),
      ...(q.max !== undefined ? { max: q.max } : {}),
      example: q.min ?? q.max ?? spec.example(words),
    }),
    apiForm: (q) => `${spec.form}${englishBounds(q.min, q.max)}`,
    shown: (_q, value, words) => spec.shown(value, words),
    value: (value) => value,
  });
}
