// Reminders as a cadence (`remindEverySeconds`): when each falls due, which one comes next, and the
// request rules that need the deadline. Pure: policy.ts turns these times into steps.
import type { Issue } from './errors.js';
import { openingFor, type WorkingHours } from './working-hours.js';

/**
 * Most reminders in an ask's life, `remindAfterSeconds` and the cadence together: reminder n is
 * step `remind-n` (core/effects.ts), so the cap is also the last step name there is.
 */
export const MAX_REMINDERS = 20;

/** The least `remindEverySeconds` by default (`ASKGATE_REMIND_EVERY_MIN_SECONDS`: for tests and operators). */
export const REMIND_EVERY_MIN_SECONDS = 3600;

/** What the cadence reads of targets: their working hours. */
type HoursTargets = readonly { hours?: WorkingHours | undefined }[];

/**
 * The due times (epoch ms) of the first `count` cadence reminders, each `everySeconds` after the
 * one before (the first after `base`), moved to the next opening of the targets' working hours
 * when it falls outside them. Each is counted from the previous one's *moved* time, so a weekend
 * never piles several reminders onto Monday morning: the cadence is the least gap between two.
 */
export function cadenceTimes(targets: HoursTargets, base: number, everySeconds: number, count: number): number[] {
  const times: number[] = [];
  let at = base;
  for (let i = 0; i < count; i++) {
    at = openingFor(targets, at + everySeconds * 1000);
    times.push(at);
  }
  return times;
}

/** The request fields {@link cadenceIssues} reads. */
export interface CadenceRequest {
  remindEverySeconds?: number | undefined;
  remindAfterSeconds?: readonly number[] | undefined;
}

/**
 * The cadence rules that need the deadline and the configured minimum, for a request created at
 * `now` whose ask ends at `deadline` (epoch ms): `remindEverySeconds` at least `minSeconds`; its
 * first reminder (counted from the last `remindAfterSeconds` one, else from creation) before the
 * deadline; and no more than {@link MAX_REMINDERS} reminders in all before the deadline: too many
 * is a 400 naming the numbers and the least cadence that fits, never a silent cut (an extension
 * later may add reminders up to the cap; the cadence then stops at the 20th).
 */
export function cadenceIssues(
  request: CadenceRequest,
  targets: HoursTargets,
  now: number,
  deadline: number,
  minSeconds: number,
): Issue[] {
  const every = request.remindEverySeconds;
  if (every === undefined) return [];
  const path = ['remindEverySeconds'];
  if (every < minSeconds) return [{ path, message: `must be at least ${minSeconds} s` }];
  const offsets = request.remindAfterSeconds ?? [];
  const explicit = offsets.length;
  const lastOffset = offsets[explicit - 1] ?? 0;
  const span = Math.floor((deadline - now) / 1000) - lastOffset;
  if (every >= span)
    return [
      {
        path,
        message:
          explicit > 0
            ? `must be below the ${span} s left between the last remindAfterSeconds and the deadline`
            : `must be below the timeout (${span} s)`,
      },
    ];
  const room = MAX_REMINDERS - explicit;
  const base = explicit > 0 ? openingFor(targets, now + lastOffset * 1000) : now;
  const fits = cadenceTimes(targets, base, every, room + 1).filter((at) => at < deadline).length;
  if (fits <= room) return [];
  // Without working hours the count is exact arithmetic; with them it is at least one past the room.
  const hours = targets.length > 0 && targets.every((t) => t.hours !== undefined);
  const count = hours ? `more than ${room}` : String(Math.ceil(span / every) - 1);
  const least = Math.ceil(span / (room + 1));
  return [
    {
      path,
      message:
        `would send ${count} reminders every ${every} s before the deadline` +
        (explicit > 0 ? ` after the ${explicit} of remindAfterSeconds` : '') +
        `: an ask sends at most ${MAX_REMINDERS} in all; give at least ${least} s or an earlier deadline`,
    },
  ];
}
