import { pino, stdSerializers, stdTimeFunctions, type DestinationStream, type Logger as PinoLogger } from 'pino';
import type { Logger } from './core/ports.js';

/** The levels `LOG_LEVEL` accepts. */
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** Which part of askgate a line comes from (the `component` field of every line). */
export type Component =
  'http' | 'store' | 'queue' | 'reconciler' | 'gateway' | 'telegram' | 'slack' | 'discord' | 'mcp';

const REDACTED_KEYS = [
  'token',
  'apiToken',
  'botToken',
  'appToken',
  'secret',
  'webhookSecret',
  'signingSecret',
  'password',
  'authorization',
  'cookie',
  'text',
  'answers',
  'answer',
];

/**
 * Fields never written, at the top level and one level down (`{ req: { headers: { authorization } } }`
 * included). Free text lives in `text`/`answers`; credentials in the other keys.
 */
export const REDACT_PATHS = [
  ...REDACTED_KEYS,
  ...REDACTED_KEYS.map((k) => `*.${k}`),
  'headers.authorization',
  '*.headers.authorization',
  'headers.cookie',
  '*.headers.cookie',
];

/** Error fields worth a log line; the rest (ioredis command args, SDK request bodies and configs) may carry secrets or free text. */
const ERROR_FIELDS = ['type', 'message', 'stack', 'code', 'statusCode', 'status'] as const;

/** pino's standard err serializer, narrowed to {@link ERROR_FIELDS}. */
function serializeError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const full = stdSerializers.err(err) as unknown as Record<string, unknown>;
  return Object.fromEntries(
    ERROR_FIELDS.filter((f) => Object.hasOwn(full, f) && full[f] !== undefined).map((f) => [f, full[f]]),
  );
}

/**
 * The askgate logger: JSON lines (`level` as a label, ISO `time`) on stderr, or into `write` (tests).
 * Tokens, secrets and free text are redacted by field name; callers still log ids, not contents.
 */
export function createLogger(level: LogLevel, write?: (line: string) => void): PinoLogger {
  const destination: DestinationStream = write ? { write } : pino.destination({ dest: 2, sync: true });
  return pino(
    {
      level,
      base: undefined,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { err: serializeError, error: serializeError },
    },
    destination,
  );
}

/** True for a logger with pino's child loggers (askgate's own); test doubles are plain {@link Logger}s. */
export function isPino(logger: Logger): logger is PinoLogger {
  return (
    typeof (logger as Partial<PinoLogger>).child === 'function' &&
    typeof (logger as Partial<PinoLogger>).level === 'string'
  );
}

/** `logger` for one component: a pino child, or for a plain {@link Logger} the same logger. */
export function forComponent(logger: Logger, component: Component): Logger {
  return isPino(logger) ? logger.child({ component }) : logger;
}
