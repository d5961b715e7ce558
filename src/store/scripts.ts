import { createHash } from 'node:crypto';
import type { Redis, Cluster } from 'ioredis';

/** A Lua script with its SHA1, run with EVALSHA (falling back to EVAL once per server). */
export interface LuaScript {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
}

function lua(name: string, source: string): LuaScript {
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

/** Return codes of {@link CREATE}. */
export const CreateCode = { created: 0, exists: 1, versionConflict: 2, supersedeConflict: 3 } as const;

/**
 * Creates an ask, superseding the run's pending one. All KEYS carry the run's hash tag.
 * KEYS[1] run hash, KEYS[2] new ask hash, KEYS[3] asks list, KEYS[4] superseded ask hash (optional).
 * ARGV[1] expected run version, [2] new ask id, [3] new rev, [4] new status, [5] new doc,
 * [6] new version, [7] ttl ms of the new ask, [8] history length, [9] result channel,
 * [10] history channel, [11] run id;
 * with KEYS[4]: [12] old ask id, [13] old stored rev expected, [14] old next rev, [15] old next
 * status, [16] old next doc, [17] retention ms.
 * Returns {0} created | {1, doc} ask id exists | {2} run version moved | {3} superseded ask moved.
 */
export const CREATE = lua(
  'create',
  `
if redis.call('EXISTS', KEYS[2]) == 1 then
  return {1, redis.call('HGET', KEYS[2], 'doc')}
end
local version = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if version ~= tonumber(ARGV[1]) then return {2} end
local superseding = #KEYS == 4
if superseding then
  if redis.call('HGET', KEYS[1], 'current') ~= ARGV[12] then return {3} end
  local old = redis.call('HMGET', KEYS[4], 'rev', 'status')
  if tonumber(old[1]) ~= tonumber(ARGV[13]) or old[2] ~= 'pending' then return {3} end
end
local ttl = tonumber(ARGV[7])
local runTtl = math.max(ttl, redis.call('PTTL', KEYS[1]), redis.call('PTTL', KEYS[3]))
if superseding then
  redis.call('HSET', KEYS[4], 'rev', ARGV[14], 'status', ARGV[15], 'doc', ARGV[16])
  redis.call('PEXPIRE', KEYS[4], ARGV[17])
  redis.call('PUBLISH', ARGV[9], ARGV[12])
  redis.call('PUBLISH', ARGV[10], ARGV[12] .. ' ' .. ARGV[11])
end
redis.call('HSET', KEYS[2], 'rev', ARGV[3], 'status', ARGV[4], 'doc', ARGV[5])
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('HSET', KEYS[1], 'version', ARGV[6], 'current', ARGV[2])
redis.call('PEXPIRE', KEYS[1], runTtl)
redis.call('LPUSH', KEYS[3], ARGV[2])
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[8]) - 1)
redis.call('PEXPIRE', KEYS[3], runTtl)
redis.call('PUBLISH', ARGV[10], ARGV[2] .. ' ' .. ARGV[11])
return {0}
`,
);

/** Return codes of {@link COMMIT}. */
export const CommitCode = { ok: 0, conflict: 1, missing: 2 } as const;

/**
 * Compare-and-set of one ask on its stored rev. All KEYS carry the run's hash tag.
 * KEYS[1] ask hash, KEYS[2] run hash, KEYS[3] asks list.
 * ARGV[1] expected stored rev, [2] next rev, [3] next status, [4] next doc, [5] ttl ms,
 * [6] result channel ('' = do not publish), [7] ask id, [8] history channel, [9] run id.
 * The run hash and asks list are only ever extended to the ask's ttl, so a run outlives its asks.
 * Every commit announces `<askId> <runId>` on the history channel.
 * Returns 0 ok | 1 conflict (rev moved) | 2 missing (no such ask).
 */
export const COMMIT = lua(
  'commit',
  `
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return 2 end
if tonumber(rev) ~= tonumber(ARGV[1]) then return 1 end
local ttl = tonumber(ARGV[5])
redis.call('HSET', KEYS[1], 'rev', ARGV[2], 'status', ARGV[3], 'doc', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ttl)
for i = 2, 3 do
  local t = redis.call('PTTL', KEYS[i])
  if t >= 0 and t < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
end
if ARGV[6] ~= '' then redis.call('PUBLISH', ARGV[6], ARGV[7]) end
redis.call('PUBLISH', ARGV[8], ARGV[7] .. ' ' .. ARGV[9])
return 0
`,
);

/**
 * Extends a key's TTL, never shortens it (PEXPIRE GT needs Redis 7; this works on 6.2).
 * KEYS[1] key. ARGV[1] ttl ms. Returns 1 when extended, 0 when missing or already longer.
 */
export const EXTEND_TTL = lua(
  'extendTtl',
  `
local t = redis.call('PTTL', KEYS[1])
if t >= 0 and t < tonumber(ARGV[1]) then return redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 0
`,
);

/**
 * Reads a run: its version and its current ask's document, in one round trip.
 * KEYS[1] run hash. ARGV[1] ask key prefix (the current ask's key is the prefix + its id).
 * Returns {version or false, current id or false, doc or false}.
 */
export const GET_RUN = lua(
  'getRun',
  `
local run = redis.call('HMGET', KEYS[1], 'version', 'current')
if not run[2] then return {run[1], false, false} end
return {run[1], run[2], redis.call('HGET', ARGV[1] .. run[2], 'doc')}
`,
);

/**
 * Claims an idempotency key (SET NX that also returns the existing value; SET NX GET needs Redis 7).
 * KEYS[1] idempotency key. ARGV[1] binding JSON, ARGV[2] ttl ms.
 * Returns nil when this call claimed the key, else the stored binding JSON.
 */
export const CLAIM = lua(
  'claim',
  `
local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`,
);

/**
 * ZADD to an index and extend the index key's TTL, so an idle index disappears.
 * KEYS[1] zset. ARGV[1] mode: 'SET'; 'MARK' (the lower of the stored and the new score, and
 * always a change: 1 below the stored one when that is already lower); 'IF' (set only while the
 * stored score equals ARGV[6]), [2] score, [3] member, [4] key ttl ms, [5] optional (may be ''):
 * keep only this many highest-scored members, [6] with 'IF': the expected score.
 * Returns 0, or 1 when 'IF' found another score (nothing written).
 */
export const ZADD_EXPIRE = lua(
  'zaddExpire',
  `
local score = tonumber(ARGV[2])
if ARGV[1] ~= 'SET' then
  local stored = redis.call('ZSCORE', KEYS[1], ARGV[3])
  if ARGV[1] == 'IF' then
    if not stored or tonumber(stored) ~= tonumber(ARGV[6]) then return 1 end
  elseif stored and tonumber(stored) <= score then
    score = tonumber(stored) - 1
  end
end
redis.call('ZADD', KEYS[1], score, ARGV[3])
if ARGV[5] and ARGV[5] ~= '' then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[5]) + 1)) end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
return 0
`,
);

/** Runs a script by SHA, loading it with EVAL when the server does not know it (NOSCRIPT). */
export async function runScript(
  redis: Redis | Cluster,
  script: LuaScript,
  keys: string[],
  args: (string | number)[],
): Promise<unknown> {
  try {
    return await redis.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.includes('NOSCRIPT')) throw error;
    return redis.eval(script.source, keys.length, ...keys, ...args);
  }
}
