import type { AskRecord, HistoryEntry, Responder } from './schemas.js';

/** Most history entries kept on a record; the oldest after `created` are dropped first. */
export const HISTORY_LIMIT = 100;

/** Appends entries to a record's history, keeping the first entry and the newest ones. */
export function withHistory(record: AskRecord, entries: Omit<HistoryEntry, 'at'>[], now: number): AskRecord {
  const at = new Date(now).toISOString();
  const history = [...record.history, ...entries.map((e) => ({ ...e, at }))];
  const trimmed =
    history.length > HISTORY_LIMIT ? [history[0]!, ...history.slice(history.length - HISTORY_LIMIT + 1)] : history;
  return { ...record, history: trimmed };
}

/** The responder fields a history entry names. */
export const who = (by: Responder) => ({ channel: by.channel, userId: by.userId });
