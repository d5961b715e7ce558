import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings of the server process, applied before it builds anything (`askgate serve`).
 *
 * Allocation-site pretenuring off: V8 allocates objects straight into the old generation from
 * sites whose objects often outlived a young-generation GC. A tap's objects live for milliseconds,
 * but those that died after landing there kept every young object they pointed to alive through
 * each scavenge until the next full GC, which made more sites look long-lived: with it on, the tap
 * benchmark's scavenges copied up to ~30 % more and paused ~30 % longer, for the same CPU per full
 * cycle (bench/OPTIMIZATIONS-19.md, change 31). Node does not accept this flag in NODE_OPTIONS,
 * hence here; `npm start` and the Docker image add `--max-semi-space-size=64` too.
 */
export function tuneGarbageCollector(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
