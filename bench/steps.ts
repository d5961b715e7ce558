/**
 * Policy step precision (issue 16): `count` pending API asks (no chat of their own), each with one
 * reminder and one escalation step to its own Telegram chat (the fake, 0 ms send pacing), created
 * through askgate's HTTP API. Each ask is released at the instant that makes `createdAt +
 * remindAfterSeconds` land on its slot of a window of `spreadSeconds` (like bench/timeouts.ts);
 * its escalation falls `escalateGapSeconds` later. Lateness = the `reminded` / `escalated`
 * history entry's time − (createdAt + offset), as askgate recorded them; steps fired per second
 * over the window and in its busiest second.
 */
import { Semaphore, sleep } from './lib/http.js';
import { openWindow, PREFIX, startStack, type Window } from './lib/stack.js';
import { ms, num, summarize, type Summary } from './lib/stats.js';
import { telegramWorld } from './lib/world.js';
import { parseStoredAsk } from '../src/store/ask-doc.js';
import { StoreKeys } from '../src/store/keys.js';

/** Options of {@link steps}. */
export interface StepsOptions {
  count: number;
  /** Reminders spread evenly over this many seconds (escalations the same, `escalateGapSeconds` later). */
  spreadSeconds: number;
  escalateGapSeconds?: number;
  /** False: reminders only (a control: the escalations' deliveries out of the picture). Default true. */
  escalate?: boolean;
}

/** What {@link steps} measured. */
export interface StepsResult {
  count: number;
  spreadSeconds: number;
  escalateGapSeconds: number;
  createSeconds: number;
  createPerSecond: number;
  createErrors: number;
  /** Steps due in all (2 per created ask) and fired by the end. */
  due: number;
  fired: number;
  /** Not fired, or fired later than the reconciler grace (5 s). */
  missed: number;
  /** Fired before their time (must be 0). */
  early: number;
  reminderLatenessMs: Summary;
  escalationLatenessMs: Summary;
  /** Both kinds together. */
  latenessMs: Summary;
  /** Fired ÷ seconds from the first to the last step fired; and the most in one wall-clock second. */
  firedPerSecond: number;
  peakPerSecond: number;
  /** Escalated questions the Telegram fake stored by the end. */
  escalationsDelivered: number;
  askgateProblems: { count: number; samples: string[] };
  window: Window;
}

const QUESTION = [
  { id: 'env', question: 'Where should I deploy?', options: [{ label: 'Staging' }, { label: 'Production' }] },
];
const GRACE_MS = 5000;
/** Create requests in flight at once (askgate's create rate is the limit well below this). */
const CREATE_CONCURRENCY = 200;

interface StoredDoc {
  createdAt: string;
  policy?: { remindAfterSeconds?: number[]; escalate?: { afterSeconds: number }[] };
  history: { type: string; at: string }[];
}

