import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Redis } from 'ioredis';
import { ClusterSubscriberWatch } from '../../src/store/cluster-subscriber-watch.js';

// The watch's decisions over time, with a stand-in for ioredis's cluster subscriber (the real one:
// test/integration/bus-resync.test.ts).

/** A subscriber connection as the watch sees it: a status, a PING that answers or not, a disconnect. */
function conn(status: string, answers = true) {
  return {
    status,
    disconnects: 0,
    ping: () => (answers ? Promise.resolve('PONG') : new Promise(() => {})),
    disconnect() {
      this.disconnects++;
    },
  };
}
type Conn = ReturnType<typeof conn>;

function setup(first: Conn) {
  const cluster = { current: first as Conn | null };
  const fake = { subscriber: { getInstance: () => cluster.current } } as unknown as Redis;
  const fresh: unknown[] = [];
  const watch = new ClusterSubscriberWatch(fake, { checkMs: 100, stuckMs: 1000, heartbeatMs: 300 }, (c) =>
    fresh.push(c),
  );
  watch.settle();
  return { cluster, fresh, watch };
}

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe('ClusterSubscriberWatch', () => {
  it('a new ready connection is reported once; the first one is not', async () => {
    const a = conn('ready');
    const { cluster, fresh, watch } = setup(a);
    await vi.advanceTimersByTimeAsync(500);
    expect(fresh).toEqual([]);
    const b = conn('connecting');
    cluster.current = b;
    await vi.advanceTimersByTimeAsync(300);
    expect(fresh).toEqual([]);
    b.status = 'ready';
    await vi.advanceTimersByTimeAsync(500);
    expect(fresh).toEqual([b]);
    expect([a.disconnects, b.disconnects]).toEqual([0, 0]);
    watch.stop();
  });

  it('a connection that stays unready for stuckMs is dropped, once', async () => {
    const { cluster, watch } = setup(conn('ready'));
    const hung = conn('connect');
    cluster.current = hung;
    await vi.advanceTimersByTimeAsync(900);
    expect(hung.disconnects).toBe(0);
    await vi.advanceTimersByTimeAsync(300);
    expect(hung.disconnects).toBe(1);
    cluster.current = null; // ioredis is picking a node
    await vi.advanceTimersByTimeAsync(3000);
    expect(hung.disconnects).toBe(1);
    watch.stop();
  });

  it('a ready connection that leaves a PING unanswered for stuckMs is dropped; one that answers is kept', async () => {
    const silent = conn('ready', false);
    const first = setup(silent);
    const fine = conn('ready');
    const second = setup(fine);
    await vi.advanceTimersByTimeAsync(1200);
    expect(silent.disconnects).toBe(0);
    await vi.advanceTimersByTimeAsync(300);
    expect(silent.disconnects).toBe(1);
    await vi.advanceTimersByTimeAsync(5000);
    expect(fine.disconnects).toBe(0);
    first.watch.stop();
    second.watch.stop();
  });
});
