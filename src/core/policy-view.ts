// What the policies of an ask (fan-out, reminders, agreement) add to what people see.
import { ownValue } from './own.js';
import { DECISION_LABELS } from './approval/decisions.js';
import type { Answers, AskRecord, Responder } from './schemas.js';
import { answerSummary, responderName } from './display-text.js';
import { shorten } from './text.js';
import { agreeOf, answersKey } from './policy.js';
import { LINK_CHANNEL } from './record-state.js';
import { ENGLISH, wordsOf, type MessageKey, type Words } from './i18n/index.js';

/** askgate's own places in outcome lines and notices, named by the catalogues (chat channels: `Words.channelNames`). */
const OWN_PLACES: ReadonlyMap<string, MessageKey> = new Map<string, MessageKey>([
  ['web', 'channel.web'],
  ['api', 'channel.api'],
]);
/** Longest channel name shown (other channels are shown by their configured name). */
const CHANNEL_NAME_MAX = 32;
/** Longest person name in a tally or an "agreed by" list. */
const NAME_MAX = 32;
/** Most names listed; the rest are counted ("and 3 more"). */
const NAMES_MAX = 10;
/** Longest answer label in a tally. */
const TALLY_LABEL_MAX = 40;
/** Most distinct answers listed in a tally. */
const TALLY_GROUPS_MAX = 6;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * A channel as people read it: "the console", "the API", a chat channel as `words` names it
 * ("Slack": the shell's data from the channel registry); any other channel by its name.
 */
export function channelDisplayName(channel: string, words: Words = ENGLISH): string {
  const own = OWN_PLACES.get(channel);
  if (own !== undefined) return words.t(own);
  return words.channelNames.get(channel) ?? shorten(channel, CHANNEL_NAME_MAX);
}

/** True when the ask was delivered to more than one conversation (channel, chat and thread). */
export function isFanOut(record: Pick<AskRecord, 'deliveries'>): boolean {
  const places = new Set(record.deliveries.map((d) => JSON.stringify([d.channel, d.chat, d.thread ?? null])));
  return places.size > 1;
}

/** One distinct answer of a tally: how it is shown and how many people gave it. */
export interface TallyGroup {
  label: string;
  count: number;
}

/** The distinct answers given so far, most given first (ties: first given first). */
export function tallyGroups(record: Pick<AskRecord, 'questions' | 'responses'>, words: Words = ENGLISH): TallyGroup[] {
  const groups = new Map<string, TallyGroup>();
  for (const response of record.responses ?? []) {
    // An approval's responses group by decision (only approvals stay counted: one no ends the ask).
    const decision = response.decision;
    const key = decision ? `decision:${decision}` : answersKey(record.questions, response.answers);
    const group = groups.get(key);
    if (group) group.count++;
    else {
      const label = decision ? words.t(DECISION_LABELS[decision]) : answersLabel(record, response.answers, words);
      groups.set(key, { label, count: 1 });
    }
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

/** Answers as one short label: option labels only ("their own words" for free text), " / " between questions. */
function answersLabel(record: Pick<AskRecord, 'questions'>, answers: Answers, words: Words): string {
  const parts = record.questions.map((q) => answerSummary(q, ownValue(answers, q.id) ?? [], words) || '–');
  return shorten(parts.join(' / '), TALLY_LABEL_MAX);
}

/** "Alice, @bob and 3 more", with the channel after each name when `withChannel`. */
export function nameList(people: readonly Responder[], withChannel = false, words: Words = ENGLISH): string {
  const named = people.slice(0, NAMES_MAX).map((p) =>
    // A link for anyone names no person (its id is `link`): "someone on the answer page", its place included.
    p.channel === LINK_CHANNEL
      ? words.t('approval.viaPage')
      : shorten(responderName(p), NAME_MAX) + (withChannel ? ` (${channelDisplayName(p.channel, words)})` : ''),
  );
  const more = people.length > NAMES_MAX ? words.t('list.more', { count: people.length - NAMES_MAX }) : '';
  return `${named.join(words.t('list.separator'))}${more}`;
}

/**
 * The tally lines under an open prompt that needs several matching answers (none otherwise):
 * "Approve 1 · Reject 1 — 2 matching answers needed", then "Answered: Alice, @bob". Labels and
 * names only: a free-text response counts as "their own words".
 */
export function tallyLines(
  record: Pick<AskRecord, 'questions' | 'responses' | 'policy' | 'deliveries'> &
    Partial<Pick<AskRecord, 'locale' | 'timeZone'>>,
  words: Words = wordsOf(record),
): string[] {
  const t = words.t;
  const agree = agreeOf(record);
  if (agree <= 1) return [];
  const needed = t('tally.needed', { count: agree });
  const groups = tallyGroups(record, words);
  if (groups.length === 0) return [t('tally.none', { needed })];
  const shown = groups.slice(0, TALLY_GROUPS_MAX).map((g) => `${g.label} ${g.count}`);
  const more = groups.length > TALLY_GROUPS_MAX ? t('tally.more', { count: groups.length - TALLY_GROUPS_MAX }) : '';
  const people = (record.responses ?? []).map((r) => r.answeredBy);
  return [
    t('tally.line', { groups: shown.join(' · '), more, needed }),
    t('tally.answered', { names: nameList(people, isFanOut(record), words) }),
  ];
}

/** The most people who gave the same answers so far. */
export function bestAgreement(record: Pick<AskRecord, 'questions' | 'responses'>): number {
  return tallyGroups(record)[0]?.count ?? 0;
}

/**
 * The reminder posted under an open question: "Reminder: this question is still open. It expires
 * at 14:05 UTC (in 25 minutes)." The date is added when the deadline is more than a day away.
 * Names no one (no mentions) and holds no user text. In `words` (default: the ask's locale and time zone, else English in UTC).
 */
export function reminderText(
  record: Pick<AskRecord, 'expiresAt'> & Partial<Pick<AskRecord, 'locale' | 'timeZone'>>,
  now: number,
  words: Words = wordsOf(record),
): string {
  const t = words.t;
  const expires = Date.parse(record.expiresAt);
  const time = words.time(record.expiresAt);
  if (!time) return t('reminder.open');
  const left = expires - now;
  if (left <= 0) return t('reminder.soon', { time });
  const when =
    left > DAY_MS ? t('reminder.onDate', { date: words.day(record.expiresAt)!, time }) : t('reminder.at', { time });
  return t('reminder.expires', { when, left: timeLeft(left, words) });
}

/** "in less than a minute", "in 1 minute", "in 25 minutes", "in about 3 hours", "in about 2 days". */
function timeLeft(ms: number, words: Words): string {
  if (ms < MINUTE_MS) return words.t('left.underMinute');
  const minutes = Math.round(ms / MINUTE_MS);
  if (minutes < 120) return words.t('left.minutes', { count: minutes });
  const hours = Math.round(ms / (60 * MINUTE_MS));
  if (hours < 48) return words.t('left.hours', { count: hours });
  return words.t('left.days', { count: Math.round(ms / DAY_MS) });
}
