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
