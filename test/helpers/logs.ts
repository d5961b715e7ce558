import type { Logger } from '../../src/core/ports.js';

/** One recorded log call: its level, message and fields. */
export interface LogEntry {
  level: 'info' | 'warn' | 'error';
  msg?: string;
  fields: Record<string, unknown>;
}

/** A {@link Logger} that drops everything. */
export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** A {@link Logger} that records every call, with the `err` of each one that carried an Error. */
export function captureLogger(): Logger & { entries: LogEntry[]; errors(): Error[] } {
  const entries: LogEntry[] = [];
  const log = (level: LogEntry['level']) => (obj: object, msg?: string) =>
    void entries.push({ level, msg, fields: { ...obj } });
  return {
    entries,
    errors: () => entries.map((e) => e.fields.err).filter((err): err is Error => err instanceof Error),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
  };
}
