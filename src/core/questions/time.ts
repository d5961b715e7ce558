// The `time` kind: a time of day ("14:30", "14h30", "2:30 pm" in English), within `min`/`max`,
// kept as HH:MM (24 h) in the ask's time zone.
import { z } from 'zod';
import { formatTime, isIsoTime, parseTime } from './parse/index.js';
import { englishBounds, notApplicable, typedKind, type TypedReading } from './typed-kind.js';
import type { ParseContext } from './kind.js';

/** A time question. */
export interface TimeQuestion {
  readonly kind: 'time';
  /** Earliest time allowed (HH:MM). */
  readonly min?: string;
  /** Latest time allowed (HH:MM). */
  readonly max?: string;
}

const clock = z.string('must be a time HH:MM (24 h)').refine(isIsoTime, 'must be a time HH:MM (24 h)');

const fields = {
  kind: z.literal('time'),
  min: clock.optional(),
  max: clock.optional(),
  ...notApplicable('time', ['min', 'max']),
};

function read(q: TimeQuestion, text: string, ctx: ParseContext): TypedReading {
  const parsed = parseTime(text, ctx);
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  // HH:MM compare as text.
  if ((q.min !== undefined && parsed.value < q.min) || (q.max !== undefined && parsed.value > q.max))
    return { ok: false, reason: 'range' };
  return { ok: true, value: parsed.value, literal: parsed.literal };
}

/** The time kind. */
export const time = typedKind({
  name: 'time',
  fields,
  stored: { kind: z.literal('time'), min: z.string().optional(), max: z.string().optional() },
  refine(q, ctx) {
    if (q.min !== undefined && q.max !== undefined && q.min > q.max)
      ctx.addIssue({ code: 'custom', path: ['min'], message: `must not be after max (${q.max})` });
  },
  read,
  expected: (q, words) => ({
    what: words.t('typed.what.zoned', { what: words.t('typed.what.time'), zone: words.timeZone }),
    ...(q.min !== undefined ? { min: q.min } : {}),
    ...(q.max !== undefined ? { max: q.max } : {}),
    example: q.min ?? q.max ?? '14:30',
  }),
  apiForm: (q) => `a time HH:MM (24 h)${englishBounds(q.min, q.max)}`,
  shown: (_q, value, words) => formatTime(value, words.locale),
  value: (value) => value,
});
