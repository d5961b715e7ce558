/**
 * Browser module, approvals: the card of a pending approval (summary first, the action and its
 * short hash, the arguments whole, the preview, one button per decision offered) and the facts of a
 * finished one. Reject and Request changes open a reason field, Edit a JSON editor prefilled with
 * the arguments; askgate checks both (a refusal shows beside its field, what was typed stays).
 */
import { el } from './app-core.js';
import { showError, submit } from './app-answer.js';
import { t } from './app-i18n.js';

/** @typedef {import('../view.js').ConsoleAsk} ConsoleAsk */
/** @typedef {import('../view.js').ConsoleApproval} ConsoleApproval */
/** @typedef {import('./app-answer.js').Card} Card */

/** Decisions that need the person's words (the server's NEEDS_REASON). */
const NEEDS_REASON = new Set(['reject', 'request_changes']);

/** A value as one line: strings as they are, anything else as JSON. @param {unknown} value */
function flatText(value) {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `#3fa9c2d1`, the whole hash as its title. @param {string} short @param {string} full */
export function hashChip(short, full) {
  return el('code', { class: 'hash', title: full, text: '#' + short });
}

/**
 * The arguments whole: flat ones as a key/value list, nested ones as indented JSON.
 * @param {Record<string, unknown>} args
 */
function argumentsBlock(args) {
  const entries = Object.entries(args);
  if (entries.some(([, v]) => v !== null && typeof v === 'object'))
    return el('pre', { class: 'args', text: JSON.stringify(args, null, 2) });
  return el(
    'dl',
    { class: 'facts args' },
    entries.map(([k, v]) => [el('dt', { text: k }), el('dd', { text: flatText(v) })]),
  );
}

/** The action as a person reads it before deciding. @param {ConsoleApproval} a @param {string} base */
export function approvalBody(a, base) {
  const preview = a.preview
    ? [el('p', { class: 'hint', text: t('preview') }), el('pre', { class: 'preview', text: a.preview })]
    : [];
  return [
    a.summary ? el('p', { class: 'question', id: base + '-q', text: a.summary }) : null,
    el('p', { class: 'action', id: a.summary ? null : base + '-q' }, [
      t('action') + ' ',
      el('code', { text: a.action }),
      ' ',
      hashChip(a.hash, a.actionHash),
    ]),
    el('p', { class: 'hint', text: t('arguments') }),
    argumentsBlock(a.arguments),
    ...preview,
    a.onTimeout
      ? el('p', { class: 'hint on-timeout', text: t('onTimeout') + ': ' + t('decide.' + a.onTimeout) })
      : null,
  ];
}

/**
 * The 400's message for one field (`reason` or `arguments`), or null.
 * @param {any} data
 * @param {string} field
 * @returns {string | null}
 */
function issueAt(data, field) {
  const issues = data && data.error && Array.isArray(data.error.issues) ? data.error.issues : [];
  const issue = issues.find((/** @type {any} */ i) => Array.isArray(i.path) && i.path[0] === field);
  return issue ? String(issue.message) : null;
}

/** A pending approval's card body. @param {Card} card @param {ConsoleAsk} ask @param {string} base */
export function buildApproval(card, ask, base) {
  const a = /** @type {ConsoleApproval} */ (ask.approval);
  const fieldId = base + '-text';
  const label = el('label', { for: fieldId });
  const text = el('textarea', { id: fieldId, rows: 4, 'aria-describedby': fieldId + '-problem' });
  const problem = el('p', { class: 'error', id: fieldId + '-problem' });
  const form = el('form', { class: 'decide', novalidate: true, hidden: true }, [
    label,
    el('div', { class: 'field' }, [text]),
    problem,
    el('div', { class: 'row actions' }, [
      el('button', { type: 'submit', text: t('send') }),
      el('button', { type: 'button', class: 'secondary', text: t('cancel'), onclick: () => close() }),
    ]),
  ]);
  /** @type {string | null} the decision the form is open for */
  let open = null;
  /** @param {string} message */
  const refuse = (message) => {
    problem.textContent = message;
    text.setAttribute('aria-invalid', 'true');
    text.focus();
  };
  const clear = () => {
    problem.textContent = '';
    text.removeAttribute('aria-invalid');
  };
  const close = () => {
    open = null;
    form.hidden = true;
    clear();
  };
  /** @param {string} decision */
  const choose = (decision) => {
    showError(card, '');
    if (decision === 'approve') return submit(card, { decision });
    if (open !== decision) {
      // Another decision's words are not this one's: the field starts anew (edit: the arguments).
      clear();
      text.value = decision === 'edit' ? JSON.stringify(a.arguments, null, 2) : '';
      text.rows = decision === 'edit' ? 10 : 4;
      text.className = decision === 'edit' ? 'json' : '';
      text.spellcheck = decision !== 'edit';
      label.textContent = t('ask.' + decision);
    }
    open = decision;
    form.hidden = false;
    text.focus();
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!open) return;
    clear();
    const decision = open;
    /** @type {import('./app-answer.js').AnswerBody} */
    const body = { decision };
    if (decision === 'edit') {
      let edited = null;
      try {
        edited = JSON.parse(text.value);
      } catch (e) {
        edited = null;
      }
      if (!edited || typeof edited !== 'object' || Array.isArray(edited)) return refuse(t('jsonObject'));
      body.arguments = edited;
    } else {
      if (NEEDS_REASON.has(decision) && !text.value.trim()) return refuse(t('reasonFirst'));
      if (text.value.trim()) body.reason = text.value;
    }
    submit(card, body, (_problems, data) => {
      const message = issueAt(data, decision === 'edit' ? 'arguments' : 'reason');
      if (message === null) return false;
      refuse(t(decision === 'edit' ? 'argumentsRefused' : 'reasonRefused', { message }));
      return true;
    });
  });
  const buttons = a.decisions.map((d) =>
    el('button', {
      type: 'button',
      class: d === 'approve' ? 'decision' : 'decision secondary',
      'data-decision': d,
      text: t('decide.' + d),
      onclick: () => choose(d),
    }),
  );
  return el('div', { class: 'approval' }, [
    approvalBody(a, base),
    el('div', { class: 'row decisions', role: 'group', 'aria-labelledby': base + '-q' }, buttons),
    form,
  ]);
}

/**
 * What a finished approval shows beside its outcome: the action, the decision and the hash of
 * what runs (never the reason: the console is shared; never an edit's arguments).
 * @param {ConsoleAsk} ask
 * @param {(term: string, value: string | Node | (Node | string)[]) => HTMLElement[]} fact
 */
export function decisionFacts(ask, fact) {
  const a = ask.approval;
  const d = ask.outcome && ask.outcome.approval;
  if (!a) return [];
  return [
    ...fact(t('action'), [el('code', { text: a.action }), ' ', hashChip(a.hash, a.actionHash)]),
    ...(d ? fact(t('decision'), t('decision.' + d.decision)) : []),
    ...(d ? fact(t('whatRuns'), hashChip(d.hash, d.effectiveHash)) : []),
    ...(!d && a.onTimeout ? fact(t('onTimeout'), t('decide.' + a.onTimeout)) : []),
  ];
}
