import type { HistoryEvent } from './history.js';

/** Knobs of one check; the history and the final records decide everything else. */
export interface CheckOptions {
  /** Longest allowed lateness of a timeout past its deadline (matrix §4.3 grace). */
  graceMs: number;
  /** False when the subscriber may miss a PUBLISH (Redis restarts): then ≤ 1, not exactly 1. */
  exactlyOnePublish?: boolean;
  /** The platforms' ack window (3 s). */
  ackWindowMs?: number;
  /** Taps closer than this to the deadline may lose to the timeout (R3 rules apply instead). */
  boundaryMarginMs?: number;
}

/** Figures of one run, as reported in docs/RELIABILITY.md. */
export interface Figures {
  asks: number;
  answered: number;
  skipped: number;
  timedOut: number;
  otherNoAnswer: number;
  pendingAtEnd: number;
  missing: number;
  taps: number;
  duplicates: number;
  recordedNotices: number;
  lost: number;
  doubleApplied: number;
  publishes: number;
  successfulEdits: number;
  notModifiedEdits: number;
  worstTimeoutLatenessMs: number | null;
  ackP50Ms: number | null;
  ackP99Ms: number | null;
  ackMaxMs: number | null;
  notifyP99Ms: number | null;
  deadlineMisses: number;
  unauthorizedResolutions: number;
  keysWithoutTtl: number;
  kills: number;
}

/** Result of a check: the figures and every broken invariant, readable. */
export interface CheckReport {
  figures: Figures;
  violations: string[];
}

