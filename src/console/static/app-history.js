/**
 * Browser module, part 3: finished asks (outcome, who, when, the event history). Answers appear only
 * as the chats' outcome lines: numbers, dates and times shown, free text, emails and links as "their
 * own words" (the views carry no `values` and no `raw`).
 */
import { $, clock, el, outcomeText, state } from './app-core.js';
import { t } from './app-i18n.js';
import { isChoice, questionText } from './app-answer.js';
import { expectedText } from './app-typed.js';
import { defaultsText, deliveryList, responseList } from './app-policy.js';
import { askText } from './app-pending.js';
import { decisionFacts } from './app-approval.js';

/** @typedef {import('../view.js').ConsoleAsk} ConsoleAsk */
/** @typedef {ConsoleAsk['history'][number]} HistoryEntry */

const HISTORY_MAX = 100;
// Sets, not plain objects: a looked-up name like "constructor" must not find Object.prototype's.
const EVENT_TYPES = new Set([
  'created',
  'delivered',
  'delivery_failed',
  'reply_rejected',
  'hint_sent',
  'partial',
  'answered',
  'no_answer',
  'finalized',
  'finalize_failed',
  'webhook_delivered',
  'webhook_failed',
  'reminded',
  'escalated',
  'response',
  'guard_blocked',
  'delivery_status',
  'extended',
]);
const REASONS = new Set(['timeout', 'skipped', 'cancelled', 'superseded', 'undelivered']);

/** @type {Map<string, HTMLLIElement>} ask id -> li */
const pastItems = new Map();

/** @param {HistoryEntry} h */
function eventText(h) {
  const parts = [EVENT_TYPES.has(h.type) ? t('event.' + h.type) : h.type];
  if (h.reason) parts.push('(' + h.reason + ')');
  if (h.userId) parts.push(t('eventBy', { user: h.userId }));
  if (h.channel) parts.push(t('eventVia', { channel: h.channel }));
  if (h.questions && h.questions.length) parts.push(t('eventQuestions', { ids: h.questions.join(', ') }));
  if (h.detail) parts.push('· ' + h.detail);
  if (h.tool) parts.push('· ' + h.tool);
  if (h.to) parts.push('→ ' + clock(h.to, false));
  return parts.join(' ');
}

/** The list items of an ask's events. @param {HistoryEntry[]} history */
export function eventItems(history) {
  return history.map((h) =>
    el('li', {}, [el('time', { datetime: h.at, text: clock(h.at, true) }), el('span', { text: eventText(h) })]),
  );
}

/** @param {string} term @param {string | Node | (Node | string)[]} value */
function fact(term, value) {
  return [el('dt', { text: term }), typeof value === 'string' ? el('dd', { text: value }) : el('dd', {}, [value])];
}

/** @param {ConsoleAsk} ask (a finished one: it has an outcome) */
function buildPast(ask) {
  const o = /** @type {import('../view.js').ConsoleOutcome} */ (ask.outcome);
  const answered = o.status === 'answered';
  const decided = answered && o.approval ? o.approval.decision : null;
  const summary = el('summary', {}, [
    el('span', {
      class: 'badge ' + (answered && decided !== 'reject' && decided !== 'request_changes' ? 'ok' : 'no'),
      text: decided
        ? t('decision.' + decided)
        : answered
          ? t('answered')
          : REASONS.has(o.reason || '')
            ? t('reason.' + o.reason)
            : t('noAnswer'),
    }),
    el('span', { class: 'run-id', text: ask.runId }),
    el('span', {
      class: 'line',
      text: askText(ask).split('\n')[0] + (ask.questions.length > 1 ? ' (+' + (ask.questions.length - 1) + ')' : ''),
    }),
    el('time', { datetime: o.at, text: clock(o.at, false) }),
  ]);
  const body = el('div', { class: 'past-body' }, [
    el('p', { class: 'outcome', text: outcomeText(o) }),
    el('dl', { class: 'facts' }, [
      fact(t('run'), t('runValue', { run: ask.runId, version: ask.version })),
      fact(t('askedAt'), clock(ask.createdAt, true)),
      fact(answered ? t('answered') : t('ended'), clock(o.at, true)),
      o.by ? fact(answered ? t('by') : t('skippedBy'), t('byVia', { name: o.by, channel: o.channel || '' })) : null,
      ask.deliveries.length
        ? fact(t('sentTo'), deliveryList(ask.deliveries))
        : ask.to
          ? fact(t('sentTo'), ask.to.channel + ':' + ask.to.chat)
          : null,
      o.defaults ? fact(t('defaultTaken'), defaultsText(o.defaults)) : null,
      o.responses ? fact(t('responses'), responseList(o.responses)) : null,
      decisionFacts(ask, fact),
    ]),
    ask.approval
      ? null
      : el(
          'ol',
          { class: 'questions', 'aria-label': t('questions') },
          ask.questions.map((q) =>
            el('li', {}, [
              el('p', { class: 'question' }, questionText(q, null)),
              isChoice(q)
                ? el(
                    'ul',
                    {},
                    q.options.map((opt) =>
                      el('li', { text: opt.description ? opt.label + ' — ' + opt.description : opt.label }),
                    ),
                  )
                : el('p', { class: 'hint', text: expectedText(q) }),
            ]),
          ),
        ),
    el('p', { class: 'hint', text: t('events') }),
    el('ol', { class: 'events', 'aria-label': t('events') }, eventItems(ask.history)),
  ]);
  return el('details', {}, [summary, body]);
}

/** Adds a finished ask to the history (newest first, at most HISTORY_MAX) or refreshes it in place. @param {ConsoleAsk} ask */
export function showPast(ask) {
  if (!ask.outcome) return;
  const outcome = ask.outcome;
  const list = $('history-list');
  const details = buildPast(ask);
  const known = pastItems.get(ask.id);
  if (known) {
    const old = /** @type {HTMLDetailsElement} */ (known.firstElementChild);
    const hadFocus = known.contains(document.activeElement);
    details.open = old.open;
    known.replaceChildren(details);
    if (hadFocus) /** @type {HTMLElement} */ (details.firstElementChild).focus();
    return;
  }
  const li = el('li', { class: 'past', 'data-ask': ask.id, 'data-at': ask.outcome.at }, [details]);
  // Newest first: insert before the first item that ended earlier.
  const older = [...list.children].find((item) => /** @type {string} */ (item.getAttribute('data-at')) < outcome.at);
  list.insertBefore(li, older || null);
  pastItems.set(ask.id, li);
  while (list.children.length > HISTORY_MAX) {
    const last = /** @type {Element} */ (list.lastElementChild);
    const id = /** @type {string} */ (last.getAttribute('data-ask'));
    pastItems.delete(id);
    state.asks.delete(id);
    last.remove();
  }
}

/** Removes an ask from the history. @param {string} id */
export function removePast(id) {
  const li = pastItems.get(id);
  if (li) li.remove();
  pastItems.delete(id);
}
