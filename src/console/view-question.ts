// A question as the console draws it: the header shortened as in the chats and, for a typed
// question (text, number, date, time, datetime, email, url), what its HTML input needs beyond the
// question's own constraints: the expected sentence in every shipped locale and the ask's time zone.
import { displayHeader } from '../core/display-text.js';
import { LOCALES, wordsFor, wordsOf, type Words } from '../core/i18n/index.js';
import { isChoice, kindOf, type TypedViewPart } from '../core/questions/index.js';
import { instantOf, zonedIso } from '../core/questions/parse/index.js';
import type { AskRecord, Question } from '../core/schemas.js';

/** What the console adds to a typed question (a choice has none of it). */
export interface ConsoleTypedPart {
  /** "Please answer with a date between …, for example …" in the ask's locale (core's prompt view). */
  expected?: string;
  /** The same sentence in every shipped locale, for the console's own language. */
  expectedTexts?: Record<string, string>;
  /** The ask's IANA time zone: a datetime's input is a wall time in it (shown beside the field). */
  timeZone?: string;
  /**
   * A datetime's `min`/`max` as wall times in {@link timeZone}, "YYYY-MM-DDTHH:MM": what an
   * `<input type="datetime-local">` takes (its own `min`/`max` are instants with an offset).
   */
  localMin?: string;
  localMax?: string;
}

/**
 * A question as the console shows it: `header` shortened as in the chats (at most
 * `HEADER_DISPLAY_MAX` characters), the whole header in `fullHeader` when that cut it; a typed
 * question also carries {@link ConsoleTypedPart}.
 */
export type ConsoleQuestion = Question & { fullHeader?: string } & ConsoleTypedPart;

/** The console views of a record's questions. */
export function questionViews(record: Pick<AskRecord, 'questions' | 'locale' | 'timeZone'>): ConsoleQuestion[] {
  return record.questions.map((q) => {
    const shown = withHeader(q);
    return isChoice(q) ? shown : { ...shown, ...typedPart(q, record) };
  });
}

function withHeader(q: Question): ConsoleQuestion {
  if (q.header === undefined) return q;
  const shown = displayHeader(q.header);
  return shown === q.header ? q : { ...q, header: shown, fullHeader: q.header };
}

/** The expected sentence of a typed question in `words` (core's view of it). */
function expectedIn(q: Question, words: Words): string {
  return (kindOf(q).view(q, {}, words) as TypedViewPart).expected;
}

function typedPart(q: Question, record: Pick<AskRecord, 'locale' | 'timeZone'>): ConsoleTypedPart {
  const timeZone = record.timeZone ?? 'UTC';
  const part: ConsoleTypedPart = {
    expected: expectedIn(q, wordsOf(record)),
    // In the ask's time zone: a datetime's bounds are shown as wall times there, like its input.
    expectedTexts: Object.fromEntries([...LOCALES.keys()].map((tag) => [tag, expectedIn(q, wordsFor(tag, timeZone))])),
    timeZone,
  };
  if (q.kind === 'datetime') {
    if (q.min !== undefined) part.localMin = wallTime(q.min, timeZone);
    if (q.max !== undefined) part.localMax = wallTime(q.max, timeZone);
  }
  return part;
}

/** An instant as the wall time of `timeZone` a datetime-local input shows, to the minute. */
function wallTime(iso: string, timeZone: string): string {
  return zonedIso(instantOf(iso), timeZone).slice(0, 16);
}
