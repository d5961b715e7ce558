/**
 * Browser module, part 2: pending asks. A card is built once per ask (so a live update never
 * wipes a half-filled stepper); later updates only refresh its status line and events. Its
 * answer form comes from app-answer.js.
 */
import { $, announce, apply, clock, el, expiresIn, operatorName, outcomeText, request, state } from './app-core.js';
import { buildQuick, buildStepper, isChoice, showError } from './app-answer.js';
import { buildApproval } from './app-approval.js';
import { eventItems } from './app-history.js';
import { policyItems } from './app-policy.js';
import { t } from './app-i18n.js';

/** @typedef {import('../view.js').ConsoleAsk} ConsoleAsk */
/** @typedef {import('./app-answer.js').Card} Card */

/** @type {Map<string, Card>} ask id -> its card */
export const cards = new Map();

/** @param {ConsoleAsk} ask */
function cardStatus(ask) {
  const parts = [
    t('askN', { version: ask.version }),
    t('asked', { time: clock(ask.createdAt, false) }),
    expiresIn(ask.expiresAt),
  ];
  const failed = ask.deliveries.filter((d) => d.status === 'failed').length;
  if (failed) parts.push(t('deliveriesFailed', { count: failed }));
  if (ask.partial.length) parts.push(t('answeredInChat', { count: ask.partial.length, total: ask.questions.length }));
  return parts.join(' · ');
}

/** What an ask asks: its first question, or an approval's summary (else its action). @param {ConsoleAsk} ask */
export function askText(ask) {
  if (ask.approval) return ask.approval.summary || t('action') + ' ' + ask.approval.action;
  return ask.questions[0].question;
}

/** @param {ConsoleAsk} ask @returns {HTMLElement} */
function runSection(ask) {
  const key = 'run-' + ask.runId;
  /** @type {HTMLElement | null} */
  let section = document.querySelector('#runs > [data-run="' + CSS.escape(ask.runId) + '"]');
  if (section) return section;
  section = el(
    'section',
    { class: 'run', 'data-run': ask.runId, 'data-expires': ask.expiresAt, 'aria-labelledby': key },
    [el('h3', { id: key, text: ask.runId })],
  );
  // Most urgent first: insert before the first run that expires later (existing nodes never move).
  const later = [...$('runs').children].find(
    (s) => /** @type {string} */ (s.getAttribute('data-expires')) > ask.expiresAt,
  );
  $('runs').insertBefore(section, later || null);
  return section;
}

/** Shows a pending ask: its card is built once, later views refresh its status and events. @param {ConsoleAsk} ask @param {boolean} live */
export function showPending(ask, live) {
  let card = cards.get(ask.id);
  if (!card) {
    const base = 'ask-' + ask.id;
    // The body's handlers need the card before its nodes exist: they are filled in right below.
    card = /** @type {Card} */ ({ id: ask.id, runId: ask.runId, busy: false });
    card.meta = el('p', { class: 'meta' });
    card.policy = el('ul', { class: 'policy', 'aria-label': t('whereAsked') });
    card.error = el('p', { class: 'error', role: 'alert' });
    card.events = el('ol', { class: 'events' });
    const body = ask.approval
      ? buildApproval(card, ask, base)
      : ask.questions.length === 1 && isChoice(ask.questions[0]) && !ask.questions[0].multiSelect
        ? buildQuick(card, ask, base)
        : buildStepper(card, ask, base);
    card.root = el(
      'article',
      {
        class: 'ask',
        id: base,
        'data-ask': ask.id,
        'aria-label': t(ask.approval ? 'approvalFrom' : 'questionFrom', { run: ask.runId }),
      },
      [
        card.meta,
        el('button', { type: 'button', class: 'secondary', text: t('extend'), onclick: () => extend(ask.id) }),
        card.policy,
        body,
        card.error,
        el('details', { class: 'events' }, [el('summary', { text: t('events') }), card.events]),
      ],
    );
    cards.set(ask.id, card);
    runSection(ask).append(card.root);
    if (live) announce(t('newQuestion', { run: ask.runId, question: askText(ask) }));
  }
  card.meta.textContent = cardStatus(ask);
  card.policy.replaceChildren(...policyItems(ask));
  card.events.replaceChildren(...eventItems(ask.history));
}

/**
 * Moves the ask's deadline by the hours the operator gives (POST /console/asks/:id/extend); a
 * refusal shows askgate's message on the card. @param {string} id
 */
async function extend(id) {
  const hours = Number(prompt(t('extendPrompt'), '24'));
  if (!(hours > 0)) return;
  const body = { timeoutSeconds: Math.round(hours * 3600), by: operatorName() || undefined };
  const res = await request('POST', '/console/asks/' + encodeURIComponent(id) + '/extend', body).catch(() => null);
  const card = cards.get(id);
  if (res && res.status === 200 && res.data?.ask) apply(res.data.ask, false);
  else if (card) showError(card, res?.data?.error?.message || t('noReply'));
}

/** Removes a card; an ask that ended elsewhere is announced. @param {string} id @param {ConsoleAsk | null} endedElsewhere */
export function removePending(id, endedElsewhere) {
  const card = cards.get(id);
  if (!card) return;
  const hadFocus = card.root.contains(document.activeElement);
  const section = card.root.parentElement;
  card.root.remove();
  cards.delete(id);
  if (section && !section.querySelector('.ask')) section.remove();
  if (endedElsewhere && endedElsewhere.outcome)
    announce(card.runId + ': ' + outcomeText(endedElsewhere.outcome).split('\n')[0]);
  // Never move focus onto the next ask's options: a repeated Enter must not answer it.
  if (hadFocus) $('pending-title').focus();
}

/** Refreshes every card's status line (its countdown). */
export function tick() {
  for (const card of cards.values()) {
    const ask = state.asks.get(card.id);
    if (ask) card.meta.textContent = cardStatus(ask);
  }
}
