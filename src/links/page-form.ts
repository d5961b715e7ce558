/**
 * The answer page's form for an open ask (src/links/), drawn from core's neutral prompt view: a
 * choice as radio buttons or checkboxes with a field for the person's own words, a typed question
 * as its native input (number, date, time, datetime-local in the ask's zone, email, url, a
 * textarea for text), an approval whole (summary, action, every argument, preview, short and full
 * hash) with one button per decision offered, a reason and, for Edit, the arguments as JSON.
 * Field names: `c<i>` the chosen options of question i (0-based), `o<i>` its own words or typed
 * value, `decision`, `reason`, `arguments`, `skip`, and `guard` (the anti-forgery value).
 */
import type { AskRecord } from '../core/schemas.js';
import type { Words } from '../core/i18n/index.js';
import { choiceView, typedView, type PromptView, type TypedQuestionView } from '../core/prompt-view.js';
import { DECISION_LABELS, type Decision } from '../core/approval/decisions.js';
import { approvalView } from '../core/approval/approval-view.js';
import { instantOf, zonedIso } from '../core/questions/parse/index.js';
import { esc, userText } from './page-html.js';
import type { PageKey } from './page-words.js';

/** What the person sent and what was wrong with it, to draw the form again. */
export interface FormState {
  /** The submitted fields, filled back in. */
  sent?: URLSearchParams;
  /** A problem beside question i's field (0-based). */
  problems?: ReadonlyMap<number, string>;
  /** A problem for the whole form (an approval's, a refusal). */
  top?: string;
  /** A single choice question's option (1-based) chosen by the link (`?option=`), when nothing was sent. */
  option?: number;
}

/** Everything the form needs. */
export interface FormInput {
  record: AskRecord;
  view: PromptView;
  words: Words;
  t: (key: PageKey, params?: Record<string, string>) => string;
  guard: string;
  state: FormState;
  /** Lines above the form: time left, who answers. */
  meta: readonly string[];
}

const label = (words: Words, decision: Decision) => words.t(DECISION_LABELS[decision]).replace(/…$/, '');

/** The whole `<main>` content of an open ask. */
export function openAskBody(input: FormInput): string {
  const { record, view, t, state } = input;
  const parts: string[] = [];
  parts.push(`<h1>${esc(t('title'))}</h1>`);
  for (const line of input.meta) parts.push(`<p class="meta">${esc(line)}</p>`);
  for (const line of view.tally ?? []) parts.push(userText('p', line, 'meta'));
  if (state.top) parts.push(`<p class="problem" role="alert" dir="auto">${esc(state.top)}</p>`);
  else if (state.problems?.size) parts.push(`<p class="problem" role="alert">${esc(t('fix'))}</p>`);
  parts.push('<form method="post" action="" accept-charset="utf-8">');
  parts.push(`<input type="hidden" name="guard" value="${esc(input.guard)}">`);
  if (record.approval) parts.push(approvalFields(input));
  else {
    view.questions.forEach((q, i) => parts.push(questionFieldset(input, q, i)));
    const canSkip = (record.policy?.agree ?? 1) <= 1;
    parts.push('<div class="actions">');
    parts.push(`<button type="submit">${esc(t('send'))}</button>`);
    if (canSkip)
      parts.push(
        `<button type="submit" class="secondary" name="skip" value="1" formnovalidate>${esc(input.words.t('control.skip'))}</button>`,
      );
    parts.push('</div>');
  }
  parts.push('</form>');
  return parts.join('\n');
}

function problemLine(state: FormState, i: number): string {
  const problem = state.problems?.get(i);
  return problem ? `<p class="problem" id="p${i}" role="alert" dir="auto">${esc(problem)}</p>` : '';
}

function questionFieldset(input: FormInput, q: PromptView['questions'][number], i: number): string {
  const { state, words } = input;
  const header = q.header ? `<span class="header" dir="auto">${esc(q.header)}</span>` : '';
  const described = state.problems?.has(i) ? ` aria-describedby="p${i}"` : '';
  const out = [`<fieldset${described}>`, `<legend>${header}<span dir="auto">${esc(q.question)}</span></legend>`];
  out.push(problemLine(state, i));
  const choice = choiceView(q);
  const typed = typedView(q);
  if (choice) {
    const sentChoices = state.sent?.getAll(`c${i}`);
    const type = choice.multiSelect ? 'checkbox' : 'radio';
    choice.options.forEach((o, k) => {
      const chosen = sentChoices
        ? sentChoices.includes(String(k))
        : input.view.questions.length === 1 && state.option === k + 1;
      const id = `c${i}-${k}`;
      const desc = o.description ? `<span class="desc" dir="auto">${esc(o.description)}</span>` : '';
      out.push(
        `<div class="option"><input type="${type}" id="${id}" name="c${i}" value="${k}"${chosen ? ' checked' : ''}>` +
          `<label for="${id}"><span dir="auto">${esc(o.label)}</span>${desc}</label></div>`,
      );
    });
    const hint = words.t(choice.multiSelect ? 'form.ownMulti' : 'form.ownSingle');
    out.push(`<label class="field" for="o${i}">${esc(input.t('ownWords'))}</label>`);
    out.push(`<p class="hint" id="h${i}">${esc(hint)}</p>`);
    out.push(
      `<input type="text" id="o${i}" name="o${i}" dir="auto" maxlength="2000" aria-describedby="h${i}" value="${esc(state.sent?.get(`o${i}`) ?? '')}">`,
    );
  } else if (typed) {
    out.push(typedField(typed, i, state.sent?.get(`o${i}`) ?? '', input));
  }
  out.push('</fieldset>');
  return out.join('\n');
}

