/** How a channel checks its credentials at startup (getMe, auth.test, …). */
export interface IdentityCheck<T> {
  /** The platform call that proves the token. */
  call: () => Promise<T>;
  /** The error to fail startup with at once (a rejected token: retrying cannot help), or null to retry. */
  fatal: (error: unknown) => Error | null;
  /** The error to fail startup with once every attempt failed (the platform is unreachable). */
  unreachable: (error: unknown) => Error;
  /** Attempts in all (default 3). */
  attempts?: number;
  /** Wait after attempt n is n × this, in ms (default 500). */
  backoffMs?: number;
  /** Waits (tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
}

const sleepFor = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Runs a channel's startup identity check: a rejected token fails at once with a clear message,
 * a network failure is retried a few times with a growing wait, then startup fails.
 */
export async function checkIdentity<T>(check: IdentityCheck<T>): Promise<T> {
  const attempts = check.attempts ?? 3;
  const sleep = check.sleep ?? sleepFor;
  for (let attempt = 1; ; attempt++) {
    try {
      return await check.call();
    } catch (error) {
      const fatal = check.fatal(error);
      if (fatal) throw fatal;
      if (attempt >= attempts) throw check.unreachable(error);
      await sleep((check.backoffMs ?? 500) * attempt);
    }
  }
}
