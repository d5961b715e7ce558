// How many mails askgate sends one address in reply to its mails: a loop with another robot, or
// someone mailing on and on, gets a few replies, then silence until the window passes.

/** Most replies to one address per window. */
export const REPLIES_PER_WINDOW = 5;
/** The window, in ms. */
export const REPLY_WINDOW_MS = 10 * 60_000;
/** Most addresses remembered (the oldest are forgotten first). */
const ADDRESSES_MAX = 10_000;

/** Counts replies per address in a sliding window (per process: each replica counts its own). */
export class ReplyLimiter {
  private readonly sent = new Map<string, number[]>();

  constructor(private readonly now: () => number) {}

  /** True (and counted) when one more reply to `address` is allowed now. */
  take(address: string): boolean {
    const now = this.now();
    const recent = (this.sent.get(address) ?? []).filter((t) => now - t < REPLY_WINDOW_MS);
    if (recent.length >= REPLIES_PER_WINDOW) return false;
    recent.push(now);
    this.sent.delete(address);
    this.sent.set(address, recent);
    if (this.sent.size > ADDRESSES_MAX) this.sent.delete(this.sent.keys().next().value!);
    return true;
  }
}
