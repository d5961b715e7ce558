/**
 * Browser module, typed questions (text, number, date, time, datetime, email, url): one step with
 * the matching HTML input, its constraints as attributes, the expected sentence under it, and the
 * place where askgate's refusal of a value is shown. The attributes shape the browser's controls
 * (spinners, pickers, lengths); askgate checks every value on the server (the form is `novalidate`),
 * so a refusal always reads the same as in the chats.
 */
import { el } from './app-core.js';
import { lang, t } from './app-i18n.js';

/** @typedef {import('../view.js').ConsoleQuestion} ConsoleQuestion */
/**
 * One step of the stepper. A choice step gives its labels (`values`); a typed step also gives its
 * one value with its JSON type (`value`: a number for a number question) and shows a refusal
 * beside its field (`refuse`).
 * @typedef {{ node: HTMLElement, id: string, multi: boolean, values: () => string[], focus: () => void,
 *   value?: () => number | string, refuse?: (message: string) => void }} Step
 */

/** A text question at most this long gets one line (`<input>`); a longer one a `<textarea>`. */
const SHORT_TEXT = 120;
/** A text question's maxLength when it sets none (core's TEXT_MAX_DEFAULT). */
const TEXT_DEFAULT_MAX = 1000;

/** The expected sentence in the page's language, else the ask's. @param {ConsoleQuestion} q */
export function expectedText(q) {
  const texts = q.expectedTexts;
  return texts && Object.hasOwn(texts, lang) ? texts[lang] : q.expected || '';
}

/**
 * The input of a typed question, with its constraints (a choice question has none: null).
 * @param {ConsoleQuestion} q
 * @param {string} id
 * @returns {HTMLInputElement | HTMLTextAreaElement | null}
 */
function typedInput(q, id) {
  const base = { id, autocomplete: 'off' };
  switch (q.kind) {
    case 'text': {
      const max = q.maxLength || TEXT_DEFAULT_MAX;
      const lengths = { ...base, minlength: q.minLength || null, maxlength: max };
      return max <= SHORT_TEXT
        ? el('input', { ...lengths, type: 'text' })
        : el('textarea', { ...lengths, rows: max > 400 ? 4 : 2 });
    }
    case 'number':
      return el('input', {
        ...base,
        type: 'number',
        min: q.min,
        max: q.max,
        step: q.integer ? 1 : 'any',
        inputmode: q.integer ? 'numeric' : 'decimal',
      });
    case 'date':
    case 'time':
      return el('input', { ...base, type: q.kind, min: q.min, max: q.max });
    case 'datetime':
      // A wall time without an offset ("YYYY-MM-DDTHH:MM"): askgate reads it in the ask's time zone.
      return el('input', { ...base, type: 'datetime-local', min: q.localMin, max: q.localMax });
    case 'email':
    case 'url':
      return el('input', { ...base, type: q.kind, spellcheck: 'false' });
    default:
      return null;
  }
}

/** What is shown right of the field: a number's unit, a datetime's time zone. @param {ConsoleQuestion} q @param {string} id */
function besideField(q, id) {
  if (q.kind === 'number' && q.unit) return el('span', { class: 'unit', id, text: q.unit });
  if (q.kind === 'datetime')
    return el('span', { class: 'unit', id, text: t('timeZone', { zone: q.timeZone || 'UTC' }) });
  return null;
}

/**
 * The step of a typed question, or null for a kind this page has no input for (a newer server's).
 * @param {ConsoleQuestion} q
 * @param {string} name
 * @param {(q: ConsoleQuestion, id: string | null) => (HTMLElement | null)[]} questionText
 * @returns {Step | null}
 */
export function buildTypedStep(q, name, questionText) {
  const input = typedInput(q, name + '-input');
  if (!input) return null;
  const beside = besideField(q, name + '-beside');
  const hint = el('p', { class: 'hint', id: name + '-hint', text: expectedText(q) });
  const problem = el('p', { class: 'error', id: name + '-problem' });
  input.setAttribute('aria-labelledby', name + '-q');
  input.setAttribute('aria-describedby', [beside ? beside.id : '', hint.id, problem.id].join(' ').trim());
  input.addEventListener('input', () => {
    // A change answers the refusal: the message goes once the person edits the value.
    problem.textContent = '';
    hint.hidden = false;
    input.removeAttribute('aria-invalid');
  });
  const node = el('fieldset', { class: 'step typed' }, [
    el('legend', {}, questionText(q, name + '-q')),
    el('div', { class: 'row field' }, [input, beside]),
    hint,
    problem,
  ]);
  const text = () => input.value.trim();
  return {
    node,
    id: q.id,
    multi: false,
    values: () => (text() ? [text()] : []),
    // A number goes as a JSON number (the API's `values`), whatever notation the field took ("1e3").
    value: () => (input instanceof HTMLInputElement && input.type === 'number' ? input.valueAsNumber : text()),
    focus: () => input.focus(),
    refuse(message) {
      problem.textContent = message;
      // askgate's refusal ends with the expected sentence: shown once, in red.
      const expected = hint.textContent || '';
      hint.hidden = expected !== '' && message.endsWith(expected);
      input.setAttribute('aria-invalid', 'true');
    },
  };
}
