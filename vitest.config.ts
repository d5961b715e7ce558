import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most files wait on sockets, child processes and timers, not the CPU: on the 2-core CI machine
    // vitest's default (cores − 1 = 1 worker) ran them one at a time in ~10 min; 3 take ~3 min.
    maxWorkers: 3,
  },
});
