/**
 * The console sign-in throttle's rule, per client address: a few failures are free, then each
 * further attempt waits for a delay that doubles with every failure, up to a maximum; an address
 * with no failure for a while starts over. Attempts refused while waiting are not failures (the
 * token is not even compared), so they neither extend the wait nor reveal anything.
 */
export interface SignInRule {
  /** Failed sign-ins an address may make before it has to wait. */
  freeFailures: number;
  /** The wait after the first failure beyond the free ones (ms); it doubles with each further failure. */
  firstDelayMs: number;
  /** The longest wait (ms). */
  maxDelayMs: number;
  /** An address whose last failure is this old (ms) starts over with free failures. */
  forgetAfterMs: number;
}

/** askgate's rule: 5 free failures, then 1 s, 2 s, 4 s … up to 5 min; forgotten 15 min after the last failure. */
export const SIGN_IN_RULE: SignInRule = {
  freeFailures: 5,
  firstDelayMs: 1_000,
  maxDelayMs: 5 * 60_000,
  forgetAfterMs: 15 * 60_000,
};

/** The failed sign-ins of one address. */
export interface SignInFailures {
  /** Failures since the address last started over. */
  count: number;
  /** When the latest one happened (epoch ms). */
  lastAt: number;
}

/** True when `failures` are too old to count at `now`. */
function forgotten(failures: SignInFailures | undefined, now: number, rule: SignInRule): boolean {
  return failures === undefined || now - failures.lastAt >= rule.forgetAfterMs;
}

/** How long (ms) an address with these `failures` must still wait at `now` before it may try again (0: now). */
export function signInWaitMs(failures: SignInFailures | undefined, now: number, rule = SIGN_IN_RULE): number {
  if (forgotten(failures, now, rule) || failures!.count < rule.freeFailures) return 0;
  const delay = Math.min(rule.firstDelayMs * 2 ** (failures!.count - rule.freeFailures), rule.maxDelayMs);
  return Math.max(0, failures!.lastAt + delay - now);
}

/** The failures of an address after one more failed sign-in at `now`. */
export function afterFailedSignIn(
  failures: SignInFailures | undefined,
  now: number,
  rule = SIGN_IN_RULE,
): SignInFailures {
  return { count: forgotten(failures, now, rule) ? 1 : failures!.count + 1, lastAt: now };
}

/**
 * The throttle's key for a client address: IPv4 as is (also when IPv4-mapped, `::ffff:1.2.3.4`),
 * IPv6 by its /64 prefix (one host usually holds a whole /64, so per-address keys would hand it
 * billions of fresh starts). Anything unparsable is its own key.
 */
export function signInKey(address: string): string {
  const bare = address.replace(/%.*$/, '').toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(bare);
  if (mapped) return mapped[1]!;
  if (!bare.includes(':')) return bare;
  const halves = bare.split('::');
  if (halves.length > 2) return bare;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const groups =
    halves.length === 2 ? [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail] : head;
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return bare;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
