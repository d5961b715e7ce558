/**
 * Browser module, answer forms of a pending ask's card. One single-choice question gets one-click
 * option buttons (like the chat buttons); several questions, a multi-select or a typed question get
 * a stepper (radios, checkboxes or the typed question's input, app-typed.js) with one submit at the end.
 */
import { announce, apply, el, operatorName, renderCounts, request } from './app-core.js';
import { showLogin } from './app-session.js';
import { t } from './app-i18n.js';
import { buildTypedStep } from './app-typed.js';

/** @typedef {import('../view.js').ConsoleAsk} ConsoleAsk */
/** @typedef {import('../view.js').ConsoleQuestion} ConsoleQuestion */
/** @typedef {{ id: string, runId: string, root: HTMLElement, meta: HTMLElement, policy: HTMLElement, events: HTMLElement, error: HTMLElement, busy: boolean }} Card */
/** @typedef {import('./app-typed.js').Step} Step */
/** @typedef {{ skip?: boolean, answers?: Record<string, string[]>, values?: Record<string, number | string>, decision?: string, reason?: string, arguments?: unknown, by?: string }} AnswerBody */
/** @typedef {{ question: string, message: string }} FieldProblem A refused typed value (console/typed-answers.ts). */

/**
 * The header is shortened as in the chats; a cut one shows whole as a tooltip.
 * @param {ConsoleQuestion} q
 * @param {string | null} id
 */
export function questionText(q, id) {
  return [
    q.header ? el('span', { class: 'chip', text: q.header, title: q.fullHeader }) : null,
    el('span', { id, text: q.question }),
  ];
}

/** @param {{ label: string, description?: string }} o */
function optionText(o) {
  return [
    el('span', { class: 'label', text: o.label }),
    o.description ? el('span', { class: 'desc', text: o.description }) : null,
  ];
}

/** Skip, except on an ask that needs several matching answers (a skip is nobody's answer: refused). @param {Card} card @param {ConsoleAsk} ask */
function skipButton(card, ask) {
  if (ask.policy && ask.policy.agree) return null;
  return el('button', {
    type: 'button',
    class: 'secondary skip',
    text: t('skip'),
    'aria-label': t('skipLabel', { run: card.runId }),
    onclick: () => submit(card, { skip: true }),
  });
}

/** @param {Card} card @param {string} text */
export function showError(card, text) {
  card.error.textContent = text;
}

/** @param {Card} card @param {ConsoleAsk} ask @param {string} base */
export function buildQuick(card, ask, base) {
  const q = ask.questions[0];
  if (!isChoice(q)) throw new Error('not a choice');
  const ownId = base + '-own';
  const own = el('input', { id: ownId, type: 'text', maxlength: 4000, autocomplete: 'off', enterkeyhint: 'send' });
  const choices = q.options.map((o) =>
    el(
      'button',
      {
        type: 'button',
        class: 'choice',
        onclick: () => submit(card, { answers: { [q.id]: [o.label] } }),
      },
      optionText(o),
    ),
  );
  const form = el(
    'form',
    {
      class: 'own',
      onsubmit: (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        const text = own.value.trim();
        if (!text) {
          showError(card, t('writeFirst'));
          own.focus();
          return;
        }
        submit(card, { answers: { [q.id]: [text] } });
      },
    },
    [
      el('label', { for: ownId, text: t('ownWords') }),
      el('div', { class: 'row' }, [own, el('button', { type: 'submit', text: t('send') }), skipButton(card, ask)]),
    ],
  );
  return el('div', { class: 'quick' }, [
    el('p', { class: 'question' }, questionText(q, base + '-q')),
    el('div', { class: 'choices', role: 'group', 'aria-labelledby': base + '-q' }, choices),
    form,
  ]);
}

/**
 * Whether the question is a choice (`kind` left out or `choice`).
 * @param {ConsoleQuestion} q
 * @returns {q is Extract<ConsoleQuestion, { options: unknown }>}
 */
