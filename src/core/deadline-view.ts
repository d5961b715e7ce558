// The deadline line of an open prompt ("Open until Thu, Dec 24, 17:00 (Europe/Lisbon)"), built once
// per view in core: channels that can show a time in each reader's own zone put their platform's
// token in place of `when`; the others show the line as it is.
import type { Words } from './i18n/index.js';

/**
 * When an open ask expires, as data for the renderers. `when` is the time in the ask's zone (UTC
 * when it states none) with the zone named; `before` + when + `after` is the whole `line` in the
 * prompt's locale, so a channel can put a token of its own (Slack's `<!date>`, Discord's `<t:>`, a
 * Teams `{{DATE()}}`, Telegram's date_time entity) where `when` goes.
 */
export interface DeadlineView {
  /** The deadline as RFC 3339 in UTC, whole seconds (`2026-12-24T17:00:00Z`): what Adaptive Cards' DATE()/TIME() accept. */
  expiresAt: string;
  /** The deadline in Unix seconds (Slack, Discord, Telegram). */
  unix: number;
  /** The IANA zone `when` is in: the ask's `timeZone`, else `UTC`. */
  timeZone: string;
  /** "Thu, Dec 24, 17:00 (Europe/Lisbon)": weekday, day, month, 24-hour time in {@link timeZone}, the zone named. */
  when: string;
  /** The words before `when` in the line ("Open until "); may be empty. */
  before: string;
  /** The words after `when` in the line (empty in English, "まで受付中" in Japanese). */
  after: string;
  /** The whole line: `before + when + after`. */
  line: string;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** The locale's short weekday, day, month and 24-hour time in `timeZone` (formats kept per locale and zone). */
function formatOf(locale: string, timeZone: string): Intl.DateTimeFormat {
  const key = `${locale} ${timeZone}`;
  let f = formats.get(key);
  if (!f) {
    const options: Intl.DateTimeFormatOptions = { weekday: 'short', day: 'numeric', month: 'short' };
    f = new Intl.DateTimeFormat(locale, { ...options, hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone });
    // Zones are validated IANA names and locales shipped ones, so the cache stays small (a few dozen).
    if (formats.size < 1000) formats.set(key, f);
  }
  return f;
}

/** Placeholder the line's template is split at: no catalogue holds it. */
const SPLIT = '\u0000';

/**
 * The deadline of an ask expiring at `expiresAt` (ISO 8601), in `words` (its locale and time zone:
 * the ask's, else UTC), or undefined when `expiresAt` does not parse. Always an absolute time, never
 * "in 25 minutes": a message is read long after it is drawn and is edited only when the ask changes.
 */
export function deadlineView(expiresAt: string, words: Words): DeadlineView | undefined {
  const ms = Date.parse(expiresAt);
  if (Number.isNaN(ms)) return undefined;
  const unix = Math.floor(ms / 1000);
  const zone = words.timeZone;
  const when = `${formatOf(words.locale, zone).format(ms)} (${zone})`;
  const [before = '', after = ''] = words.t('deadline.open', { when: SPLIT }).split(SPLIT);
  return {
    expiresAt: new Date(unix * 1000).toISOString().replace('.000Z', 'Z'),
    unix,
    timeZone: zone,
    when,
    before,
    after,
    line: `${before}${when}${after}`,
  };
}
