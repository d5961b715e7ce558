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
  },
});