export function isChoice(q) {
  return q.kind === undefined || q.kind === 'choice';
}

/** A question of a kind this page has no input for (a newer server's): its text and the person's own words. @param {ConsoleQuestion} q @param {string} name @returns {Step} */
function buildTextStep(q, name) {
  const text = el('input', { type: 'text', id: name + '-text', maxlength: 4000, autocomplete: 'off' });
  const node = el('fieldset', { class: 'step' }, [
    el('legend', {}, questionText(q, null)),
    el('div', { class: 'opt other' }, [el('label', { for: name + '-text', text: t('otherOwn') }), text]),
  ]);
  const values = () => (text.value.trim() ? [text.value.trim()] : []);
  return { node, id: q.id, multi: false, values, focus: () => text.focus() };
}

/** @param {ConsoleQuestion} q @param {string} base @returns {Step} */
function buildStep(q, base) {
  const name = base + '-' + q.id;
  if (!isChoice(q)) return buildTypedStep(q, name, questionText) || buildTextStep(q, name);
  const kind = q.multiSelect ? 'checkbox' : 'radio';
  /** @type {HTMLInputElement[]} */
  const inputs = [];
  const rows = q.options.map((o, i) => {
    const input = el('input', { type: kind, id: name + '-' + i, name, value: o.label });
    inputs.push(input);
    return el('div', { class: 'opt' }, [input, el('label', { for: name + '-' + i }, optionText(o))]);
  });
  const other = el('input', { type: kind, id: name + '-other', name, value: '' });
  const text = el('input', {
    type: 'text',
    maxlength: 4000,
    autocomplete: 'off',
    'aria-label': t('otherOwn'),
  });
  text.addEventListener('input', () => {
    other.checked = text.value.trim() !== '';
  });
  other.addEventListener('change', () => {
    if (other.checked) text.focus();
  });
  const hint = q.multiSelect ? el('p', { class: 'hint', id: name + '-hint', text: t('chooseSeveral') }) : null;
  const node = el('fieldset', { class: 'step', 'aria-describedby': hint ? name + '-hint' : null }, [
    el('legend', {}, questionText(q, null)),
    hint,
    rows,
    el('div', { class: 'opt other' }, [other, el('label', { for: name + '-other', text: t('other') }), text]),
  ]);
  return {
    node,
    id: q.id,
    multi: q.multiSelect,
    values() {
      const out = inputs.filter((i) => i.checked).map((i) => i.value);
      if (other.checked && text.value.trim()) out.push(text.value.trim());
      return out;
    },
    focus() {
      (inputs.find((i) => i.checked) || (other.checked ? text : inputs[0])).focus();
    },
  };
}

/** @param {Card} card @param {ConsoleAsk} ask @param {string} base */
export function buildStepper(card, ask, base) {
  const steps = ask.questions.map((q) => buildStep(q, base));
  const progress = el('p', { class: 'progress' });
  const back = el('button', { type: 'button', class: 'secondary', text: t('back') });
  const next = el('button', { type: 'submit' });
  const form = el('form', { class: 'stepper', novalidate: true }, [
    progress,
    steps.map((s) => s.node),
    el('div', { class: 'row actions' }, [back, next, skipButton(card, ask)]),
  ]);
  let current = 0;
  /** @param {number} index @param {boolean} focus */
  const show = (index, focus) => {
    current = index;
    steps.forEach((s, i) => {
      s.node.hidden = i !== index;
    });
    progress.hidden = steps.length === 1;
    progress.textContent = t('progress', { n: index + 1, total: steps.length });
    back.hidden = index === 0;
    next.textContent = t(index < steps.length - 1 ? 'next' : steps.length > 1 ? 'submitMany' : 'submitOne');
    if (focus) steps[index].focus();
  };
  back.addEventListener('click', () => {
    showError(card, '');
    show(current - 1, true);
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    showError(card, '');
    const step = steps[current];
    if (step.values().length === 0) {
      if (step.refuse) step.refuse(t('typeFirst'));
      else showError(card, t(step.multi ? 'chooseMulti' : 'chooseOne'));
      step.focus();
      return;
    }
    if (current < steps.length - 1) {
      show(current + 1, true);
      return;
    }
    submit(card, answerBody(steps), (problems) => {
      // Each refused value beside its field; the first one's step is shown, what was typed is kept.
      let first = -1;
      for (const p of problems) {
        const index = steps.findIndex((s) => s.id === p.question);
        const refuse = index < 0 ? undefined : steps[index].refuse;
        if (!refuse) continue;
        refuse(p.message);
        if (first < 0 || index < first) first = index;
      }
      if (first >= 0) show(first, true);
      return first >= 0;
    });
  });
  show(0, false);
  return form;
}

