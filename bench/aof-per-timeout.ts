// Diagnostic (not part of npm run bench): what one ask's creation and its timeout append to Redis's
// AOF, by command. `count` API asks with a 4 s timeout on a private Redis (rewrites off), the AOF's
// incremental file read back after they fired. Usage: npx tsx bench/aof-per-timeout.ts [count=500]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startStack } from './lib/stack.js';
import { lanes, sleep } from './lib/http.js';

const count = Number(process.argv[2] ?? 500);
const QUESTION = [{ id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] }];
/** Commands whose first key names what they touch (ids and numbers masked). */
const KEYED = /^(HSET|HMSET|HDEL|HINCRBY|DEL|SET|ZADD|ZREM|XADD|LPUSH|RPUSH|LREM|SADD|SREM|PEXPIREAT|PEXPIRE|EXPIRE)$/;

const stack = await startStack({
  env: { ASKGATE_TIMEOUT_MIN_SECONDS: '1' },
  redisArgs: ['--auto-aof-rewrite-percentage', '0'],
});
try {
  const dir = join(stack.redis.dir, 'appendonlydir');
  const incrFile = () =>
    join(
      dir,
      readdirSync(dir).find((f) => f.includes('.incr.'))!,
    );
  const size0 = statSync(incrFile()).size;
  await lanes(count, 50, (i) =>
    stack.api.json('POST', '/v1/asks', { runId: `aof-${i}`, questions: QUESTION, timeoutSeconds: 4 }).then(() => {}),
  );
  await sleep(1000);
  const size1 = statSync(incrFile()).size;
  await sleep(6000);
  const aof = readFileSync(incrFile());
  const byCommand = new Map<string, { n: number; bytes: number }>();
  let at = size1;
  const line = () => {
    const end = aof.indexOf('\r\n', at);
    const text = aof.toString('latin1', at, end);
    at = end + 2;
    return text;
  };
  while (at < aof.length) {
    const start = at;
    const head = line();
    if (!head.startsWith('*')) continue;
    const args: string[] = [];
    for (let k = Number(head.slice(1)); k > 0; k--) {
      const len = Number(line().slice(1));
      args.push(aof.toString('latin1', at, at + len));
      at += len + 2;
    }
    let name = args[0]!.toUpperCase();
    if (KEYED.test(name)) name += ` ${(args[1] ?? '').replace(/[\w-]{10,}/g, '<id>').replace(/\d+/g, 'N')}`;
    const entry = byCommand.get(name) ?? { n: 0, bytes: 0 };
    entry.n++;
    entry.bytes += at - start;
    byCommand.set(name, entry);
  }
  console.log(
    `creation: ${((size1 - size0) / count).toFixed(0)} B per ask; timeout: ${((aof.length - size1) / count).toFixed(0)} B per ask`,
  );
  for (const [name, e] of [...byCommand].sort((a, b) => b[1].bytes - a[1].bytes))
    console.log(`${(e.bytes / count).toFixed(0).padStart(6)} B  ${(e.n / count).toFixed(2).padStart(5)}×  ${name}`);
} finally {
  await stack.close();
}
