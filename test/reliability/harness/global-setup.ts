import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ARTIFACTS } from './history.js';

/**
 * Starts every reliability run with an empty artifacts folder (history logs, child logs,
 * summaries) and records the run's wall-clock duration in `run.json` at the end.
 */
export default function setup(): () => void {
  mkdirSync(ARTIFACTS, { recursive: true });
  for (const name of readdirSync(ARTIFACTS)) rmSync(resolve(ARTIFACTS, name), { recursive: true, force: true });
  const started = Date.now();
  return () => {
    writeFileSync(
      resolve(ARTIFACTS, 'run.json'),
      JSON.stringify(
        { startedAt: new Date(started).toISOString(), durationMs: Date.now() - started, node: process.version },
        null,
        2,
      ),
    );
  };
}
