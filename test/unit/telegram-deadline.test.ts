import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallDeadline, deadline } from '../../src/channels/telegram/limits.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('deadline (a Bot API call timeout)', () => {
  it('fires its listener ms after the call adds it, once, and is aborted from then on', () => {
    vi.useFakeTimers();
    const signal = new CallDeadline(1000);
    const listener = vi.fn();
    vi.advanceTimersByTime(5000); // the clock runs from the listener, not from the signal's making
    signal.addEventListener('abort', listener);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(999);
    expect(listener).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(listener).toHaveBeenCalledTimes(1);
    expect(signal.aborted).toBe(true);
    vi.advanceTimersByTime(5000);
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('a call that ends in time removes its listener: the timer is gone and nothing fires', () => {
    vi.useFakeTimers();
    const signal = new CallDeadline(1000);
    const listener = vi.fn();
    signal.addEventListener('abort', listener);
    expect(vi.getTimerCount()).toBe(1);
    signal.removeEventListener('abort', listener);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(2000);
    expect(listener).not.toHaveBeenCalled();
    expect(signal.aborted).toBe(false);
  });

  it('starts no timer while nothing listens (a webhook reply makes no HTTP call)', () => {
    vi.useFakeTimers();
    deadline(1000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('aborts a grammy call that outlives it', async () => {
    const { Api, HttpError } = await import('grammy');
    const api = new Api('123:abc', {
      // A Bot API that never answers, but gives up when the request is aborted.
      fetch: ((_url: string, init: { signal: AbortSignal }) =>
        new Promise((_resolve, reject) =>
          init.signal.addEventListener('abort', () => reject(new Error('aborted'))),
        )) as unknown as typeof fetch,
    });
    const started = Date.now();
    const call = api.getMe(deadline(50));
    await expect(call).rejects.toBeInstanceOf(HttpError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });
});
