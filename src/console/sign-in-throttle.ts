import { BoundedMap } from '../core/bounded-map.js';
import type { Clock, Logger } from '../core/ports.js';
import { afterFailedSignIn, SIGN_IN_RULE, signInWaitMs, type SignInFailures } from '../core/sign-in-throttle.js';
import { clientKey } from '../core/client-address.js';

/** Client addresses whose failed sign-ins are remembered; past this the least recently failed is forgotten. */
export const SIGN_IN_ADDRESSES = 10_000;

interface Entry extends SignInFailures {
  /** A refusal of this address was logged since its latest failure (one line per wait, not per attempt). */
  refusalLogged: boolean;
}

/**
 * Throttles console sign-in by client address ({@link SIGN_IN_RULE}), in this process. Failed
 * attempts are logged with the address and count, never with what was typed.
 */
export class SignInThrottle {
  private readonly failures = new BoundedMap<string, Entry>(SIGN_IN_ADDRESSES);

  constructor(
    private readonly clock: Clock,
    private readonly logger: Pick<Logger, 'warn' | 'info'>,
  ) {}

  /** Seconds `address` must still wait before its next attempt (0: it may try now); logs the first refusal of each wait. */
  retryAfterSeconds(address: string): number {
    const key = clientKey(address);
    const entry = this.failures.get(key);
    const waitMs = signInWaitMs(entry, this.clock.now());
    if (waitMs === 0 || !entry) return 0;
    if (!entry.refusalLogged) {
      entry.refusalLogged = true;
      this.logger.info({ ip: key, failures: entry.count }, 'console sign-in throttled');
    }
    return Math.ceil(waitMs / 1000);
  }

  /** How many addresses' failures are remembered (at most {@link SIGN_IN_ADDRESSES}). */
  get remembered(): number {
    return this.failures.size;
  }

  /** Records a failed sign-in from `address` and logs it (the address, never the guess). */
  failed(address: string): void {
    const key = clientKey(address);
    const now = this.clock.now();
    const next = afterFailedSignIn(this.failures.get(key), now);
    this.failures.set(key, { ...next, refusalLogged: false });
    const waitSeconds = Math.ceil(signInWaitMs(next, now) / 1000);
    this.logger.warn({ ip: key, failures: next.count, waitSeconds }, 'console sign-in failed');
  }
}
