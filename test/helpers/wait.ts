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