/** Percentile (nearest rank) of a list, or null when empty. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** JSON with sorted keys, so results read through the API and from Redis compare equal. */
function stable(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

const RECORDED = new Set(['Answer recorded', 'Skip recorded']);
const by = (result: any): string | undefined => result?.answeredBy?.userId ?? result?.by?.userId;

/** Windows in which an askgate process was down (kill → next ready of the same node). */
function downWindows(events: readonly HistoryEvent[]): [number, number][] {
  const open = new Map<string, number>();
  const windows: [number, number][] = [];
  for (const e of events) {
    const node = String(e.data?.node ?? '');
    if (e.type === 'kill') open.set(node, e.wall);
    if (e.type === 'fault' && e.data?.signal === 'SIGSTOP') open.set(node, e.wall);
    if ((e.type === 'ready' || (e.type === 'heal' && e.data?.signal === 'SIGCONT')) && open.has(node)) {
      windows.push([open.get(node)!, e.wall]);
      open.delete(node);
    }
  }
  for (const start of open.values()) windows.push([start, Number.MAX_SAFE_INTEGER]);
  return windows;
}

/**
 * Checks the invariants of reliability-matrix §4 over a history: no lost answers, no double
 * application, timeouts resolved in time, no unauthorized resolution, no platform deadline
 * missed while askgate was up, every key with a TTL.
 */
export function check(events: readonly HistoryEvent[], options: CheckOptions): CheckReport {
  const ackWindow = options.ackWindowMs ?? 3000;
  const margin = options.boundaryMarginMs ?? 1000;
  const violations: string[] = [];
  const creates = new Map(events.filter((e) => e.type === 'create' && e.askId).map((e) => [e.askId!, e]));
  const finals = new Map(events.filter((e) => e.type === 'final' && e.askId).map((e) => [e.askId!, e]));
  const taps = events.filter((e) => e.type === 'tap' || e.type === 'duplicate');
  const tapById = new Map<string, HistoryEvent>();
  for (const e of taps)
    if (e.data?.tapId && e.askId && !tapById.has(String(e.data.tapId))) tapById.set(String(e.data.tapId), e);
  const down = downWindows(events);
  const wasDown = (from: number, to: number) => down.some(([a, b]) => a <= to && b >= from);

  // 1. No lost answers: every "recorded" notice is in the final result, by that person.
  // Only notices the platform accepted reached a person (an ack reset by a crash or refused as too old did not).
  const notices = events.filter((e) => e.type === 'toast' && RECORDED.has(String(e.result)) && e.data?.ok !== false);
  const recordedPerAsk = new Map<string, number>();
  let lost = 0;
  for (const n of notices) {
    const askId = n.askId ?? tapById.get(String(n.data?.tapId))?.askId;
    const actor = n.actor ?? tapById.get(String(n.data?.tapId))?.actor;
    if (!askId) {
      violations.push(`a "${n.result}" notice that matches no tap (tap ${String(n.data?.tapId)})`);
      continue;
    }
    recordedPerAsk.set(askId, (recordedPerAsk.get(askId) ?? 0) + 1);
    const final = finals.get(askId);
    const result = final?.data?.result as any;
    const expected =
      n.result === 'Skip recorded'
        ? result?.status === 'no_answer' && result?.reason === 'skipped'
        : result?.status === 'answered';
    if (!final || !expected || (actor !== undefined && by(result) !== actor)) {
      lost++;
      violations.push(
        `lost answer: ${askId} told "${n.result}" to ${actor} but ends ${final ? JSON.stringify(result) : 'missing'}`,
      );
    }
  }
  // A valid tap well before the deadline is recorded in the end (the rigs re-tap when told to retry).
  for (const [askId, first] of new Map(
    taps.filter((t) => t.data?.authorized !== false && t.data?.valid !== false).map((t) => [t.askId!, t]),
  )) {
    const c = creates.get(askId);
    const final = finals.get(askId)?.data?.result as any;
    const deadline = Date.parse(String(c?.data?.expiresAt));
    if (!c || first.wall > deadline - margin || c.data?.expectResolvedBy === 'timeout') continue;
    if (!final || (final.status !== 'answered' && final.reason !== 'skipped')) {
      lost++;
      violations.push(
        `tap on ${askId} at T-${deadline - first.wall} ms was never recorded (ends ${JSON.stringify(final ?? null)})`,
      );
    }
  }

  // 2. No double application.
  let doubleApplied = 0;
  const publishes = new Map<string, number>();
  for (const e of events) if (e.type === 'notify' && e.askId) publishes.set(e.askId, (publishes.get(e.askId) ?? 0) + 1);
  for (const [askId, final] of finals) {
    if (final.result === 'pending' || final.result === 'missing') continue;
    const transitions = Number(final.data?.terminalTransitions ?? 0);
    const n = publishes.get(askId) ?? 0;
    const badPublish = options.exactlyOnePublish === false ? n > 1 : n !== 1;
    if (transitions !== 1 || badPublish || (recordedPerAsk.get(askId) ?? 0) > 1) {
      doubleApplied++;
      violations.push(
        `double application on ${askId}: ${transitions} terminal transitions, ${n} PUBLISHes, ${recordedPerAsk.get(askId) ?? 0} "recorded" notices`,
      );
    }
    const agentResults = new Set(
      events.filter((e) => e.type === 'result' && e.askId === askId).map((e) => stable(e.data?.result)),
    );
    if (agentResults.size > 1 || (agentResults.size === 1 && !agentResults.has(stable(final.data?.result)))) {
      violations.push(
        `agents of ${askId} saw ${[...agentResults].join(' / ')}; the record says ${stable(final.data?.result)}`,
      );
    }
  }
  const edits = events.filter((e) => e.type === 'edit');
  const okEdits = new Map<string, number>();
  for (const e of edits.filter((x) => x.result === 'ok'))
    okEdits.set(String(e.data?.message), (okEdits.get(String(e.data?.message)) ?? 0) + 1);
  for (const [message, n] of okEdits) if (n > 1) violations.push(`message ${message} was finalized ${n} times`);

  // 3. Timeouts resolve within deadline + grace; nothing pending past it.
  const lateness: number[] = [];
  let pendingAtEnd = 0;
  const lastWall = events.at(-1)?.wall ?? Date.now();
  for (const [askId, final] of finals) {
    const result = final.data?.result as any;
    const deadline = Date.parse(String(final.data?.expiresAt));
    if (final.result === 'pending') {
      pendingAtEnd++;
      if (deadline + options.graceMs < lastWall)
        violations.push(`${askId} still pending ${lastWall - deadline} ms past its deadline`);
    }
    if (result?.status === 'no_answer' && result.reason === 'timeout') {
      const late = Date.parse(result.at) - deadline;
      lateness.push(late);
      if (late > options.graceMs)
        violations.push(`timeout of ${askId} resolved ${late} ms after its deadline (grace ${options.graceMs} ms)`);
    }
  }

  // 4. Authorization: resolutions only by the bound responders; refused taps never "recorded".
  let unauthorized = 0;
  for (const [askId, final] of finals) {
    const users = (creates.get(askId)?.data?.users as string[] | undefined) ?? undefined;
    const who = by(final.data?.result);
    if (users && who !== undefined && !users.includes(who)) {
      unauthorized++;
      violations.push(`${askId} resolved by ${who}, not one of ${users.join(',')}`);
    }
  }
  for (const n of notices) {
    const tap = tapById.get(String(n.data?.tapId));
    if (tap?.data?.authorized === false)
      violations.push(`unauthorized tap ${String(n.data?.tapId)} on ${tap.askId} was told "${n.result}"`);
  }

  // 5. Platform contracts: acks within the window while askgate was up.
  const acks: number[] = [];
  let deadlineMisses = 0;
  for (const e of events.filter((x) => x.type === 'toast' && x.data?.via === 'ack')) {
    const tap = tapById.get(String(e.data?.tapId));
    if (!tap) continue;
    const ms = e.wall - tap.wall;
    if (e.data?.ok === false && e.data?.duplicateAck) continue;
    if (!wasDown(tap.wall, tap.wall + ackWindow)) acks.push(ms);
    if ((e.data?.ok === false || ms > ackWindow) && !wasDown(tap.wall, tap.wall + ackWindow)) {
      deadlineMisses++;
      violations.push(
        `ack of tap ${String(e.data?.tapId)} on ${tap.askId} missed the platform deadline (${ms} ms, ${String(e.result)})`,
      );
    }
  }
  const notifyMs: number[] = [];
  for (const [askId] of finals) {
    const first = taps.find((t) => t.askId === askId);
    const notify = events.find((e) => e.type === 'notify' && e.askId === askId);
    if (first && notify && notify.wall >= first.wall && !wasDown(first.wall, notify.wall))
      notifyMs.push(notify.wall - first.wall);
  }

  // 6. Hygiene: keys without TTL or left-over job keys.
  const keys = events.filter((e) => e.type === 'key');
  for (const k of keys) violations.push(`key ${String(k.data?.key)}: ${String(k.result)}`);

  const results = [...finals.values()].map((f) => f.data?.result as any);
  return {
    violations,
    figures: {
      asks: finals.size,
      answered: results.filter((r) => r?.status === 'answered').length,
      skipped: results.filter((r) => r?.reason === 'skipped').length,
      timedOut: results.filter((r) => r?.reason === 'timeout').length,
      otherNoAnswer: results.filter(
        (r) => r?.status === 'no_answer' && r.reason !== 'timeout' && r.reason !== 'skipped',
      ).length,
      pendingAtEnd,
      missing: [...finals.values()].filter((f) => f.result === 'missing').length,
      taps: events.filter((e) => e.type === 'tap' || e.type === 'reply').length,
      duplicates: events.filter((e) => e.type === 'duplicate').length,
      recordedNotices: notices.length,
      lost,
      doubleApplied,
      publishes: [...publishes.values()].reduce((a, b) => a + b, 0),
      successfulEdits: edits.filter((e) => e.result === 'ok').length,
      notModifiedEdits: edits.filter((e) => e.result === 'not_modified').length,
      worstTimeoutLatenessMs: lateness.length ? Math.max(...lateness) : null,
      ackP50Ms: percentile(acks, 50),
      ackP99Ms: percentile(acks, 99),
      ackMaxMs: acks.length ? Math.max(...acks) : null,
      notifyP99Ms: percentile(notifyMs, 99),
      deadlineMisses,
      unauthorizedResolutions: unauthorized,
      keysWithoutTtl: keys.length,
      kills: events.filter((e) => e.type === 'kill').length,
    },
  };
}
