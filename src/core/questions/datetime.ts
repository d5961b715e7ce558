// The `datetime` kind: a date and a time ("2026-12-08 14:30", "amanhã às 14h", ISO with an
// offset), within `min`/`max` (instants), kept as ISO 8601 with the offset of the ask's time zone.
import { z } from 'zod';
import { formatDateTime, instantOf, isIsoDateTime, parseDateTime, zonedIso } from './parse/index.js';
import { englishBounds, notApplicable, typedKind, type TypedReading } from './typed-kind.js';
import type { ParseContext } from './kind.js';

/** A date-and-time question. */
export interface DateTimeQuestion {
  readonly kind: 'datetime';
  /** Earliest instant allowed (ISO 8601 with an offset). */
  readonly min?: string;
  /** Latest instant allowed (ISO 8601 with an offset). */
  readonly max?: string;
}

const instant = z
  .string('must be an ISO 8601 date-time with an offset, e.g. 2026-12-08T14:30:00+01:00')
  .refine(isIsoDateTime, 'must be an ISO 8601 date-time with an offset, e.g. 2026-12-08T14:30:00+01:00');

const fields = {
  kind: z.literal('datetime'),
  min: instant.optional(),
  max: instant.optional(),
  ...notApplicable('datetime', ['min', 'max']),
};

function read(q: DateTimeQuestion, text: string, ctx: ParseContext): TypedReading {
  const parsed = parseDateTime(text, ctx);
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  const at = instantOf(parsed.value);
  if ((q.min !== undefined && at < instantOf(q.min)) || (q.max !== undefined && at > instantOf(q.max)))
    return { ok: false, reason: 'range' };
  return { ok: true, value: parsed.value, literal: parsed.literal };
}

/** An instant as people may type it back: "YYYY-MM-DD HH:MM" in the ask's time zone. */
const typable = (iso: string, timeZone: string): string =>
  zonedIso(instantOf(iso), timeZone).slice(0, 16).replace('T', ' ');

/** The datetime kind. */
export const datetime = typedKind({
  name: 'datetime',
  fields,
  stored: { kind: z.literal('datetime'), min: z.string().optional(), max: z.string().optional() },
  refine(q, ctx) {
    if (q.min !== undefined && q.max !== undefined && instantOf(q.min) > instantOf(q.max))
      ctx.addIssue({ code: 'custom', path: ['min'], message: `must not be after max (${q.max})` });
  },
  read,
  expected(q, words) {
    const shown = (iso: string) => formatDateTime(iso, words.locale, words.timeZone);
    const first = q.min ?? q.max;
    return {
      what: words.t('typed.what.zoned', { what: words.t('typed.what.datetime'), zone: words.timeZone }),
      ...(q.min !== undefined ? { min: shown(q.min) } : {}),
      ...(q.max !== undefined ? { max: shown(q.max) } : {}),
      example: first !== undefined ? typable(first, words.timeZone) : words.t('typed.form.datetime'),
    };
  },
  apiForm: (q) => `an ISO 8601 date-time with an offset like 2026-12-08T14:30:00+01:00${englishBounds(q.min, q.max)}`,
  shown: (_q, value, words) => formatDateTime(value, words.locale, words.timeZone),
  value: (value) => value,
});
