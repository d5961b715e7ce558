// The `time` kind: a time of day ("14:30", "14h30", "2:30 pm" in English), within `min`/`max`,
// kept as HH:MM (24 h) in the ask's time zone.
import { formatTime, isIsoTime, parseTime } from './parse/index.js';
import { orderedKind, type OrderedQuestion } from './ordered-kind.js';

/** A time question: `min`/`max` are the earliest and latest times allowed (HH:MM). */
export type TimeQuestion = OrderedQuestion<'time'>;

/** The time kind. */
export const time = orderedKind({
  name: 'time',
  canonical: isIsoTime,
  form: 'a time HH:MM (24 h)',
  parse: parseTime,
  what: (words) => words.t('typed.what.zoned', { what: words.t('typed.what.time'), zone: words.timeZone }),
  example: () => '14:30',
  shown: (value, words) => formatTime(value, words.locale),
});
