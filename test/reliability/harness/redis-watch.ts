import { Redis } from 'ioredis';
import type { History } from './history.js';
import { parseStoredAsk } from '../../../src/store/ask-doc.js';
import { isAuditKey } from '../../helpers/audit-keys.js';

/** What the test reads of a stored ask (straight from Redis, never through askgate). */
export interface StoredAsk {
  id: string;
  runId: string;
  version: number;
  status: string;
  expiresAt: string;
  to: { channel: string; chat: string; users?: string[] } | null;
  result: any;
  deliveries: {
    channel: string;
    chat: string;
    status: string;
    finalized: string;
    message?: { chat: string; messageId: string };
  }[];
  history: { type: string; at: string; reason?: string }[];
}

/** BullMQ key names that exist once per queue (not per job). */
const QUEUE_KEYS = new Set([
  'meta',
  'id',
  'events',
  'delayed',
  'wait',
  'active',
  'paused',
  'stalled',
  'stalled-check',
  'marker',
  'completed',
  'failed',
  'prioritized',
  'pc',
  'limiter',
  'repeat',
  'de',
  'waiting-children',
]);
const QUEUES = ['askgate-timeouts', 'askgate-outbox'];

/**
 * The test's own view of Redis: a separate subscriber counting PUBLISHes on `<prefix>:resolved`
 * (each one is a `notify` event in the history), record reads, queue counts and the TTL audit.
 */
export class RedisWatch {
  /** PUBLISH count per ask id. */
  readonly publishes = new Map<string, number>();
  /** Called for every PUBLISH seen (crash triggers hook in here). */
  readonly onPublish = new Set<(askId: string) => void>();
  private constructor(
    private readonly cmd: Redis,
    private readonly sub: Redis,
    readonly prefix: string,
    private readonly history: History,
  ) {}

  /** Connects both connections and waits until the subscription is active. */
  static async start(url: string, prefix: string, history: History): Promise<RedisWatch> {
    const cmd = new Redis(url, { maxRetriesPerRequest: 2, retryStrategy: () => 100 });
    const sub = new Redis(url, { retryStrategy: () => 100 });
    cmd.on('error', () => {});
    sub.on('error', () => {});
    const watch = new RedisWatch(cmd, sub, prefix, history);
    sub.on('message', (_channel: string, askId: string) => {
      watch.publishes.set(askId, (watch.publishes.get(askId) ?? 0) + 1);
      history.observe('notify', { askId });
      for (const listener of watch.onPublish) listener(askId);
    });
    await sub.subscribe(`${prefix}:resolved`);
    return watch;
  }

  /**
   * A record as stored, or null: read straight from Redis (never through askgate's process), and
   * decoded from its stored form (`<rev> <status> <compact JSON>`) by the store's own decoder.
   */
  async get(askId: string): Promise<StoredAsk | null> {
    const runId = await this.cmd.get(`${this.prefix}:id:${askId}`);
    if (runId === null) return null;
    const key = `${this.prefix}:{${runId}}:ask:${askId}`;
    const value = await this.cmd.get(key);
    return value === null ? null : (parseStoredAsk(value, key, { id: askId, runId }) as StoredAsk);
  }

  /** Reads many records (null for missing ones), tolerating a Redis that is briefly away. */
  async getMany(askIds: readonly string[]): Promise<Map<string, StoredAsk | null>> {
    const out = new Map<string, StoredAsk | null>();
    for (let i = 0; i < askIds.length; i += 50) {
      const slice = askIds.slice(i, i + 50);
      const records = await Promise.all(slice.map((id) => this.get(id)));
      slice.forEach((id, j) => out.set(id, records[j]!));
    }
    return out;
  }

  /** Writes one `final` event per ask (the record at the end of the run) and returns the records. */
  async finals(askIds: readonly string[]): Promise<Map<string, StoredAsk | null>> {
    const records = await this.getMany(askIds);
    for (const [askId, r] of records) {
      const terminal = r ? r.history.filter((h) => h.type === 'answered' || h.type === 'no_answer').length : 0;
      this.history.observe('final', {
        askId,
        ...(r ? { runId: r.runId, version: r.version } : {}),
        result: r?.status ?? 'missing',
        data: r
          ? {
              result: r.result,
              expiresAt: r.expiresAt,
              to: r.to,
              deliveries: r.deliveries,
              terminalTransitions: terminal,
            }
          : {},
      });
    }
    return records;
  }

