/**
 * What a POST of the answer page means (src/links/): a skip, a decision or the form's answers as
 * the API's answer body, or the problems to show beside the fields, in the person's words. Choices
 * and typed values are read by core's form reader (core/forms.ts: the same reading as a chat
 * platform's form); a native input's value is read in its canonical form, a datetime-local's wall
 * time on the clocks of the ask's zone. The commit itself is the API's (gateway.answer).
 */
import type { AskRecord } from '../core/schemas.js';
import type { Words } from '../core/i18n/index.js';
import { readForm, type FormAnswer } from '../core/forms.js';
import { isChoice } from '../core/questions/index.js';
import { DECISIONS, NEEDS_REASON, type Decision } from '../core/approval/decisions.js';
import type { PageKey } from './page-words.js';

/** A body for the API's answer schema, or what to fix. */
export type Submission =
  { kind: 'answer'; body: Record<string, unknown> } | { kind: 'invalid'; problems: Map<number, string>; top?: string };

/** What `<input type="datetime-local">` sends: a wall time without an offset. */
const DATETIME_LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?$/;
const INDEX = /^\d{1,2}$/;

/** Reads the submitted `form` of `record` in the person's `words` (`t`: the page's own) at `now`. */
export function readSubmission(
  record: AskRecord,
  form: URLSearchParams,
  words: Words,
  t: (key: PageKey) => string,
  now: number,
): Submission {
  if (form.get('skip') !== null && !record.approval) return { kind: 'answer', body: { skip: true } };
  if (record.approval) return readDecision(record, form, words, t);
  const parts = record.questions.map((q, i): FormAnswer => {
    const own = form.get(`o${i}`) ?? undefined;
    if (isChoice(q)) {
      const choices = form.getAll(`c${i}`).map((c) => (INDEX.test(c) ? Number(c) : -1));
      return { choices, ...(own !== undefined ? { own } : {}) };
    }
    // A native input's canonical value, except a datetime-local's wall time (read in the ask's zone).
    const canonical = !(q.kind === 'datetime' && own !== undefined && DATETIME_LOCAL.test(own.trim()));
    return { choices: [], own: own ?? '', canonical };
  });
  const parse = { locales: ['en'], timeZone: record.timeZone ?? 'UTC', now, strict: false };
  const reading = readForm(record.questions, parts, words, parse);
  if (reading.kind === 'invalid')
    return { kind: 'invalid', problems: new Map(reading.problems.map((p) => [p.question, p.message])) };
  return { kind: 'answer', body: { answers: reading.answers } };
}

/** A decision button's submission: the decision offered, its reason and, for Edit, the arguments as JSON. */
function readDecision(record: AskRecord, form: URLSearchParams, words: Words, t: (key: PageKey) => string): Submission {
  const offered = record.approval!.decisions;
  const decision = form.get('decision') as Decision | null;
  if (decision === null || !DECISIONS.includes(decision) || !offered.includes(decision))
    return { kind: 'invalid', problems: new Map(), top: words.t('form.shape') };
  const reason = form.get('reason')?.trim() ?? '';
  if (NEEDS_REASON.has(decision) && reason === '')
    return { kind: 'invalid', problems: new Map(), top: t('needReason') };
  const body: Record<string, unknown> = { decision, ...(reason !== '' ? { reason } : {}) };
  if (decision === 'edit') {
    let args: unknown;
    try {
      args = JSON.parse(form.get('arguments') ?? '');
    } catch {
      args = undefined;
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      return { kind: 'invalid', problems: new Map(), top: t('editJson') };
    body.arguments = args;
  }
  return { kind: 'answer', body };
}
