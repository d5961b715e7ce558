import { createHash } from 'node:crypto';
import type { Redis, Cluster } from 'ioredis';

/** A Lua script with its SHA1, run with EVALSHA (falling back to EVAL once per server). */
export interface LuaScript {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
}

/** A script with its SHA, for {@link runScript}. */
export function lua(name: string, source: string): LuaScript {
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * Lua helpers shared by the scripts. An ask key holds a string `<rev> <status> ~<JSON>`: `askHead`
 * reads its rev and status (nil when missing). `currentAsk` reads a run hash's version and current
 * ask id (the id of its version field).
 */
const ASK_READERS = `
local function askHead(key)
  return string.match(redis.call('GETRANGE', key, 0, 31), '^(%d+) ([%w_]+) ')
end
local function currentAsk(run)
  local version = redis.call('HGET', run, 'version')
  if not version then return false, false end
  return version, redis.call('HGET', run, version)
end
`;

/**
 * ZADD to an index and extend the index key's TTL, so an idle index disappears:
 * `zaddExpire(key, mode, score, member, ttl, keep, expected)`. Mode 'SET'; 'MARK' (the lower of
 * the stored and the new score, and always a change: 1 below the stored one when that is already
 * lower); 'IF' (set only while the stored score equals `expected`). `keep` (may be nil or ''):
 * keep only this many highest-scored members. Returns 0, or 1 when 'IF' found another score
 * (nothing written).
 */
const ZADD_FUNCTION = `
local function zaddExpire(key, mode, score, member, ttl, keep, expected)
  score = tonumber(score)
  if mode ~= 'SET' then
    local stored = redis.call('ZSCORE', key, member)
    if mode == 'IF' then
      if not stored or tonumber(stored) ~= tonumber(expected) then return 1 end
    elseif stored and tonumber(stored) <= score then
      score = tonumber(stored) - 1
    end
  end
  redis.call('ZADD', key, score, member)
  if keep and keep ~= '' then redis.call('ZREMRANGEBYRANK', key, 0, -(tonumber(keep) + 1)) end
  if redis.call('PTTL', key) < tonumber(ttl) then redis.call('PEXPIRE', key, ttl) end
  return 0
end
`;

/**
 * Adds one settled ask to its day's insights hash (core/insights.ts, `applyRollup`, is the same
 * rule): `rollup(key, from)` reads at ARGV[from] the key's ttl ms, the scope count, per scope its
 * dimension, value and cap, then the metric count and the metrics; returns the next ARGV index.
 */
const ROLLUP_FUNCTION = `
local function rollup(key, from)
  local ttl, ns, i = ARGV[from], tonumber(ARGV[from + 1]), from + 2
  local scopes = {'*'}
  for _ = 1, ns do
    local dim, scope = ARGV[i], ARGV[i] .. ':' .. ARGV[i + 1]
    if redis.call('HEXISTS', key, 'n|' .. scope) == 0 then
      if tonumber(redis.call('HGET', key, '#' .. dim) or '0') >= tonumber(ARGV[i + 2]) then
        scope = dim .. '~'
      else
        redis.call('HINCRBY', key, '#' .. dim, 1)
      end
    end
    scopes[#scopes + 1] = scope
    i = i + 3
  end
  local nm = tonumber(ARGV[i])
  for m = i + 1, i + nm do
    for _, scope in ipairs(scopes) do redis.call('HINCRBY', key, ARGV[m] .. '|' .. scope, 1) end
  end
  if redis.call('PTTL', key) < tonumber(ttl) then redis.call('PEXPIRE', key, ttl) end
  return i + nm + 1
end
`;

/**
 * The index writes a create or commit makes when it succeeds (store/along-ops.ts builds them):
 * `along(from)` reads their count n at ARGV[from], then each op: 'ZREM' and the member; 'PUT', the
 * value and its ttl ms (a string with a TTL); or 'MARK', 'SET' or 'IF' (as in
 * {@link ZADD_FUNCTION}), the member, the score, the key's ttl ms and `keep` ('IF': the expected
 * score instead). Their keys are the last n KEYS, in order.
 */
const ALONG_FUNCTION = `${ZADD_FUNCTION}${ROLLUP_FUNCTION}
local function along(from)
  local n, i = tonumber(ARGV[from]), from + 1
  for j = #KEYS - n + 1, #KEYS do
    local op, key = ARGV[i], KEYS[j]
    if op == 'ZREM' then
      redis.call('ZREM', key, ARGV[i + 1])
      i = i + 2
    elseif op == 'PUT' then
      redis.call('SET', key, ARGV[i + 1], 'PX', ARGV[i + 2])
      i = i + 3
    elseif op == 'IF' then
      zaddExpire(key, 'IF', ARGV[i + 2], ARGV[i + 1], ARGV[i + 3], '', ARGV[i + 4])
      i = i + 5
    elseif op == 'ROLL' then
      i = rollup(key, i + 1)
    else
      zaddExpire(key, op, ARGV[i + 2], ARGV[i + 1], ARGV[i + 3], ARGV[i + 4])
      i = i + 5
    end
  end
end
`;

/** Return codes of {@link CREATE}. */
export const CreateCode = { created: 0, exists: 1, versionConflict: 2, supersedeConflict: 3 } as const;

/**
 * Creates an ask, superseding the run's pending one. KEYS[1..4] carry the run's hash tag.
 * The run hash holds `version` and maps each of the run's last [6] versions to its ask id (the
 * run's history; the current ask is the version's).
 * KEYS[1] run hash, KEYS[2] new ask, KEYS[3] superseded ask (when superseding), then the keys of
 * the along writes.
 * ARGV[1] expected run version, [2] new ask id, [3] new ask's stored value, [4] new version,
 * [5] ttl ms of the new ask, [6] history length, [7] result channel, [8] history channel,
 * [9] run id, [10] old ask id ('' when not superseding), [11] old stored rev expected, [12] old
 * next value, [13] retention ms, [14] along writes made once created (see {@link ALONG_FUNCTION}).
 * Returns {0} created | {1, stored value} ask id exists | {2} run version moved | {3} superseded ask moved.
 */
export const CREATE = lua(
  'create',
  `${ASK_READERS}${ALONG_FUNCTION}
local existing = redis.call('GET', KEYS[2])
if existing then return {1, existing} end
local version = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if version ~= tonumber(ARGV[1]) then return {2} end
local superseding = ARGV[10] ~= ''
if superseding then
  local _, current = currentAsk(KEYS[1])
  if current ~= ARGV[10] then return {3} end
  local rev, status = askHead(KEYS[3])
  if tonumber(rev) ~= tonumber(ARGV[11]) or status ~= 'pending' then return {3} end
end
local ttl = tonumber(ARGV[5])
local runTtl = math.max(ttl, redis.call('PTTL', KEYS[1]))
if superseding then
  redis.call('SET', KEYS[3], ARGV[12], 'PX', ARGV[13])
  redis.call('PUBLISH', ARGV[7], ARGV[10])
  redis.call('PUBLISH', ARGV[8], ARGV[10] .. ' ' .. ARGV[9])
end
redis.call('SET', KEYS[2], ARGV[3], 'PX', ttl)
redis.call('HSET', KEYS[1], 'version', ARGV[4], ARGV[4], ARGV[2])
local gone = tonumber(ARGV[4]) - tonumber(ARGV[6])
if gone > 0 then redis.call('HDEL', KEYS[1], tostring(gone)) end
redis.call('PEXPIRE', KEYS[1], runTtl)
redis.call('PUBLISH', ARGV[8], ARGV[2] .. ' ' .. ARGV[9])
along(14)
return {0}
`,
);

/** Return codes of {@link COMMIT}. */
export const CommitCode = { ok: 0, conflict: 1, missing: 2 } as const;

/**
 * Compare-and-set of one ask on its stored rev.
 * KEYS[1..2] carry the run's hash tag: KEYS[1] ask, KEYS[2] run hash; then the keys of the along
 * writes. ARGV[1] expected stored rev, [2] next stored value, [3] ttl ms,
 * [4] result channel ('' = do not publish), [5] ask id, [6] history channel, [7] run id, [8] along
 * writes made once committed (see {@link ALONG_FUNCTION}).
 * The run hash is only ever extended to the ask's ttl, so a run outlives its asks.
 * Every commit announces `<askId> <runId>` on the history channel.
 * Returns 0 ok | 1 conflict (rev moved) | 2 missing (no such ask).
 */
export const COMMIT = lua(
  'commit',
  `${ASK_READERS}${ALONG_FUNCTION}
local rev = askHead(KEYS[1])
if not rev then return 2 end
if tonumber(rev) ~= tonumber(ARGV[1]) then return 1 end
local ttl = tonumber(ARGV[3])
redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
local t = redis.call('PTTL', KEYS[2])
if t >= 0 and t < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
if ARGV[4] ~= '' then redis.call('PUBLISH', ARGV[4], ARGV[5]) end
redis.call('PUBLISH', ARGV[6], ARGV[5] .. ' ' .. ARGV[7])
along(8)
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
 * Reads a run: its version and its current ask's stored value, in one round trip.
 * KEYS[1] run hash. ARGV[1] ask key prefix (the current ask's key is the prefix + its id),
 * ARGV[2] '1': the value only when the ask is pending (its header says so; an ended one is not sent).
 * Returns {version or false, current id or false, stored value or false}.
 */
export const GET_RUN = lua(
  'getRun',
  `${ASK_READERS}
local version, current = currentAsk(KEYS[1])
if not current then return {version, false, false} end
if ARGV[2] == '1' then
  local _, status = askHead(ARGV[1] .. current)
  if status ~= 'pending' then return {version, current, false} end
end
return {version, current, redis.call('GET', ARGV[1] .. current)}
`,
);

/**
 * Reads a run's history, newest first, in one round trip: the ask ids of its last versions in the
 * run hash (see {@link CREATE}) and each ask's stored value. KEYS[1] run hash. ARGV[1] ask key
 * prefix, ARGV[2] most asks.
 * Returns {id1, value1 or false, id2, value2 or false, ...}.
 */
export const HISTORY = lua(
  'history',
  `
local limit = tonumber(ARGV[2])
local v = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
local ids, seen = {}, {}
if v > 0 then
  local fields = {}
  for n = v, math.max(1, v - limit + 1), -1 do fields[#fields + 1] = tostring(n) end
  for _, id in ipairs(redis.call('HMGET', KEYS[1], unpack(fields))) do
    if id and not seen[id] then ids[#ids + 1] = id; seen[id] = true end
  end
end
local out = {}
for _, id in ipairs(ids) do
  out[#out + 1] = id
  out[#out + 1] = redis.call('GET', ARGV[1] .. id)
end
return out
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
 * {@link ZADD_FUNCTION} as a script. KEYS[1] zset. ARGV[1] mode, [2] score, [3] member, [4] key
 * ttl ms, [5] keep (may be ''), [6] with 'IF': the expected score.
 */
export const ZADD_EXPIRE = lua(
  'zaddExpire',
  `${ZADD_FUNCTION}
return zaddExpire(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6])
`,
);

/**
 * Sets the next sweep time of many asks at once (the reconciler's batch). KEYS[1] the sweep zset.
 * ARGV[1] key ttl ms, then per ask: member, score, expected score ('' = none). An ask with an
 * expected score is only moved while its stored score still equals it. Returns 1 (written) or 0 per ask.
 */
export const RESWEEP_MANY = lua(
  'resweepMany',
  `
local moved = {}
for i = 2, #ARGV, 3 do
  local expected = ARGV[i + 2]
  local stored = expected ~= '' and redis.call('ZSCORE', KEYS[1], ARGV[i]) or nil
  if expected == '' or (stored and tonumber(stored) == tonumber(expected)) then
    redis.call('ZADD', KEYS[1], ARGV[i + 1], ARGV[i])
    moved[#moved + 1] = 1
  else
    moved[#moved + 1] = 0
  end
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return moved
`,
);

/** {@link ROLLUP_FUNCTION} as a script (Redis Cluster: the day's key is in another slot than the run's). KEYS[1] the day's hash. */
export const ROLLUP = lua(
  'rollup',
  `${ROLLUP_FUNCTION}
rollup(KEYS[1], 1)
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
