import type { Logger } from './core/ports.js';

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: 100 } as const;

/** A JSON-lines logger on stderr. Callers must never pass tokens or free-text answers. */
export function createLogger(level: keyof typeof LEVELS, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const threshold = LEVELS[level];
  const log = (lvl: 'info' | 'warn' | 'error') => (obj: object, msg?: string) => {
    if (LEVELS[lvl] < threshold) return;
    write(JSON.stringify({ level: lvl, time: new Date().toISOString(), ...obj, ...(msg ? { msg } : {}) }) + '\n');
  };
  return { info: log('info'), warn: log('warn'), error: log('error') };
}
