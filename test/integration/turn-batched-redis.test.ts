import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { connectWithRetry, createStoreConnection } from '../../src/store/redis-setup.js';
import { TurnBatchedRedis } from '../../src/store/turn-batched-redis.js';
import type { Logger } from '../../src/core/ports.js';

/**
 * The store's connection sends the commands of one turn of the event loop in one socket write
 * (what ioredis's auto-pipelining did, without a Pipeline object per batch): counted here at the
 * socket, against a real redis-server.
 */

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };
let redis: TestRedis;
let conn: Redis;

/** Counts the socket writes (a corked batch is one `_writev`) made while `work` runs. */
async function socketWrites<T>(work: () => Promise<T>): Promise<{ writes: number; result: T }> {
  const socket = conn.stream as unknown as {
    _write: (...a: unknown[]) => unknown;
    _writev?: (...a: unknown[]) => unknown;
  };
  const { _write: write, _writev: writev } = socket;
  let writes = 0;
  socket._write = function (...a) {
    writes++;
    return write.apply(this, a);
  };
  if (writev)
    socket._writev = function (...a) {
      writes++;
      return writev.apply(this, a);
    };
  try {
    const result = await work();
    return { writes, result };
  } finally {
    socket._write = write;
    if (writev) socket._writev = writev;
  }
}

beforeAll(async () => {
  redis = await startRedis();
  conn = createStoreConnection(redis.url);
  await connectWithRetry(conn, quiet, 10_000);
});

afterAll(async () => {
  conn?.disconnect();
  await redis?.stop();
});

describe('TurnBatchedRedis', () => {
  it('is the connection the store is built with', () => {
    expect(conn).toBeInstanceOf(TurnBatchedRedis);
  });

  it('sends the commands issued in one turn in one socket write, replies in order', async () => {
    const { writes, result } = await socketWrites(() =>
      Promise.all([
        conn.set('tb:a', '1'),
        conn.incr('tb:a'),
        conn.get('tb:a'),
        conn.hset('tb:h', 'f', 'v'),
        conn.hgetall('tb:h'),
      ]),
    );
    expect(result).toEqual(['OK', 2, '2', 1, { f: 'v' }]);
    expect(writes).toBe(1);
  });

  it('writes each turn once: commands awaited one after another go out one by one', async () => {
    const { writes, result } = await socketWrites(async () => {
      const seen: (string | null)[] = [];
      for (let i = 0; i < 4; i++) {
        await conn.set('tb:seq', String(i));
        seen.push(await conn.get('tb:seq'));
      }
      return seen;
    });
    expect(result).toEqual(['0', '1', '2', '3']);
    expect(writes).toBe(8);
  });

  it('keeps pipelines and MULTI working beside plain commands of the same turn', async () => {
    await conn.del('tb:m');
    const result = await Promise.all([
      conn.set('tb:m', '10'),
      conn.multi().incr('tb:m').incr('tb:m').exec(),
      conn.pipeline().get('tb:m').exec(),
      conn.get('tb:m'),
    ]);
    expect(result[0]).toBe('OK');
    expect(result[1]).toEqual([
      [null, 11],
      [null, 12],
    ]);
    expect(result[2]).toEqual([[null, '12']]);
    expect(result[3]).toBe('12');
  });

  it('sends a large batch whole (many commands and a large value in one turn)', async () => {
    const big = 'x'.repeat(256 * 1024);
    const keys = Array.from({ length: 500 }, (_, i) => `tb:many:${i}`);
    const { writes, result } = await socketWrites(() =>
      Promise.all([conn.set('tb:big', big), ...keys.map((k, i) => conn.set(k, String(i))), conn.strlen('tb:big')]),
    );
    expect(result.at(-1)).toBe(big.length);
    expect(writes).toBe(1);
    expect(await conn.mget(keys.slice(0, 3))).toEqual(['0', '1', '2']);
  });
});
