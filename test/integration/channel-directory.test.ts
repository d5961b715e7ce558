import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelDirectory } from '../../src/core/ports.js';
import {
  DIRECTORY_VALUE_MAX,
  MemoryChannelDirectory,
  RedisChannelDirectory,
} from '../../src/store/channel-directory.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { redisForFile } from '../helpers/redis-file.js';

const file = redisForFile();
let redis: Redis;
beforeAll(() => {
  redis = new Redis(file.redis.url);
});
afterAll(() => redis?.quit());

const kinds: [string, () => ChannelDirectory][] = [
  ['memory', () => new MemoryChannelDirectory()],
  ['redis', () => new RedisChannelDirectory(redis, { prefix: `d${Math.random().toString(36).slice(2, 8)}` })],
];

describe.each(kinds)('ChannelDirectory (%s)', (_name, make) => {
  it('keeps, replaces and reads an entry per channel; another channel does not see it', async () => {
    const d = make();
    expect(await d.get('teams', '19:abc')).toBeNull();
    await d.put('teams', '19:abc', '{"serviceUrl":"https://a"}');
    await d.put('teams', '19:abc', '{"serviceUrl":"https://b"}');
    expect(await d.get('teams', '19:abc')).toBe('{"serviceUrl":"https://b"}');
    expect(await d.get('slack', '19:abc')).toBeNull();
  });

  it('lists every entry across pages, each once', async () => {
    const d = make();
    for (let i = 0; i < 230; i++) await d.put('teams', `c${i}`, `{"n":${i}}`);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await d.list('teams', { limit: 50, ...(cursor ? { cursor } : {}) });
      seen.push(...page.entries.map((e) => e.key));
      cursor = page.cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(230);
    expect(seen).toHaveLength(230);
  });

  it('refuses an empty key and a value over the limit', async () => {
    const d = make();
    await expect(d.put('teams', '', '{}')).rejects.toThrow(RangeError);
    await expect(d.put('teams', 'k', 'x'.repeat(DIRECTORY_VALUE_MAX + 1))).rejects.toThrow(RangeError);
  });
});

describe('GET /v1/channels/:channel/conversations', () => {
  it('lists what a channel learned, behind the API token; bad paging is a 400 naming the field', async () => {
    const prefix = 'dirroute';
    const env = { ASKGATE_API_TOKEN: 'directory-token-0123', REDIS_URL: file.redis.url, ASKGATE_KEY_PREFIX: prefix };
    const app = await startTestApp(testEnv(env));
    try {
      // What the Teams channel would have learned, written as another replica would.
      const dir = new RedisChannelDirectory(redis, { prefix });
      await dir.put('teams', '19:room@thread.tacv2', JSON.stringify({ name: 'Ops', kind: 'channel' }));
      await dir.put('teams', 'a:broken', 'not json');
      const get = (path: string, token = 'directory-token-0123') =>
        fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect((await get('/v1/channels/teams/conversations', 'wrong')).status).toBe(401);
      const r = await get('/v1/channels/teams/conversations');
      expect(r.status).toBe(200);
      const body = (await r.json()) as { channel: string; conversations: { id: string }[] };
      expect(body.channel).toBe('teams');
      expect(body.conversations).toEqual(
        expect.arrayContaining([{ id: '19:room@thread.tacv2', name: 'Ops', kind: 'channel' }, { id: 'a:broken' }]),
      );
      const bad = await get('/v1/channels/teams/conversations?limit=0&cursor=x');
      expect(bad.status).toBe(400);
      const issues = ((await bad.json()) as { error: { issues: { path: string[] }[] } }).error.issues;
      expect(issues.map((i) => i.path.join('.'))).toEqual(expect.arrayContaining(['limit', 'cursor']));
      expect((await get('/v1/channels/Not%20A%20Channel/conversations')).status).toBe(400);
      const empty = (await (await get('/v1/channels/slack/conversations')).json()) as { conversations: unknown[] };
      expect(empty.conversations).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