/** A typed question's native input, its constraints as attributes, what is expected as its hint. */
function typedField(q: TypedQuestionView, i: number, value: string, input: FormInput): string {
  const attrs: string[] = [`id="o${i}"`, `name="o${i}"`, 'required', `aria-describedby="h${i}"`];
  let tag = 'input';
  switch (q.kind) {
    case 'text':
      tag = 'textarea';
      attrs.push('dir="auto"');
      if (q.minLength !== undefined) attrs.push(`minlength="${q.minLength}"`);
      attrs.push(`maxlength="${q.maxLength ?? 2000}"`);
      break;
    case 'number':
      attrs.push('type="number"', `step="${q.integer ? '1' : 'any'}"`, 'inputmode="decimal"');
      if (q.min !== undefined) attrs.push(`min="${q.min}"`);
      if (q.max !== undefined) attrs.push(`max="${q.max}"`);
      break;
    case 'date':
    case 'time':
      attrs.push(`type="${q.kind}"`);
      if (q.min !== undefined) attrs.push(`min="${esc(q.min)}"`);
      if (q.max !== undefined) attrs.push(`max="${esc(q.max)}"`);
      break;
    case 'datetime':
      attrs.push('type="datetime-local"');
      if (q.min !== undefined) attrs.push(`min="${wallTime(q.min, q.timeZone)}"`);
      if (q.max !== undefined) attrs.push(`max="${wallTime(q.max, q.timeZone)}"`);
      break;
    case 'email':
      attrs.push('type="email"', 'autocomplete="email"', 'dir="ltr"');
      break;
    case 'url':
      attrs.push('type="url"', 'dir="ltr"');
      break;
  }
  const zone = q.kind === 'time' ? ` ${input.t('zone', { zone: q.timeZone })}` : '';
  const hint = `<p class="hint" id="h${i}" dir="auto">${esc(q.expected + zone)}</p>`;
  const field =
    tag === 'textarea'
      ? `<textarea ${attrs.join(' ')}>${esc(value)}</textarea>`
      : `<input ${attrs.join(' ')} value="${esc(value)}">`;
  return `<label class="field" for="o${i}">${esc(input.words.t('control.formTitle'))}</label>\n${hint}\n${field}`;
}

/** An instant as the wall time of `timeZone` a datetime-local input takes, to the minute. */
function wallTime(iso: string, timeZone: string): string {
  return esc(zonedIso(instantOf(iso), timeZone).slice(0, 16));
}

/** An approval whole, then the decisions offered as buttons with the reason and the edit fields. */
function approvalFields(input: FormInput): string {
  const { record, words, t, state } = input;
  const approval = record.approval!;
  const view = approvalView(approval);
  const out: string[] = [];
  if (view.summary) out.push(userText('p', view.summary, 'outcome'));
  out.push('<dl>');
  out.push(`<dt>${esc(words.t('approval.action', { action: '' }).replace(/[:：]\s*$/, ''))}</dt>`);
  out.push(`<dd><code dir="ltr">${esc(view.action)}</code></dd>`);
  out.push(`<dt>${esc(t('arguments'))}</dt>`);
  out.push(`<dd><pre dir="ltr">${esc(view.lines ? view.lines.join('\n') : (view.json ?? ''))}</pre></dd>`);
  if (view.preview !== undefined) {
    out.push(`<dt>${esc(words.t('approval.preview').replace(/[:：]\s*$/, ''))}</dt>`);
    out.push(`<dd><pre dir="auto">${esc(view.preview)}</pre></dd>`);
  }
  out.push(`<dt>${esc(words.t('approval.hash', { hash: view.hash }))}</dt>`);
  out.push(
    `<dd><span class="meta">${esc(t('fullHash'))}:</span> <code dir="ltr">${esc(approval.actionHash)}</code></dd>`,
  );
  out.push('</dl>');
  out.push(`<fieldset><legend>${esc(t('decision'))}</legend>`);
  out.push(`<label class="field" for="reason">${esc(t('reason'))}</label>`);
  out.push(`<p class="hint" id="reason-hint">${esc(t('reasonNeeded'))}</p>`);
  out.push(
    `<textarea id="reason" name="reason" dir="auto" maxlength="2000" aria-describedby="reason-hint">${esc(state.sent?.get('reason') ?? '')}</textarea>`,
  );
  if (view.decisions.includes('edit')) {
    const json = state.sent?.get('arguments') ?? JSON.stringify(approval.arguments, null, 2);
    out.push(`<label class="field" for="arguments">${esc(t('editArguments'))}</label>`);
    out.push(
      `<textarea id="arguments" name="arguments" class="json" dir="ltr" spellcheck="false">${esc(json)}</textarea>`,
    );
  }
  out.push('<div class="actions">');
  view.decisions.forEach((d, k) => {
    const cls = k === 0 ? '' : ' class="secondary"';
    out.push(`<button type="submit" name="decision" value="${d}"${cls}>${esc(label(words, d))}</button>`);
  });
  out.push('</div></fieldset>');
  return out.join('\n');
}
