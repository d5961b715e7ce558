import { Redis } from 'ioredis';

/** One key of a Redis dump: its type, TTL and every field/value pair (strings: one pair with field ''). */
export interface DumpedKey {
  key: string;
  type: string;
  /** PTTL: -1 no expiry, -2 gone. */
  pttl: number;
  fields: [string, string][];
  /** All fields and values joined, for plain substring searches. */
  text: string;
}

/** Reads every key of the server (SCAN + TYPE + the value by type + PTTL). */
export async function dumpRedis(url: string): Promise<DumpedKey[]> {
  const conn = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await conn.scan(cursor, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    const out: DumpedKey[] = [];
    for (const key of keys) {
      const type = await conn.type(key);
      let fields: [string, string][] = [];
      if (type === 'string') fields = [['', (await conn.get(key)) ?? '']];
      else if (type === 'hash') fields = Object.entries(await conn.hgetall(key));
      else if (type === 'list') fields = (await conn.lrange(key, 0, -1)).map((v, i) => [String(i), v]);
      else if (type === 'set') fields = (await conn.smembers(key)).map((v) => ['', v]);
      else if (type === 'zset') {
        const flat = await conn.zrange(key, '0', '-1', 'WITHSCORES');
        for (let i = 0; i < flat.length; i += 2) fields.push([flat[i]!, flat[i + 1]!]);
      } else if (type === 'stream')
        fields = (await conn.xrange(key, '-', '+')).map(([id, kv]) => [id, JSON.stringify(kv)]);
      else if (type === 'none')
        continue; // expired between SCAN and TYPE
      else fields = [['?', `unknown type ${type}`]];
      out.push({
        key,
        type,
        pttl: await conn.pttl(key),
        fields,
        text: fields.map(([f, v]) => `${f}\u0000${v}`).join('\n'),
      });
    }
    return out;
  } finally {
    conn.disconnect();
  }
}

/** Parses an AOF (RESP multi-bulk commands, as Redis appends them) into argument lists. */
export function parseAof(buf: Buffer): string[][] {
  const commands: string[][] = [];
  let at = 0;
  const line = () => {
    const end = buf.indexOf('\r\n', at);
    if (end < 0) throw new Error(`AOF: unterminated line at ${at}`);
    const text = buf.toString('latin1', at, end);
    at = end + 2;
    return text;
  };
  while (at < buf.length) {
    const head = line();
    if (!head.startsWith('*'))
      throw new Error(`AOF: expected a multi-bulk at ${at}, got ${JSON.stringify(head.slice(0, 20))}`);
    const args: string[] = [];
    for (let n = Number(head.slice(1)); n > 0; n--) {
      const size = Number(line().slice(1));
      args.push(buf.toString('utf8', at, at + size));
      at += size + 2;
    }
    commands.push(args);
  }
  return commands;
}
