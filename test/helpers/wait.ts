/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls a synchronous condition until it holds, or throws after `timeoutMs`. */
export async function waitFor(cond: () => boolean, timeoutMs = 5000, everyMs = 5): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await sleep(everyMs);
  }
}

/** Polls `fn` until it returns a value (not undefined), or throws after `ms`. */
export async function until<T>(fn: () => T | undefined, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(10);
  }
}
