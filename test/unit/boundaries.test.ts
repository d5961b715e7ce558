import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const sources = files(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }));
const importsOf = (text: string) => [...text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);

/** Which folders may import each SDK (architecture rule 2). */
const SDK_HOMES: Record<string, RegExp> = {
  grammy: /^channels\/telegram\//,
  '@grammyjs/': /^channels\/telegram\//,
  '@slack/': /^channels\/slack\//,
  'discord.js': /^channels\/discord\//,
  '@discordjs/': /^channels\/discord\//,
  bullmq: /^queue\//,
  ioredis: /^(store\/|queue\/|main\.ts$)/,
};

describe('architecture boundaries', () => {
  it('scans the source tree', () => {
    expect(sources.length).toBeGreaterThan(10);
  });

  it.each(Object.entries(SDK_HOMES))('%s is imported only where it belongs', (sdk, home) => {
    const offenders = sources.filter((f) => importsOf(f.text).some((i) => i === sdk || i.startsWith(sdk.endsWith('/') ? sdk : `${sdk}/`)) && !home.test(f.path));
    expect(offenders.map((f) => f.path)).toEqual([]);
  });

  it('core is pure: relative imports and zod only, no clock, env or I/O', () => {
    const core = sources.filter((f) => f.path.startsWith('core/'));
    for (const f of core) {
      for (const spec of importsOf(f.text)) expect([f.path, spec]).toEqual([f.path, spec.startsWith('.') || spec === 'zod' ? spec : 'forbidden']);
      expect([f.path, /Date\.now\(\)|process\.env|Math\.random\(\)/.test(f.text)]).toEqual([f.path, false]);
    }
  });

  it('only main.ts builds concrete stores, queues and channels', () => {
    const builders = /new (RedisAskStore|MemoryAskStore|BullTimeoutScheduler|BullOutbox|MemoryOutbox|MemoryTimeoutScheduler|TelegramChannel|SlackChannel|DiscordChannel)\b/;
    const offenders = sources.filter((f) => builders.test(f.text) && f.path !== 'main.ts' && !f.path.startsWith('channels/index'));
    expect(offenders.map((f) => f.path)).toEqual([]);
  });

  it('source files stay small', () => {
    const big = sources.filter((f) => f.text.split('\n').length > 330).map((f) => f.path);
    expect(big).toEqual([]);
  });
});
