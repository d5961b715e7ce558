import { defineConfig } from 'vitest/config';

/**
 * `npm run test:reliability`: the fault-injection suite of docs/RELIABILITY.md. Scenario files
 * (`test/reliability/*.rel.ts`, kept out of the default `*.test.ts` run) go one at a time: they
 * start redis-servers and askgate children and measure latencies, so they must not compete.
 */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.rel.ts'],
    globalSetup: ['test/reliability/harness/global-setup.ts'],
    fileParallelism: false,
    maxWorkers: 1,
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One retry: R9 (slow/cut Redis link) fails about 1 run in 12 because an answer whose
    // post-commit work failed can have its sweep pushed back to the deadline by a concurrent
    // reconciler pass, so the row does not settle in time (open finding, see docs/RELIABILITY.md;
    // the store connection itself recovers ~1 s after the link heals). Remove once that is fixed.
    // A retry starts a fresh world; a second failure still fails CI.
    retry: 1,
  },
});
