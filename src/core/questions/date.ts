// The `date` kind: a calendar day ("2026-12-08", "12/08/2026" in the person's order, "8 de
// dezembro", "tomorrow"), within `min`/`max`, kept as YYYY-MM-DD.
import { formatDate, isIsoDate, parseDate } from './parse/index.js';
import { orderedKind, type OrderedQuestion } from './ordered-kind.js';

/** A date question: `min`/`max` are the earliest and latest days allowed (YYYY-MM-DD). */
export type DateQuestion = OrderedQuestion<'date'>;

/** The date kind. */
export const date = orderedKind({
  name: 'date',
  canonical: isIsoDate,
  form: 'a date YYYY-MM-DD',
  parse: parseDate,
  what: (words) => words.t('typed.what.date'),
  example: (words) => words.t('typed.form.date'),
  shown: (value, words) => formatDate(value, words.locale),
});