/**
 * The body of the stepper's answers: a choice's labels in `answers`, a typed question's one value
 * in `values` (a number as a JSON number, as the API takes it).
 * @param {Step[]} steps
 * @returns {AnswerBody}
 */
function answerBody(steps) {
  const choice = steps.filter((s) => !s.value);
  const typed = steps.filter((s) => s.value);
  // Question ids are chosen by agents: never assigned onto a plain object (a "__proto__" would vanish).
  return {
    ...(choice.length ? { answers: Object.fromEntries(choice.map((s) => [s.id, s.values()])) } : {}),
    ...(typed.length ? { values: Object.fromEntries(typed.map((s) => [s.id, s.value ? s.value() : ''])) } : {}),
  };
}

/**
 * Sends an answer or a decision; `refused` gets askgate's refusals of typed values (and the 400's
 * body) and says whether it showed them.
 * @param {Card} card
 * @param {AnswerBody} body
 * @param {(problems: FieldProblem[], data: any) => boolean} [refused]
 */
export async function submit(card, body, refused) {
  if (card.busy) return;
  const by = operatorName();
  if (by) body.by = by;
  card.busy = true;
  card.root.setAttribute('aria-busy', 'true');
  showError(card, '');
  let res = null;
  try {
    res = await request('POST', '/console/asks/' + encodeURIComponent(card.id) + '/answer', body);
  } catch (e) {
    res = null;
  }
  card.busy = false;
  card.root.removeAttribute('aria-busy');
  if (res && res.status === 200 && res.data && res.data.ask) {
    const open = res.data.ask.status === 'pending';
    // An ask that needs several matching answers stays open: this browser's answer is one response.
    announce(t(body.skip ? 'announceSkipped' : open ? 'announceRecorded' : 'announceSent', { run: card.runId }));
    apply(res.data.ask, false);
    renderCounts();
    return;
  }
  if (res && res.status === 401) {
    showLogin(t('sessionEnded'));
    return;
  }
  if (refused && res && res.status === 400 && refused(fieldProblems(res.data), res.data)) return;
  showError(card, answerError(res));
}

/**
 * The refused typed values of a 400: askgate's own words in the page's language (`problems`), else
 * the API's message of each question it names (`issues`, English).
 * @param {any} data
 * @returns {FieldProblem[]}
 */
function fieldProblems(data) {
  const error = data && data.error ? data.error : {};
  if (Array.isArray(error.problems)) return error.problems;
  if (!Array.isArray(error.issues)) return [];
  return error.issues
    .filter((/** @type {any} */ i) => Array.isArray(i.path) && typeof i.path[1] === 'string')
    .map((/** @type {any} */ i) => ({ question: i.path[1], message: i.message }));
}

/**
 * What a card says about an answer askgate did not take, in the console's words (the API's error
 * message is English). @param {{ status: number, data: any } | null} res
 */
function answerError(res) {
  const code = res && res.data && res.data.error ? res.data.error.code : null;
  if (code === 'already_resolved') return t('answerTaken');
  if (code === 'not_found') return t('answerGone');
  if (code === 'invalid_answer' || code === 'invalid_request') return t('answerRefused');
  return t(res ? 'answerFailed' : 'noReply');
}
