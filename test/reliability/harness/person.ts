import type { FakeUser } from '../../fakes/telegram-api.js';
import type { Posted, TelegramRig } from './telegram-rig.js';
import type { World } from './world.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The scripted person of matrix §4.1: taps, and taps again when told to retry or left without
 * an outcome, until the record shows an answer (at most `attempts` taps, `patienceMs` apart).
 * Returns the number of taps it took (`attempts + 1` when it never got through).
 */
export async function tapUntilRecorded(
  world: World,
  tg: TelegramRig,
  p: Posted,
  user: FakeUser,
  label: string,
  attempts = 6,
  patienceMs = 6000,
): Promise<number> {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    tg.tap(p, label, user, 'tap', attempt > 1 ? { retry: attempt - 1 } : {});
    for (let waited = 0; waited < patienceMs; waited += 250) {
      await sleep(250);
      const r = await world.watch.get(p.askId).catch(() => null);
      if (r && r.status !== 'pending') return attempt;
    }
  }
  return attempts + 1;
}

/** Polls `probe` every `everyMs` until it returns true; resolves with the elapsed ms (or -1 after `ms`). */
export async function timeUntil(probe: () => Promise<boolean>, ms: number, everyMs = 50): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if (await probe().catch(() => false)) return Date.now() - started;
    await sleep(everyMs);
  }
  return -1;
}