/** Runs the scenario on a private Redis and askgate child with the Telegram fake. */
export async function steps(opts: StepsOptions): Promise<StepsResult> {
  const { count, spreadSeconds } = opts;
  const gap = opts.escalateGapSeconds ?? Math.max(1, Math.ceil(spreadSeconds / 2));
  const world = await telegramWorld(count, 'webhook', 0);
  const stack = await startStack({ world, env: { ASKGATE_RECONCILE_GRACE_MS: String(GRACE_MS) } });
  const keys = new StoreKeys(PREFIX);
  const body = (runId: string, remind: number, escalate: number, i: number) => ({
    runId,
    questions: QUESTION,
    timeoutSeconds: escalate + 60,
    remindAfterSeconds: [remind],
    ...(opts.escalate === false ? {} : { escalate: [{ afterSeconds: escalate, to: world.target(i) }] }),
  });
  try {
    // Calibration (cancelled again): askgate's create rate for the same asks, so the window starts after the creation.
    const calibration = Math.min(1000, Math.max(100, Math.ceil(count / 20)));
    const gate = new Semaphore(CREATE_CONCURRENCY);
    const c0 = Date.now();
    await Promise.all(
      Array.from({ length: calibration }, (_, i) =>
        gate.run(() =>
          stack.api.json('POST', '/v1/asks', body(`cal-${i}`, 1800, 1800 + gap, i), 60_000).catch(() => undefined),
        ),
      ),
    );
    const calRate = calibration / Math.max(0.001, (Date.now() - c0) / 1000);
    await Promise.all(
      Array.from({ length: calibration }, (_, i) =>
        gate.run(() => stack.api.request('DELETE', `/v1/runs/cal-${i}`).catch(() => undefined)),
      ),
    );
    await sleep(500);

    const ids: string[] = new Array(count);
    let createErrors = 0;
    let lastDue = 0;
    const t0 = Date.now();
    const windowStart = t0 + (count / (calRate * 0.7)) * 1000 + 5000;
    // Each ask waits for its release instant first, then for one of the request slots.
    await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const target = windowStart + (spreadSeconds * 1000 * i) / count;
        const remind = Math.max(1, Math.floor((target - Date.now()) / 1000));
        const release = target - remind * 1000;
        if (release > Date.now()) await sleep(release - Date.now());
        const reply = await gate.run(() =>
          stack.api
            .json('POST', '/v1/asks', body(`s-${i}`, remind, remind + gap, i), 60_000)
            .catch((e: Error) => ({ status: 0, body: { error: e.message } as any })),
        );
        if (reply.status !== 201) {
          if (createErrors++ === 0)
            console.error(`[steps] create failed: ${reply.status} ${JSON.stringify(reply.body)}`);
          return;
        }
        ids[i] = reply.body.id;
        const createdAt = Date.parse(reply.body.expiresAt) - (remind + gap + 60) * 1000;
        lastDue = Math.max(lastDue, createdAt + (opts.escalate === false ? remind : remind + gap) * 1000);
      }),
    );
    const createSeconds = (Date.now() - t0) / 1000;
    const made = ids.map((id, i) => (id ? i : -1)).filter((i) => i >= 0);

    const close = await openWindow(stack);
    while (Date.now() < lastDue + GRACE_MS + 2000) await sleep(250);
    const window = await close();

    const reminder: number[] = [];
    const escalation: number[] = [];
    const firedAt: number[] = [];
    let early = 0;
    let missed = 0;
    for (let from = 0; from < made.length; from += 1000) {
      const batch = made.slice(from, from + 1000);
      const pipe = stack.admin.pipeline();
      for (const i of batch) pipe.get(keys.ask(`s-${i}`, ids[i]!));
      const replies = (await pipe.exec()) ?? [];
      for (const [n, i] of batch.entries()) {
        const doc = replies[n]?.[1];
        if (typeof doc !== 'string') {
          missed += 2;
          continue;
        }
        const record = parseStoredAsk(doc, 'bench', { id: ids[i]!, runId: `s-${i}` }) as unknown as StoredDoc;
        const created = Date.parse(record.createdAt);
        const offsets: [string, number | undefined, number[]][] = [
          ['reminded', record.policy?.remindAfterSeconds?.[0], reminder],
          ['escalated', record.policy?.escalate?.[0]?.afterSeconds, escalation],
        ];
        if (opts.escalate === false) offsets.pop();
        for (const [type, offset, into] of offsets) {
          const entry = record.history.find((h) => h.type === type);
          if (!entry || offset === undefined) {
            missed++;
            continue;
          }
          const at = Date.parse(entry.at);
          const late = at - (created + offset * 1000);
          if (late < 0) early++;
          if (late > GRACE_MS) missed++;
          into.push(late);
          firedAt.push(at);
        }
      }
    }
    firedAt.sort((a, b) => a - b);
    const perSecond = new Map<number, number>();
    for (const at of firedAt) perSecond.set(Math.floor(at / 1000), (perSecond.get(Math.floor(at / 1000)) ?? 0) + 1);
    const span = firedAt.length > 1 ? (firedAt.at(-1)! - firedAt[0]!) / 1000 : NaN;
    return {
      count,
      spreadSeconds,
      escalateGapSeconds: gap,
      createSeconds,
      createPerSecond: made.length / createSeconds,
      createErrors,
      due: made.length * (opts.escalate === false ? 1 : 2),
      fired: firedAt.length,
      missed,
      early,
      reminderLatenessMs: summarize(reminder),
      escalationLatenessMs: summarize(escalation),
      latenessMs: summarize([...reminder, ...escalation]),
      firedPerSecond: firedAt.length / span,
      peakPerSecond: Math.max(0, ...perSecond.values()),
      escalationsDelivered: world.counts.delivered,
      askgateProblems: stack.child.problems(),
      window,
    };
  } finally {
    await stack.close();
  }
}

/** The BENCHMARKS.md section of the steps rows. */
export function stepsMarkdown(rows: readonly StepsResult[]): string {
  const lines = [
    '## 3b. Policy steps: reminders and escalations (issue 16)',
    '',
    'API asks (no chat of their own), each with one reminder and one escalation step to its own Telegram chat (the fake); reminders spread evenly over the window, each escalation a fixed gap after its reminder. Lateness = the `reminded` / `escalated` history entry − (createdAt + offset), as askgate recorded them. Target: the same lateness as timeouts, p99 < 50 ms.',
    '',
    '| Pending asks | Steps due | Reminders over / escalation gap | Created in (rate) | Fired / missed / early | Steps fired per second (window / busiest second) | Lateness p50 / p90 / p99 / max | Reminders p99 | Escalations p99 | Escalated questions delivered | askgate CPU / ELU while firing |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const l = r.latenessMs;
    lines.push(
      `| ${num(r.count)} | ${num(r.due)} | ${r.spreadSeconds} s / ${r.escalateGapSeconds} s | ${r.createSeconds.toFixed(1)} s (${num(r.createPerSecond)}/s) | ${num(r.fired)} / ${num(r.missed)} / ${num(r.early)} | ${num(r.firedPerSecond)} / ${num(r.peakPerSecond)} | ${ms(l.p50)} / ${ms(l.p90)} / ${ms(l.p99)} / ${ms(l.max)} ms | ${ms(r.reminderLatenessMs.p99)} ms | ${ms(r.escalationLatenessMs.p99)} ms | ${num(r.escalationsDelivered)} | ${r.window.child.cpuCores.toFixed(2)} / ${r.window.child.eventLoopUtilization.toFixed(2)} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
