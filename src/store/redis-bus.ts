import type { Redis, Cluster } from 'ioredis';
import type { ResultBus } from '../core/ports.js';
import { StoreKeys } from './keys.js';
import { Listeners } from './listeners.js';
import { ClusterSubscriberWatch } from './cluster-subscriber-watch.js';
import { STORE_SOCKET_TIMEOUT_MS } from './redis-setup.js';

const ALL = '*';
/** How often an idle subscriber is PINGed by default (see {@link RedisResultBus}). */
export const BUS_HEARTBEAT_MS = 10_000;
/** Pauses between the publisher's PINGs before a resync (about 3 s in all). */
const RESYNC_WAITS_MS = [100, 200, 400, 800, 1600];
/** How often the bus looks at a Cluster subscriber connection by default (see {@link ClusterSubscriberWatch}). */
export const CLUSTER_SUBSCRIBER_CHECK_MS = 500;

/** What answers a PING. */
type Pingable = { ping(): Promise<unknown> };

/** Options of {@link RedisResultBus}; the times are in ms and tests shorten them. */
export interface RedisResultBusOptions {
  /** Key prefix (default `askgate`). */
  prefix?: string;
  /** How often an idle subscriber is PINGed (default {@link BUS_HEARTBEAT_MS}). */
  heartbeatMs?: number;
  /** How often a Cluster subscriber connection is looked at (default {@link CLUSTER_SUBSCRIBER_CHECK_MS}). */
  clusterCheckMs?: number;
  /** How long a Cluster subscriber connection may hang before it is dropped (default: the store's socket timeout). */
  clusterStuckMs?: number;
}

/**
 * {@link ResultBus} over Redis pub/sub: one SUBSCRIBE to `<prefix>:resolved` per process, dispatched
 * to local listeners by ask id. Pub/sub is at-most-once (a message sent while the subscriber
 * reconnects is lost), so waiters re-read the record after subscribing, and again when the
 * subscription is back after a reconnect ({@link onResync}).
 */
export class RedisResultBus implements ResultBus {
  private readonly channel: string;
  private readonly historyChannel: string;
  private readonly results = new Listeners();
  private readonly history = new Listeners<[string, string]>();
  private readonly resyncs = new Listeners();
  private readonly subscribed: Promise<void>;
  private readonly heartbeat: NodeJS.Timeout | null;
  /** On a Cluster: the watch over the connection ioredis subscribes on. */
  private readonly clusterWatch: ClusterSubscriberWatch | null;
  private closed = false;
  private readonly onMessage = (channel: string, message: string) => {
    if (channel === this.channel) this.results.emit(message, []);
    else if (channel === this.historyChannel) {
      const [askId, runId] = message.split(' ');
      if (askId && runId) this.history.emit(ALL, [askId, runId]);
    }
  };
  /**
   * The connection is ready again: ioredis has re-sent the SUBSCRIBE on it, and a PING sent now is
   * answered after it, so once the PING is back no announcement from then on is missed. The
   * listeners re-read through the publisher's connection (the store's), which may come back later
   * than this one: it is waited for, up to {@link RESYNC_WAITS_MS}.
   */
  private readonly onReady = () => {
    void this.subscribed.then(
      () => this.resync(),
      () => undefined,
    );
  };

  /** Tells the listeners to re-read, once the subscription (PINGed `via`) and the publisher's connection answer. */
  private async resync(via: Pingable = this.subscriber): Promise<void> {
    await via.ping().catch(() => undefined);
    const answers = () =>
      this.publisher.ping().then(
        () => true,
        () => false,
      );
    for (const ms of RESYNC_WAITS_MS) {
      if (this.closed || (await answers())) break;
      await new Promise((resolve) => setTimeout(resolve, ms).unref());
    }
    if (!this.closed) this.resyncs.emit(ALL, []);
  }

  /**
   * `subscriber` is dedicated to the bus (a subscribed connection can do nothing else); the caller
   * closes both connections after {@link close}. A standalone subscriber is PINGed every
   * `heartbeatMs`: an idle subscribed connection sends nothing, so a link that went silent would
   * only be noticed by TCP keepalive, minutes later; with a PING outstanding its socket timeout
   * drops it, ioredis reconnects, and the resync re-reads what was missed. On a Cluster a
   * {@link ClusterSubscriberWatch} does this for the connection ioredis subscribes on, and a new
   * such connection means a resync.
   */
  constructor(
    private readonly subscriber: Redis | Cluster,
    private readonly publisher: Redis | Cluster,
    opts: RedisResultBusOptions = {},
  ) {
    const keys = new StoreKeys(opts.prefix);
    this.channel = keys.resolvedChannel();
    this.historyChannel = keys.historyChannel();
    subscriber.on('message', this.onMessage);
    subscriber.on('ready', this.onReady);
    this.subscribed = subscriber.subscribe(this.channel, this.historyChannel).then(() => undefined);
    this.subscribed.catch(() => undefined);
    const heartbeatMs = opts.heartbeatMs ?? BUS_HEARTBEAT_MS;
    // On a Cluster a PING goes to any node, not to the subscriber's: the watch PINGs that one.
    this.heartbeat = subscriber.isCluster
      ? null
      : setInterval(() => {
          if (subscriber.status === 'ready') subscriber.ping().catch(() => undefined);
        }, heartbeatMs).unref();
    const timing = {
      checkMs: opts.clusterCheckMs ?? CLUSTER_SUBSCRIBER_CHECK_MS,
      stuckMs: opts.clusterStuckMs ?? STORE_SOCKET_TIMEOUT_MS,
      heartbeatMs,
    };
    this.clusterWatch = subscriber.isCluster
      ? new ClusterSubscriberWatch(subscriber, timing, (conn) => void this.resync(conn))
      : null;
    this.subscribed.then(
      () => this.clusterWatch?.settle(),
      () => undefined,
    );
  }

  /** Builds a bus and waits until its subscription is active. */
  static async create(
    subscriber: Redis | Cluster,
    publisher: Redis | Cluster,
    opts: RedisResultBusOptions = {},
  ): Promise<RedisResultBus> {
    const bus = new RedisResultBus(subscriber, publisher, opts);
    await bus.ready();
    return bus;
  }

  /** Resolves once the SUBSCRIBE is active; announcements before that are missed. */
  ready(): Promise<void> {
    return this.subscribed;
  }

  subscribe(askId: string, listener: () => void): () => void {
    return this.results.add(askId, listener);
  }

  subscribeHistory(listener: (askId: string, runId: string) => void): () => void {
    return this.history.add(ALL, listener);
  }

  onResync(listener: () => void): () => void {
    return this.resyncs.add(ALL, listener);
  }

  async notifyHistory(askId: string, runId: string): Promise<void> {
    // runIds never contain spaces (RunIdSchema), so "askId runId" is unambiguous.
    await this.publisher.publish(this.historyChannel, `${askId} ${runId}`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.clusterWatch?.stop();
    this.results.clear();
    this.history.clear();
    this.resyncs.clear();
    this.subscriber.off('message', this.onMessage);
    this.subscriber.off('ready', this.onReady);
    if (this.subscriber.status === 'ready')
      await this.subscriber.unsubscribe(this.channel, this.historyChannel).catch(() => undefined);
  }
}
