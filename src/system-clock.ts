import type { Clock } from './core/ports.js';

/** The system clock: the default wherever no {@link Clock} is injected (main.ts hands its own to every part). */
export const systemClock: Clock = { now: () => Date.now() };
