import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHANNELS } from '../../src/channels/registry.js';

const SRC = resolve(import.meta.dirname, '../../src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const sources = files(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }));
const importsOf = (text: string) => [...text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);

/** Which folders may import each SDK (architecture rule 2): a chat SDK only its channel's folder (its descriptor names it). */
const SDK_HOMES: Record<string, RegExp> = {
  ...Object.fromEntries(CHANNELS.flatMap((c) => c.sdks.map((sdk) => [sdk, new RegExp(`^channels/${c.name}/`)]))),
  bullmq: /^queue\//,
  ioredis: /^(store\/|queue\/|backend\.ts$)/,
  // Everything else logs through the Logger port; only logger.ts knows it is pino.
  pino: /^logger\.ts$/,
};

describe('architecture boundaries', () => {
  it('scans the source tree', () => {
    expect(sources.length).toBeGreaterThan(10);
  });

  it.each(Object.entries(SDK_HOMES))('%s is imported only where it belongs', (sdk, home) => {
    const offenders = sources.filter(
      (f) =>
        importsOf(f.text).some((i) => i === sdk || i.startsWith(sdk.endsWith('/') ? sdk : `${sdk}/`)) &&
        !home.test(f.path),
    );
    expect(offenders.map((f) => f.path)).toEqual([]);
  });

  it('core is pure: imports only core files (and core/i18n, core/questions, core/questions/parse), zod and (for patterns) re2js, no clock, timers, env, randomness or I/O', () => {
    const core = sources.filter((f) => f.path.startsWith('core/'));
    // `new Date(ms)` formats a given time and is fine; `new Date()` reads the clock.
    const impure =
      /\bDate\.now\(|new Date\(\s*\)|\bsetTimeout\b|\bsetInterval\b|\bsetImmediate\b|\bqueueMicrotask\b|\bprocess\.|\bfetch\(|\bMath\.random\(|\bperformance\.|\brequire\(|\bimport\(/;
    for (const f of core) {
      for (const spec of importsOf(f.text))
        expect([f.path, spec]).toEqual([
          f.path,
          (/^(\.\.?\/)+((i18n|questions|parse|questions\/parse|approval)\/)?[\w-]+\.js$/.test(spec) &&
            posix.join(posix.dirname(f.path), spec).startsWith('core/')) ||
          spec === 'zod' ||
          // RE2 (linear-time matching) for a text question's pattern, in the one file that compiles it.
          (spec === 're2js' && f.path === 'core/questions/parse/pattern.ts')
            ? spec
            : 'forbidden',
        ]);
      expect([f.path, impure.exec(f.text)?.[0] ?? null]).toEqual([f.path, null]);
    }
  });

  it('the shell lives in app/, not core/', () => {
    const shell = ['gateway.ts', 'inbound.ts', 'outbox-work.ts', 'long-poll.ts'];
    expect(
      sources.filter((f) => f.path.startsWith('core/') && shell.includes(f.path.slice(5))).map((f) => f.path),
    ).toEqual([]);
    // Core does no I/O, so it never waits: async code belongs to the shell. (`async` alone is also
    // a field of an ask, `"async": true`: the check looks for async functions and awaits.)
    const asyncCode = /\basync\s+(function\b|\(|[\w$]+\s*(=>|\())|\bawait\b|\bfor\s+await\b/;
    expect(sources.filter((f) => f.path.startsWith('core/') && asyncCode.test(f.text)).map((f) => f.path)).toEqual([]);
  });

  it('only the composition root (main.ts, backend.ts) builds concrete stores and queues, and only a channel’s descriptor its channel', () => {
    const builders =
      /new (RedisAskStore|MemoryAskStore|BullStepScheduler|BullOutbox|MemoryOutbox|MemoryStepScheduler|\w+Channel)\b/;
    const offenders = sources.filter(
      (f) =>
        builders.test(f.text) &&
        !['main.ts', 'backend.ts'].includes(f.path) &&
        !/^channels\/[\w-]+\/descriptor\.ts$/.test(f.path),
    );
    expect(offenders.map((f) => f.path)).toEqual([]);
  });

  it('source files stay small', () => {
    const big = sources.filter((f) => f.text.split('\n').length > 330).map((f) => f.path);
    expect(big).toEqual([]);
  });
});
