/**
 * Short key names for the stored ask JSON (see `encodeAsk`): every object key that is a field name
 * of the record schema (core/record-schemas.ts, everything nested in it, and compact-record.ts's
 * `later`) is stored as a one-character code, which saves about a third of a pending ask's value.
 *
 * The mapping is a bijection on all keys, so keys chosen by users (question ids in `partial` and
 * answers, `<channel>:<userId>` in `partials`) survive whatever they are: a long name becomes its
 * code, a key that is a code or starts with `!` gets a `!` in front, any other key stays as it is.
 *
 * STORED FORMAT: a code, once given, names its field forever; never reorder, reuse or remove an
 * entry. Every code is given (`z`, the last, names a result's `values`, in every answered ask): a
 * field added since is stored under its long name (a typed question's `kind` and constraints,
 * `raw`, `partialRaw`), which the mapping leaves as it is.
 */
const NAMES = [
  // The most frequent first (options and questions of every ask, then targets, deliveries, history).
  'label',
  'id',
  'question',
  'options',
  'header',
  'description',
  'channel',
  'chat',
  'users',
  'status',
  'message',
  'messageId',
  'type',
  'at',
  'createdAt',
  'timeoutSeconds',
  'questions',
  'targets',
  'deliveries',
  'later',
  'thread',
  'finalized',
  'multiSelect',
  'history',
  'result',
  'answers',
  'answeredBy',
  'answeredAt',
  'userId',
  'reason',
  'partial',
  'idempotencyKey',
  'callbackUrl',
  'locale',
  'timeZone',
  'username',
  'name',
  'error',
  'step',
  'reminded',
  'escalated',
  'policy',
  'remindAfterSeconds',
  'escalate',
  'afterSeconds',
  'to',
  'onTimeout',
  'default',
  'agree',
  'responses',
  'partials',
  'by',
  'defaults',
  'detail',
  'expiresAt',
  'version',
  'push',
  'format',
  'token',
  'authorization',
  'agent',
  'values',
] as const;

/**
 * The codes, in the order of {@link NAMES}: capitals and digits first, which no question id can be
 * (snake_case, starting with a small letter), so user keys rarely need the `!`.
 */
const CODES = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyz';

/** Long name → code. */
export const SHORT_KEYS: ReadonlyMap<string, string> = new Map(NAMES.map((name, i) => [name, CODES[i]!]));
/** Code → long name. */
export const LONG_KEYS: ReadonlyMap<string, string> = new Map(NAMES.map((name, i) => [CODES[i]!, name]));
/** Every code that may be given (used or not): a user key equal to one is escaped. */
const ALL_CODES: ReadonlySet<string> = new Set(CODES);
/** Long name by the char code of its code (the stored form's keys are mostly 1 character). */
const LONG_BY_CHAR: readonly (string | undefined)[] = (() => {
  const out: (string | undefined)[] = new Array(128).fill(undefined);
  for (const [code, name] of LONG_KEYS) out[code.charCodeAt(0)] = name;
  return out;
})();

const BANG = 33; // !
const COLON = 58; // :
const BACKSLASH = 92;

/** The short form of the key whose JSON text is `key`, or undefined: unchanged. */
function toShort(key: string): string | undefined {
  const code = SHORT_KEYS.get(key);
  if (code !== undefined) return code;
  return key.charCodeAt(0) === BANG || ALL_CODES.has(key) ? `!${key}` : undefined;
}

/** The long form of the key whose JSON text is `json.slice(from, to)`, or undefined: unchanged. */
function toLong(json: string, from: number, to: number): string | undefined {
  if (to === from + 1) return LONG_BY_CHAR[json.charCodeAt(from)];
  return json.charCodeAt(from) === BANG ? json.slice(from + 1, to) : undefined;
}

/**
 * `json` with each object key that `map` gives a replacement for replaced. A hand-written scan
 * (about 3 times as fast as a regex replace with a callback; this runs on every write and read of
 * an ask): it steps from string to string with indexOf, so it never mistakes a string's contents
 * for JSON, and a string followed by `:` is a key. Never throws, on any text.
 */
function rewriteKeys(json: string, map: (json: string, from: number, to: number) => string | undefined): string {
  let out = '';
  let copied = 0;
  let open = json.indexOf('"');
  while (open !== -1) {
    let close = json.indexOf('"', open + 1);
    // A quote after an odd run of backslashes is escaped: look further.
    while (close !== -1 && json.charCodeAt(close - 1) === BACKSLASH) {
      let k = close - 2;
      while (k > open && json.charCodeAt(k) === BACKSLASH) k--;
      if ((close - 1 - k) % 2 === 0) break;
      close = json.indexOf('"', close + 1);
    }
    if (close === -1) break; // not JSON: left for JSON.parse to reject
    if (json.charCodeAt(close + 1) === COLON) {
      const key = map(json, open + 1, close);
      if (key !== undefined) {
        out += json.slice(copied, open + 1) + key;
        copied = close;
      }
    }
    open = json.indexOf('"', close + 1);
  }
  return copied === 0 ? json : out + json.slice(copied);
}

const shortOf = (json: string, from: number, to: number) => toShort(json.slice(from, to));

/** `json` (JSON text, as `JSON.stringify` writes it) with its keys shortened. */
export function shortenKeys(json: string): string {
  return rewriteKeys(json, shortOf);
}

/** The inverse of {@link shortenKeys}. Never throws: text that is not JSON stays not JSON. */
export function lengthenKeys(json: string): string {
  return rewriteKeys(json, toLong);
}
