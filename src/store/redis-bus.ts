import type { Redis, Cluster } from 'ioredis';
import type { ResultBus } from '../core/ports.js';
import { StoreKeys } from './keys.js';

/**
 * {@link ResultBus} over Redis pub/sub: one SUBSCRIBE to `<prefix>:resolved` per process, dispatched
 * to local listeners by ask id. Pub/sub is at-most-once (a message sent while the subscriber
 * reconnects is lost), so waiters must re-read the record after subscribing and on a timer.
 */
export class RedisResultBus implements ResultBus {
  private readonly channel: string;
  private readonly listeners = new Map<string, Set<() => void>>();
  private readonly subscribed: Promise<void>;
  private closed = false;
  private readonly onMessage = (channel: string, message: string) => {
    if (channel !== this.channel) return;
    for (const listener of [...(this.listeners.get(message) ?? [])]) {
      try {
        listener();
      } catch {
        // A failing listener must not keep the others from waking.
      }
    }
  };

  /** `subscriber` is dedicated to the bus (a subscribed connection can do nothing else); the caller closes both connections after {@link close}. */
  constructor(
    private readonly subscriber: Redis | Cluster,
    private readonly publisher: Redis | Cluster,
    opts: { prefix?: string } = {},
  ) {
    this.channel = new StoreKeys(opts.prefix).resolvedChannel();
    subscriber.on('message', this.onMessage);
    this.subscribed = subscriber.subscribe(this.channel).then(() => undefined);
    this.subscribed.catch(() => undefined);
  }

  /** Builds a bus and waits until its subscription is active. */
  static async create(subscriber: Redis | Cluster, publisher: Redis | Cluster, opts: { prefix?: string } = {}): Promise<RedisResultBus> {
    const bus = new RedisResultBus(subscriber, publisher, opts);
    await bus.ready();
    return bus;
  }

  /** Resolves once the SUBSCRIBE is active; announcements before that are missed. */
  ready(): Promise<void> {
    return this.subscribed;
  }

  subscribe(askId: string, listener: () => void): () => void {
    let set = this.listeners.get(askId);
    if (!set) this.listeners.set(askId, (set = new Set()));
    // Wrapped so the same function subscribed twice gets two independent subscriptions.
    const entry = () => listener();
    set.add(entry);
    return () => {
      const current = this.listeners.get(askId);
      if (!current) return;
      current.delete(entry);
      if (current.size === 0) this.listeners.delete(askId);
    };
  }

  async publish(askId: string): Promise<void> {
    await this.publisher.publish(this.channel, askId);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.subscriber.off('message', this.onMessage);
    if (this.subscriber.status === 'ready') await this.subscriber.unsubscribe(this.channel).catch(() => undefined);
  }
}
