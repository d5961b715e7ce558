import type { Exchange, Interposer, InterposerHooks, Reply } from './interposer.js';
import type { AskgateNode } from './node.js';
import type { RedisWatch } from './redis-watch.js';

/** Where on a platform call askgate dies: before the fake sees it, or after the fake acted but before askgate hears back. */
export interface CrashPoint {
  /** Name recorded with the kill (e.g. `after-commit-before-ack`). */
  point: string;
  call: string;
  when: 'before' | 'after';
  match?: (ex: Exchange, reply?: Reply) => boolean;
  /** With `when: 'after'`: let askgate read the answer and die `delayMs` later (random-ish timing). */
  delayMs?: number;
  /** Matching requests wait for this first (e.g. until the test has made every API call it needs). */
  gate?: Promise<unknown>;
}

/**
 * Arms a one-shot crash point on the interposer: the first matching exchange kills askgate
 * (`kill -9`) at that point. Resolves once the kill is done (a supervised node restarts itself).
 * This is the test-only crash-point hook of the matrix, built outside askgate: askgate's code
 * is unchanged and unaware of it.
 */
export function crashAt(interposer: Interposer, node: AskgateNode, crash: CrashPoint): Promise<void> {
  let fired = false;
  const matches = (ex: Exchange, reply?: Reply) =>
    !fired && ex.call === crash.call && (crash.match?.(ex, reply) ?? true);
  return new Promise((resolve) => {
    const fire = async () => {
      fired = true;
      interposer.hooks.delete(hook);
      await node.kill9(crash.point);
      resolve();
    };
    const hook: InterposerHooks = {
      before: async (ex) => {
        if (crash.gate && matches(ex)) await crash.gate;
        if (crash.when !== 'before' || !matches(ex)) return undefined;
        await fire();
        return 'reset';
      },
      after: async (ex, reply) => {
        if (crash.when !== 'after' || !matches(ex, reply)) return undefined;
        if (crash.delayMs === undefined) {
          await fire();
          return 'reset';
        }
        fired = true;
        setTimeout(() => void fire(), crash.delayMs);
        return undefined;
      },
    };
    interposer.hooks.add(hook);
  });
}

/** Kills askgate right after the first PUBLISH on `<prefix>:resolved` of one of `askIds` (e.g. while timeouts are being processed). */
export function crashOnPublish(
  watch: RedisWatch,
  node: AskgateNode,
  askIds: ReadonlySet<string>,
  point: string,
): Promise<void> {
  return new Promise((resolve) => {
    const listener = (askId: string) => {
      if (!askIds.has(askId)) return;
      watch.onPublish.delete(listener);
      void node.kill9(point).then(resolve);
    };
    watch.onPublish.add(listener);
  });
}

/**
 * A one-shot `kill -9` for crash points reached from the platform's side rather than through the
 * interposer (a request written to askgate's socket, askgate's HTTP answer arriving, a Socket
 * Mode ack arriving): call `fire()` from the hook; only the first call kills. `done` resolves
 * once the kill is made.
 */
export function crashOnce(
  node: AskgateNode,
  point: string,
): { fire: () => void; done: Promise<void>; readonly fired: boolean } {
  let fired = false;
  let resolve: () => void = () => {};
  const done = new Promise<void>((r) => (resolve = r));
  return {
    fire: () => {
      if (fired) return;
      fired = true;
      void node.kill9(point).then(resolve);
    },
    done,
    get fired() {
      return fired;
    },
  };
}

/** Races `work` against a deadline, so a crash trigger that never fires fails the row instead of hanging it. */
export async function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Kill points run one after another on a supervised node: `crash(point, trigger, action)` does
 * the action, waits (at most 20 s) for the kill it triggers, counts it under `point` and waits
 * for the restart. `points` tallies the kills by point for the row's summary.
 */
export function crashPoints(node: AskgateNode): {
  points: Record<string, number>;
  crash(point: string, trigger: Promise<void>, action: () => Promise<unknown> | unknown): Promise<void>;
} {
  const points: Record<string, number> = {};
  return {
    points,
    async crash(point, trigger, action) {
      await action();
      await within(trigger, 20_000, point);
      points[point] = (points[point] ?? 0) + 1;
      await node.whenUp();
    },
  };
}
