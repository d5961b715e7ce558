import type { Clock, EventClaim, SeenEvents, SeenTtl } from '../../core/ports.js';
import { systemClock } from '../../system-clock.js';

/** How the visible effects of one platform event are gated, so a re-sent event shows nothing twice. */
export interface EffectGate {
  /** True when an earlier attempt took this event and never settled it (it died, or showed nothing that needed settling). */
  readonly retried: boolean;
  /** Settles the event before its first visible effect (memoised): false when another attempt already did. */
  settle(): Promise<boolean>;
}

/** No de-duplication: every delivery is new (a sink without {@link SeenEvents}). */
export const UNGATED: EffectGate = { retried: false, settle: async () => true };

const POLL_MS = 200;
/** How long one attempt at an event holds it before another may take it over, unless a channel says otherwise. */
export const DEFAULT_LEASE_MS = 5_000;

function gateOf(claim: EventClaim): EffectGate {
  let settled: Promise<boolean> | null = null;
  return { retried: claim.status === 'retry', settle: () => (settled ??= claim.settle()) };
}

/**
 * Takes a platform event for this attempt, for platforms that cannot be asked to re-send later:
 * while another attempt (any replica) holds its lease, waits for it to settle or for the lease to
 * end (an attempt that died is then taken over), by `clock`. `done`: settled by another attempt; `busy`: still
 * held after the whole lease. Throws when the store is unreachable.
 */
export async function takeEvent(
  seen: SeenEvents | undefined,
  channel: string,
  eventId: string,
  ttl: SeenTtl,
  clock: Clock = systemClock,
): Promise<EffectGate | 'done' | 'busy'> {
  if (!seen) return UNGATED;
  const until = clock.now() + ttl.leaseMs + POLL_MS;
  for (;;) {
    const claim = await seen.claim(channel, eventId, ttl);
    if (claim === 'done') return 'done';
    if (claim !== 'busy') return gateOf(claim);
    if (clock.now() >= until) return 'busy';
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/**
 * A gate for an event processed without a claim (a Telegram tap: cheap to process again, and its
 * answer is Telegram's to de-duplicate): only a message it sends is gated, by claiming and settling
 * the event right before it. The first attempt to get there shows it; the others stay silent.
 */
export function showOnceGate(seen: SeenEvents | undefined, channel: string, eventId: string, ttl: SeenTtl): EffectGate {
  if (!seen) return UNGATED;
  let shown: Promise<boolean> | null = null;
  const show = async () => {
    const claim = await seen.claim(channel, eventId, ttl);
    return typeof claim === 'string' ? false : claim.settle();
  };
  return { retried: false, settle: () => (shown ??= show()) };
}

/**
 * Settles `gate` before a visible effect; a store that cannot answer does not silence it (true,
 * after `onError`): for platforms that re-send nothing once answered.
 */
export async function settleOrShow(gate: EffectGate, onError: (error: unknown) => void): Promise<boolean> {
  try {
    return await gate.settle();
  } catch (error) {
    onError(error);
    return true;
  }
}

/**
 * Takes an event (see {@link takeEvent}) for platforms that cannot be asked to re-send it: null
 * when another attempt settled or holds it; a store that cannot answer lets it through ungated
 * (after `onError`), since refusing it would lose it.
 */
export async function takeOrPass(
  take: () => Promise<EffectGate | 'done' | 'busy'>,
  onError: (error: unknown) => void,
): Promise<EffectGate | null> {
  try {
    const taken = await take();
    return typeof taken === 'string' ? null : taken;
  } catch (error) {
    onError(error);
    return UNGATED;
  }
}
