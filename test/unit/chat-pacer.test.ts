import { describe, expect, it } from 'vitest';
import { ChatPacer, MAX_INLINE_WAIT_MS } from '../../src/channels/telegram/limits.js';
import { ChannelError } from '../../src/core/ports.js';

describe('ChatPacer', () => {
  it('spaces the sends to one chat, not across chats', async () => {
    const pacer = new ChatPacer(120);
    const t0 = Date.now();
    await pacer.take('1');
    await pacer.take('2');
    expect(Date.now() - t0).toBeLessThan(60);
    await pacer.take('1');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(115);
  });

  it('a 429 that arrives while a send waits for its slot holds that send until the block ends', async () => {
    const pacer = new ChatPacer(100);
    await pacer.take('1');
    const t0 = Date.now();
    const waiting = pacer.take('1'); // slot in ~100 ms
    // The first send comes back 429 retry_after 0.4 s while the second one waits.
    setTimeout(() => pacer.blockUntil('1', t0 + 400), 20);
    await waiting;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(395);
  });

  it('a block longer than the inline wait sends the waiting job back to the queue with the time left', async () => {
    const pacer = new ChatPacer(100);
    await pacer.take('-100');
    const t0 = Date.now();
    const waiting = pacer.take('-100');
    setTimeout(() => pacer.blockUntil('-100', t0 + MAX_INLINE_WAIT_MS + 1000), 20);
    const error = await waiting.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ChannelError);
    expect((error as ChannelError).permanent).toBe(false);
    expect((error as ChannelError).retryAfterMs).toBeGreaterThan(MAX_INLINE_WAIT_MS);
    // `force` (a reply to a person, which must not be dropped) goes anyway.
    await expect(pacer.take('-100', true)).resolves.toBeUndefined();
  });
});
