import type { Redis, Cluster } from 'ioredis';

/** Timing of a {@link ClusterSubscriberWatch}, in ms. */
export interface ClusterSubscriberTiming {
  /** How often the subscriber connection is looked at. */
  checkMs: number;
  /** How long a subscriber connection may stay unready, or leave a PING unanswered, before it is dropped. */
  stuckMs: number;
  /** How often a ready subscriber connection is PINGed. */
  heartbeatMs: number;
}

/**
 * The connection an ioredis Cluster subscribes on now, or null. When it drops, ioredis picks a
 * node and subscribes again on a new connection, and tells nobody: the Cluster emits no `ready`.
 * This reads ioredis's own (untyped) `subscriber.getInstance()`; test/integration/bus-resync.test.ts
 * fails if an ioredis upgrade takes it away.
 */
export function clusterSubscriberOf(cluster: Redis | Cluster): Redis | null {
  const subscriber = (cluster as unknown as { subscriber?: { getInstance?(): Redis | null } }).subscriber;
  return subscriber?.getInstance?.() ?? null;
}

/**
 * Looks after the connection an ioredis Cluster subscribes on, which ioredis makes itself: without
 * askgate's socket timeout and without reconnecting it (on its `end` ioredis picks a node again).
 * - A new connection that is ready has subscribed (ioredis sent the SUBSCRIBE when it made it):
 *   `onNew` is called with it, so the bus resyncs (not for the first one).
 * - One that stays unready for `stuckMs` (a handshake a hung link accepted and never answers) or
 *   leaves a PING unanswered that long (a link gone silent) is dropped, so ioredis picks again.
 */
export class ClusterSubscriberWatch {
  private known: Redis | null = null;
  private unready: { conn: Redis; since: number } | null = null;
  private pinged = 0;
  private pinging = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly cluster: Redis | Cluster,
    private readonly timing: ClusterSubscriberTiming,
    private readonly onNew: (conn: Redis) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.timer = setInterval(() => this.check(), timing.checkMs).unref();
  }

  /** Takes the current connection as the first one (no `onNew` for it). */
  settle(): void {
    if (this.known) return;
    this.known = clusterSubscriberOf(this.cluster);
    this.pinged = this.now();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private check(): void {
    const conn = clusterSubscriberOf(this.cluster);
    if (!conn) return;
    const now = this.now();
    if (conn.status !== 'ready') {
      if (this.unready?.conn !== conn) this.unready = { conn, since: now };
      else if (now - this.unready.since >= this.timing.stuckMs) {
        this.unready = null;
        conn.disconnect();
      }
      return;
    }
    this.unready = null;
    if (conn !== this.known) {
      const first = this.known === null;
      this.known = conn;
      this.pinged = now;
      if (!first) this.onNew(conn);
      return;
    }
    if (!this.pinging && now - this.pinged >= this.timing.heartbeatMs) void this.ping(conn, now);
  }

  private async ping(conn: Redis, now: number): Promise<void> {
    this.pinging = true;
    this.pinged = now;
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), this.timing.stuckMs)));
    const answered = conn.ping().then(
      () => false,
      () => false,
    );
    if (await Promise.race([answered, silent])) conn.disconnect();
    clearTimeout(timer);
    this.pinging = false;
  }
}
