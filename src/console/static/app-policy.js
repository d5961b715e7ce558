/**
 * Browser module: what an ask's policies add to its cards: where it went (every delivery, failed
 * ones marked), reminders, escalation steps, the agreement tally, the default on timeout, and on a
 * finished ask the default taken and everyone's responses. Text only (labels and names).
 */
import { clock, el } from './app-core.js';
import { lang, t } from './app-i18n.js';

/** @typedef {import('../view.js').ConsoleAsk} ConsoleAsk */
/** @typedef {import('../view.js').ConsoleDelivery} ConsoleDelivery */
/** @typedef {import('../view.js').ConsoleDefault} ConsoleDefault */
/** @typedef {import('../view.js').ConsoleResponse} ConsoleResponse */

const DELIVERY_NOTES = new Map(Object.entries({ pending: 'sending', failed: 'failed' }));

/** "slack:C1 thread 17 (escalation 1, failed)". @param {ConsoleDelivery} d */
function deliveryText(d) {
  /** @type {string[]} */
  const notes = [];
  if (d.step > 0) notes.push(t('escalationN', { n: d.step }));
  const note = DELIVERY_NOTES.get(d.status);
  if (note) notes.push(t(note));
  return (
    d.channel +
    ':' +
    d.chat +
    (d.thread ? ' ' + t('thread', { thread: d.thread }) : '') +
    (notes.length ? ' (' + notes.join(', ') + ')' : '')
  );
}

/** Where the ask went, one span per delivery (failed ones marked). @param {ConsoleDelivery[]} deliveries */
export function deliveryList(deliveries) {
  /** @type {(Node | string)[]} */
  const parts = [];
  deliveries.forEach((d, i) => {
    if (i > 0) parts.push(', ');
    parts.push(el('span', { class: d.status === 'failed' ? 'failed' : 'delivery', text: deliveryText(d) }));
  });
  return parts;
}

/** "Deploy: Staging; Checks: Unit tests". @param {ConsoleDefault[]} defaults */
export function defaultsText(defaults) {
  return defaults.map((d) => d.question + ': ' + d.labels).join('; ');
}

/** The tally lines in the page's language (rendered by the server in every shipped locale). @param {NonNullable<import('../view.js').ConsolePolicy['agree']>} agree */
function tallyOf(agree) {
  return agree.tallies && Object.hasOwn(agree.tallies, lang) ? agree.tallies[lang] : agree.tally;
}

/** The policy lines of a pending card (a list item each). @param {ConsoleAsk} ask */
export function policyItems(ask) {
  const p = ask.policy;
  const items = [];
  if (ask.deliveries.length)
    items.push(el('li', { class: 'where' }, [t('sentTo') + ' ', deliveryList(ask.deliveries)]));
  else items.push(el('li', { class: 'where', text: t('notSent') }));
  if (!p) return items;
  if (p.reminders) {
    const r = p.reminders;
    const next = r.next ? ' · ' + t('nextReminder', { time: clock(r.next, false) }) : '';
    items.push(el('li', { class: 'reminders', text: t('reminded', { sent: r.sent, total: r.total }) + next }));
  }
  for (const e of p.escalations || [])
    items.push(
      el('li', {
        class: 'escalation',
        text: t(e.fired ? 'escalatedTo' : 'escalatesTo', { to: e.to.join(', '), time: clock(e.at, false) }),
      }),
    );
  if (p.agree) for (const line of tallyOf(p.agree)) items.push(el('li', { class: 'tally', text: line }));
  if (p.onTimeout)
    items.push(el('li', { class: 'on-timeout', text: t('defaultOnTimeout', { defaults: defaultsText(p.onTimeout) }) }));
  return items;
}

/** The responses of a finished ask that needed several matching answers. @param {ConsoleResponse[]} responses */
export function responseList(responses) {
  return el(
    'ul',
    { class: 'responses' },
    responses.map((r) =>
      el('li', {}, [
        el('span', { class: 'by', text: t('byVia', { name: r.by, channel: r.channel }) }),
        ': ' + (r.decision ? t('decision.' + r.decision) : r.answer) + ' ',
        el('time', { datetime: r.at, text: clock(r.at, false) }),
      ]),
    ),
  );
}
