import {
  pino,
  stdSerializers,
  stdTimeFunctions,
  type Bindings,
  type ChildLoggerOptions,
  type DestinationStream,
  type Level,
  type LevelWithSilentOrString,
  type Logger as PinoLogger,
} from 'pino';
import type { Logger } from './core/ports.js';
import type { ChannelName } from './channels/registry.js';

/** The levels `LOG_LEVEL` accepts. */
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** Which part of askgate a line comes from (the `component` field of every line): a chat channel by its registry name. */
export type Component = 'http' | 'store' | 'queue' | 'reconciler' | 'gateway' | 'mcp' | 'audit' | ChannelName;

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

type Write = (...args: unknown[]) => void;

/**
 * A child of `parent` with `bindings` that becomes a real pino child only when it writes a line
 * (a call at a level `parent` has enabled), or when asked for its own child or a level change.
 * Making a pino child serializes its bindings through the redaction paths (~4 KB per child); fastify
 * makes one per request for `request.log`, and with request lines off almost no request logs.
 * Each line written is the real child's: same bindings (`reqId`), serializers and redaction.
 */
class LazyChildLogger {
  readonly #parent: PinoLogger;
  readonly #bindings: Bindings;
  #child: PinoLogger | undefined;

  constructor(parent: PinoLogger, bindings: Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  /** The real child, made on first need. */
  #real(): PinoLogger {
    return (this.#child ??= this.#parent.child(this.#bindings));
  }

  #write(level: Level, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    const real = this.#real();
    (real[level] as Write).apply(real, args);
  }

  get level(): LevelWithSilentOrString {
    return (this.#child ?? this.#parent).level;
  }

  set level(level: LevelWithSilentOrString) {
    this.#real().level = level;
  }

  isLevelEnabled(level: LevelWithSilentOrString): boolean {
    return (this.#child ?? this.#parent).isLevelEnabled(level);
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): PinoLogger {
    return this.#real().child(bindings, options);
  }
}

/** What {@link lazyChild} returns: the part of a pino logger fastify gives a request (its `FastifyBaseLogger`). */
export interface RequestLogger extends Pick<
  PinoLogger,
  'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' | 'isLevelEnabled'
> {
  level: LevelWithSilentOrString;
  child(bindings: Bindings, options?: ChildLoggerOptions): PinoLogger;
}

/**
 * fastify's `childLoggerFactory` for askgate: `request.log` as a {@link LazyChildLogger}, so a
 * request that logs nothing makes no pino child. `parent` is fastify's logger, a pino child of
 * the `loggerInstance` askgate gives it; one that is not pino, or child options (a route's own
 * `logLevel` or serializers), get a plain child at once.
 */
export function lazyChild(
  parent: { child(bindings: Bindings, options?: ChildLoggerOptions): unknown },
  bindings: Bindings,
  options?: ChildLoggerOptions,
): RequestLogger {
  if (typeof (parent as Partial<PinoLogger>).isLevelEnabled !== 'function' || (options && !isEmpty(options)))
    return parent.child(bindings, options) as RequestLogger;
  return new LazyChildLogger(parent as PinoLogger, bindings);
}

/** True for `{}`, without allocating a keys array (this runs once per request). */
function isEmpty(o: object): boolean {
  for (const key in o) if (Object.hasOwn(o, key)) return false;
  return true;
}
