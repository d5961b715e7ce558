import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { startRedis, type TestRedis } from '../../helpers/redis-server.js';
import { FaultProxy } from '../../helpers/fault-proxy.js';
import { check, type CheckOptions, type CheckReport } from './checker.js';
import { ARTIFACTS, History } from './history.js';
import { AskgateNode } from './node.js';
import { RedisWatch, type StoredAsk } from './redis-watch.js';

/** Options of a {@link World}. */
export interface WorldOptions {
  /** Name of the history file and summary (`history-<name>.jsonl`). */
  name: string;
  /** Default matrix row of events. */
  row: string;
  /** Extra redis-server arguments (AOF for durability rows). */
  redisArgs?: string[];
  /** Put a {@link FaultProxy} between askgate and Redis. */
  proxy?: boolean;
}

/**
 * Base environment of every askgate child: fast reconciler and retries, a 2 s minimum timeout
 * (real timers; the rows pick their own timeouts), warn-level logs.
 */
export function baseEnv(prefix: string, redisUrl: string): Record<string, string> {
  return {
    REDIS_URL: redisUrl,
    ASKGATE_KEY_PREFIX: prefix,
    ASKGATE_TIMEOUT_MIN_SECONDS: '2',
    ASKGATE_RECONCILE_INTERVAL_MS: '250',
    ASKGATE_RECONCILE_GRACE_MS: '1000',
    ASKGATE_SWEEP_DELAY_MS: '2000',
    ASKGATE_OUTBOX_BASE_DELAY_MS: '100',
    ASKGATE_OUTBOX_MAX_DELAY_MS: '2000',
    LOG_LEVEL: 'warn',
  };
}

/**
 * One reliability scenario: a private redis-server (optionally behind a fault proxy), the
 * history log, the test's own Redis watcher, and the askgate children it starts.
 */
export class World {
  readonly nodes: AskgateNode[] = [];
  private constructor(
    readonly history: History,
    readonly redis: TestRedis,
    /** The test's own Redis watcher (re-pointed by {@link rewatch} after a failover). */
    public watch: RedisWatch,
    readonly proxy: FaultProxy | null,
    /** Key prefix of this scenario (unique per run). */
    readonly prefix: string,
  ) {}

  /** Starts Redis, the proxy and the watcher. */
  static async create(options: WorldOptions): Promise<World> {
    const history = new History(options.name, options.row);
    const redis = await startRedis(options.redisArgs ?? []);
    const proxy = options.proxy ? await FaultProxy.start(redis.port) : null;
    const prefix = `rel${randomBytes(3).toString('hex')}`;
    const watch = await RedisWatch.start(redis.url, prefix, history);
    return new World(history, redis, watch, proxy, prefix);
  }

  /** Points the watcher at another Redis (the promoted replica after a failover). */
  async rewatch(url: string): Promise<void> {
    await this.watch.close();
    this.watch = await RedisWatch.start(url, this.prefix, this.history);
  }

  /** The Redis URL askgate children use (through the proxy when there is one). */
  get askgateRedisUrl(): string {
    return this.proxy ? this.proxy.redisUrl : this.redis.url;
  }

  /** Builds (not starts) an askgate node with the base env plus `extra`. */
  node(name: string, extra: Record<string, string> = {}): AskgateNode {
    const node = new AskgateNode(name, { ...baseEnv(this.prefix, this.askgateRedisUrl), ...extra }, this.history);
    this.nodes.push(node);
    return node;
  }

  /** The first running node (for API calls that any replica can serve). */
  anyUp(): AskgateNode {
    const up = this.nodes.find((n) => n.up);
    if (!up) throw new Error('no askgate node is up');
    return up;
  }

  /**
   * Waits (bounded) until every ask is terminal with its messages edited and no queue job is
   * active or waiting, so stalled jobs have re-run before the invariants are checked.
   */
  async settle(askIds: readonly string[], ms: number, opts: { finalized?: boolean } = {}): Promise<number> {
    const started = Date.now();
    const unfinished = (r: StoredAsk): string | null => {
      if (r.status === 'pending') return 'pending';
      if (opts.finalized === false) return null;
      const open = r.deliveries.filter(
        (d) => d.status === 'pending' || (d.status !== 'failed' && d.finalized === 'no'),
      );
      return open.length > 0 ? `deliveries ${JSON.stringify(open)}` : null;
    };
    let left = 'not read yet';
    for (let round = 0; round < 10_000; round++) {
      const records = await this.watch.getMany(askIds).catch(() => null);
      const queues = await this.watch.queueCounts().catch(() => null);
      const asks = records
        ? [...records].flatMap(([id, r]) => {
            const why = r === null ? null : unfinished(r);
            return why === null ? [] : [`${id}: ${why}`];
          })
        : ['records unreadable'];
      const busy =
        queues === null ? 'queues unreadable' : queues.active + queues.wait > 0 ? JSON.stringify(queues) : '';
      if (asks.length === 0 && busy === '') return Date.now() - started;
      left = [busy, ...asks].filter(Boolean).join('; ');
      if (Date.now() - started > ms) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    // A row that fails on settling says what it waited for; the history file has the rest.
    this.history.inject('measure', { data: { unsettled: left } });
    console.error(`[${this.history.name}] not settled after ${ms} ms: ${left}`);
    console.error(await this.watch.queueDump().catch((err) => String(err)));
    return -1;
  }

  /** Final records, TTL audit and the invariant check over the history file. */
  async verdict(
    askIds: readonly string[],
    options: CheckOptions,
  ): Promise<CheckReport & { ttl: Awaited<ReturnType<RedisWatch['ttlAudit']>> }> {
    await this.watch.finals(askIds);
    const ttl = await this.watch.ttlAudit();
    const report = check(this.history.read(), options);
    return { ...report, ttl };
  }

  /** Stops every node, the watcher, the proxy and Redis. */
  async close(): Promise<void> {
    for (const node of this.nodes) await node.stop().catch(() => {});
    await this.watch.close();
    await this.proxy?.close();
    await this.redis.dispose();
  }
}

/** One row's outcome for docs/RELIABILITY.md. */
export interface RowSummary {
  row: string;
  title: string;
  platform: string;
  injected: string;
  figures: Record<string, unknown>;
  violations: string[];
  extra?: Record<string, unknown>;
}

/** Writes `test-artifacts/reliability/summary-<name>.json` (rendered into the doc by render-doc.ts). */
export function writeSummary(name: string, rows: RowSummary[]): void {
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(
    resolve(ARTIFACTS, `summary-${name}.json`),
    JSON.stringify({ name, at: new Date().toISOString(), rows }, null, 2),
  );
}