  /** Jobs per state of both askgate queues (prefix `{<prefix>}`). */
  async queueCounts(): Promise<{ active: number; wait: number; delayed: number }> {
    const q = (name: string, key: string) => `{${this.prefix}}:${name}:${key}`;
    const [active, wait, delayed] = await Promise.all([
      Promise.all(QUEUES.map((n) => this.cmd.llen(q(n, 'active')))),
      Promise.all(QUEUES.map((n) => this.cmd.llen(q(n, 'wait')))),
      Promise.all(QUEUES.map((n) => this.cmd.zcard(q(n, 'delayed')))),
    ]);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    return { active: sum(active), wait: sum(wait), delayed: sum(delayed) };
  }

  /** What the queues hold, for a row that did not settle: waiting and active job ids with their data, and the clients. */
  async queueDump(): Promise<string> {
    const q = (name: string, key: string) => `{${this.prefix}}:${name}:${key}`;
    const out: string[] = [];
    for (const n of QUEUES) {
      for (const list of ['wait', 'active']) {
        for (const id of await this.cmd.lrange(q(n, list), 0, -1)) {
          const job = await this.cmd.hgetall(q(n, id));
          out.push(`${n} ${list} ${id} ${JSON.stringify(job)}`);
        }
      }
      out.push(`${n} marker ${JSON.stringify(await this.cmd.zrange(q(n, 'marker'), '0', '-1', 'WITHSCORES'))}`);
      out.push(`${n} meta ${JSON.stringify(await this.cmd.hgetall(q(n, 'meta')))}`);
    }
    out.push(String(await this.cmd.client('LIST')));
    return out.join('\n');
  }

  /**
   * Every store key (`<prefix>:*`) but the audit trail's must have a TTL; BullMQ keys (`{<prefix>}:*`) are either
   * per-queue singletons or belong to a job still in a queue state. Each offender is a `key` event.
   */
  async ttlAudit(): Promise<{ storeKeys: number; withoutTtl: string[]; queueKeys: number; orphanJobKeys: string[] }> {
    const withoutTtl: string[] = [];
    const storeKeys = await this.scan(`${this.prefix}:*`);
    for (let i = 0; i < storeKeys.length; i += 200) {
      const slice = storeKeys.slice(i, i + 200);
      const pipe = this.cmd.pipeline();
      for (const k of slice) pipe.pttl(k);
      const ttls = (await pipe.exec()) ?? [];
      ttls.forEach(([, ttl], j) => {
        // The audit trail's keys live without a TTL by design (test/helpers/audit-keys.ts).
        if (ttl === -1 && !isAuditKey(slice[j]!)) withoutTtl.push(slice[j]!);
      });
    }
    const queueKeys = await this.scan(`{${this.prefix}}:*`);
    const live = new Set<string>();
    for (const n of QUEUES) {
      const base = `{${this.prefix}}:${n}`;
      const ids = [
        ...(await this.cmd.lrange(`${base}:active`, 0, -1)),
        ...(await this.cmd.lrange(`${base}:wait`, 0, -1)),
        ...(await this.cmd.zrange(`${base}:delayed`, '0', '-1')),
        ...(await this.cmd.zrange(`${base}:failed`, '0', '-1')),
        ...(await this.cmd.zrange(`${base}:prioritized`, '0', '-1')),
      ];
      for (const id of ids) live.add(`${n}:${id}`);
    }
    const orphanJobKeys = queueKeys.filter((k) => {
      const [, queue, job] = /^\{[^}]+\}:([^:]+):([^:]+)/.exec(k) ?? [];
      return queue !== undefined && job !== undefined && !QUEUE_KEYS.has(job) && !live.has(`${queue}:${job}`);
    });
    for (const key of [...withoutTtl, ...orphanJobKeys])
      this.history.observe('key', { result: withoutTtl.includes(key) ? 'no ttl' : 'orphan job key', data: { key } });
    return { storeKeys: storeKeys.length, withoutTtl, queueKeys: queueKeys.length, orphanJobKeys };
  }

  /** The watcher's command connection, for ad-hoc checks (INFO, CONFIG, job hashes). */
  raw(): Redis {
    return this.cmd;
  }

  /** Closes both connections. */
  async close(): Promise<void> {
    this.sub.disconnect();
    this.cmd.disconnect();
  }

  private async scan(match: string): Promise<string[]> {
    const keys: string[] = [];
    let cursor = '0';
    for (let i = 0; i < 100_000; i++) {
      const [next, batch] = await this.cmd.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
      if (cursor === '0') break;
    }
    return keys;
  }
}
