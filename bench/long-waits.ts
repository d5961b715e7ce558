/**
 * Long waits (issue 40): `count` API asks with a durable way back (`"async": true`) whose deadlines
 * spread over 30 days, one in ten with a reminder halfway, on a private redis-server (AOF on) and a
 * real askgate child. Virtual time, in three phases:
 *
 * 1. Real deadlines. The asks are created with real 30-day deadlines on askgate with the system
 *    clock; Redis memory per long ask is read (`INFO memory` used_memory delta ÷ asks, and `MEMORY
 *    USAGE` of one ask's keys and jobs); every step job is read from BullMQ's delayed set and
 *    checked: there exactly once, due its step's time − the lead. askgate is killed (SIGKILL), a
 *    new one started, and the delayed set checked again after its first reconciler pass.
 * 2. Compressed clock. The next askgate processes run on a clock that from an origin R0 goes
 *    `scale` times faster (`R0 + (t − R0) × scale`, bench/askgate-child.ts), so the 30 days pass in
 *    `windowSeconds` of real time. BullMQ keeps real time (its delayed scores and Date.now in the
 *    worker), so the bench moves each job's score onto the same mapping: real due = R0 + (virtual
 *    due − R0) ÷ scale, rounded up to the next real ms (the job never arrives before its virtual
 *    time). The lead is 0 there (a lead of 2 s in virtual time is 0.2 ms real), and the reconciler
 *    grace is 5 s of real time in virtual ms, set from phase 1 on (it sets the sweep marks' times).
 * 3. Firing with a crash. Halfway through the window askgate is killed (SIGKILL) and a new one
 *    started at once; after the window and the grace every ask must have ended by its timeout exactly
 *    once (one `no_answer` history entry with reason timeout, one resolved message), each reminder
 *    fired exactly once, and the queue left empty. Lateness is the history entry's time − the step's
 *    time, in real ms (virtual ms ÷ scale; 1 real ms is `scale` virtual ms).
 *
 * Run: `npx tsx bench/long-waits.ts [count=100000] [windowSeconds=300]`.
 */
import { Redis } from 'ioredis';
import { startAskgateChild, type AskgateChild } from './lib/askgate.js';
import { HttpClient, lanes, sleep } from './lib/http.js';
import { info, PREFIX, startRedisOnly } from './lib/stack.js';
import { ms, num, summarize, type Summary } from './lib/stats.js';
import { freePort } from '../test/helpers/redis-server.js';
import { parseStoredAsk } from '../src/store/ask-doc.js';
import { StoreKeys } from '../src/store/keys.js';

const SPAN_SECONDS = 30 * 86_400;
const MIN_TIMEOUT_SECONDS = 3600;
/** One ask in this many has a reminder (at half its timeout). */
const REMIND_EVERY = 10;
/** The reconciler grace, in real ms (its virtual value is this × scale). */
const GRACE_REAL_MS = 5000;
const LEAD_MS = 2000;
const QUEUE = `{${PREFIX}}:askgate-timeouts`;
const QUESTION = [
  { id: 'env', question: 'Where should I deploy?', options: [{ label: 'Staging' }, { label: 'Production' }] },
];

/** How the step jobs in BullMQ's queue compare with the steps the asks have. */
interface JobCheck {
  label: string;
  delayed: number;
  expected: number;
  missing: number;
  unexpected: number;
  /** Jobs whose due time differs from the step's time − lead by more than 100 ms; and the largest gap. */
  wrongTime: number;
  maxOffMs: number;
  otherStates: Record<string, number>;
}

interface Ask {
  id: string;
  timeoutDue: number;
  remindDue: number | null;
}

function median(values: number[]): number {
  const s = values.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

async function usedMemory(admin: Redis): Promise<number> {
  return Number((await info(admin, 'memory')).used_memory);
}

/** Every job of BullMQ's delayed set: id → [score]. */
async function delayedJobs(admin: Redis): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  const all = await admin.zrange(`${QUEUE}:delayed`, 0, -1, 'WITHSCORES');
  for (let i = 0; i < all.length; i += 2) {
    const list = out.get(all[i]!) ?? [];
    list.push(Number(all[i + 1]));
    out.set(all[i]!, list);
  }
  return out;
}

async function otherStates(admin: Redis): Promise<Record<string, number>> {
  const [wait, active, failed, completed, prioritized] = await Promise.all([
    admin.llen(`${QUEUE}:wait`),
    admin.llen(`${QUEUE}:active`),
    admin.zcard(`${QUEUE}:failed`),
    admin.zcard(`${QUEUE}:completed`),
    admin.zcard(`${QUEUE}:prioritized`),
  ]);
  return { wait, active, failed, completed, prioritized };
}

/** The expected step jobs of the asks: job id → the step's time (ms). */
function expectedSteps(asks: readonly Ask[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const a of asks) {
    out.set(`timeout-${a.id}`, a.timeoutDue);
    if (a.remindDue !== null) out.set(`remind-1-${a.id}`, a.remindDue);
  }
  return out;
}

async function checkJobs(label: string, admin: Redis, expected: Map<string, number>, lead: number): Promise<JobCheck> {
  const jobs = await delayedJobs(admin);
  let missing = 0;
  let unexpected = 0;
  let wrongTime = 0;
  let maxOffMs = 0;
  for (const [id, due] of expected) {
    const scores = jobs.get(id);
    if (!scores) {
      missing++;
      continue;
    }
    const off = Math.abs(Math.floor(scores[0]! / 0x1000) - (due - lead));
    maxOffMs = Math.max(maxOffMs, off);
    if (off > 100) wrongTime++;
  }
  for (const id of jobs.keys()) if (!expected.has(id)) unexpected++;
  return {
    label,
    delayed: jobs.size,
    expected: expected.size,
    missing,
    unexpected,
    wrongTime,
    maxOffMs,
    otherStates: await otherStates(admin),
  };
}

/**
 * `MEMORY USAGE` (every key, `SAMPLES 0`) summed by key family (the run and ask id in a key's name
 * replaced), per ask: where the used_memory delta goes, the shared indexes included.
 */
async function keyFamilies(admin: Redis, asks: number): Promise<Record<string, number>> {
  const sums = new Map<string, number>();
  let cursor = '0';
  do {
    const [next, found] = await admin.scan(cursor, 'COUNT', 2000);
    cursor = next;
    const pipe = admin.pipeline();
    for (const k of found) pipe.call('MEMORY', 'USAGE', k, 'SAMPLES', '0');
    const sizes = (await pipe.exec()) ?? [];
    for (const [n, k] of found.entries()) {
      const family = k.replace(/\{l-\d+\}/, '{run}').replace(/[A-Za-z0-9_-]{14}$/, '<id>');
      sums.set(family, (sums.get(family) ?? 0) + Number(sizes[n]?.[1] ?? 0));
    }
  } while (cursor !== '0');
  return Object.fromEntries(
    [...sums]
      .map(([f, b]): [string, number] => [f, b / asks])
      .filter(([, b]) => b >= 1)
      .sort((a, b) => b[1] - a[1]),
  );
}

/** What {@link longWaits} measured. */
export interface LongWaitsResult {
  count: number;
  reminders: number;
  windowSeconds: number;
  scale: number;
  createSeconds: number;
  createErrors: number;
  bytesPerAsk: number;
  bytesPerPlainAsk: number;
  bytesPerReminderAsk: number;
  usedMemoryBytes: number;
  aofBytes: number;
  keyUsage: Record<string, number>;
  /** Bytes per ask by key family (see {@link keyFamilies}). */
  families: Record<string, number>;
  jobsPerAsk: number;
  checks: JobCheck[];
  moved: number;
  killedAtRealMs: number;
  downMs: number;
  timeouts: { ended: number; once: number; twice: number; none: number; otherwise: number; early: number };
  /** `none` splits into `pastDeadline` (the firing ran later than the gap between the reminder and the deadline: by design it never fires, the timeout owns the ask) and `lost`. */
  reminded: {
    due: number;
    once: number;
    twice: number;
    none: number;
    early: number;
    pastDeadline: number;
    lost: number;
  };
  resolvedMessages: { asks: number; twice: number; none: number };
  latenessRealMs: { all: Summary; beforeKill: Summary; afterRestart: Summary; reminders: Summary };
  pastGrace: number;
  after: JobCheck;
  problems: string[];
}

export async function longWaits(count: number, windowSeconds: number): Promise<LongWaitsResult> {
  const scale = (SPAN_SECONDS * 1000) / (windowSeconds * 1000);
  const graceMs = Math.round(GRACE_REAL_MS * scale);
  const { redis, admin } = await startRedisOnly();
  const keys = new StoreKeys(PREFIX);
  const port = await freePort();
  const env = (extra: Record<string, string> = {}) => ({
    REDIS_URL: redis.url,
    PORT: String(port),
    ASKGATE_KEY_PREFIX: PREFIX,
    ASKGATE_RECONCILE_GRACE_MS: String(graceMs),
    // The retention must exceed the grace (config check): only short windows (a larger scale) need more.
    ...(graceMs >= 86_400_000 && { ASKGATE_RETENTION_SECONDS: String(Math.ceil((graceMs * 2) / 1000)) }),
    ...extra,
  });
  const children: AskgateChild[] = [];
  const problems: string[] = [];
  const start = async (extra: Record<string, string> = {}) => {
    const child = await startAskgateChild({ env: env(extra) });
    children.push(child);
    return child;
  };
  const sub = new Redis(redis.url);
  try {
    // Phase 1: real deadlines.
    const first = await start();
    const api = new HttpClient(first.url);
    await sleep(500);
    const mem0 = await usedMemory(admin);
    const asks: Ask[] = new Array(count);
    const reminders = Math.floor(count / REMIND_EVERY);
    const plain = count - reminders;
    let createErrors = 0;
    // Ask i's deadline takes slot (i × 7919) mod count of an even spread over [1 h, 30 days]: the
    // reminder asks (the last tenth, created after the memory reading of the others) spread too.
    const create = async (i: number) => {
      const slot = (i * 7919) % count;
      const timeout = Math.round(MIN_TIMEOUT_SECONDS + ((SPAN_SECONDS - MIN_TIMEOUT_SECONDS) * slot) / count);
      const remind = i >= plain ? Math.floor(timeout / 2) : null;
      const reply = await api
        .json(
          'POST',
          '/v1/asks',
          {
            runId: `l-${i}`,
            questions: QUESTION,
            timeoutSeconds: timeout,
            async: true,
            ...(remind !== null && { remindAfterSeconds: [remind] }),
          },
          60_000,
        )
        .catch((e: Error) => ({ status: 0, body: { error: e.message } as any }));
      if (reply.status !== 201) {
        if (createErrors++ < 3) problems.push(`create ${i}: ${reply.status} ${JSON.stringify(reply.body)}`);
        return;
      }
      const due = Date.parse(reply.body.expiresAt);
      asks[i] = {
        id: reply.body.id,
        timeoutDue: due,
        remindDue: remind === null ? null : due - (timeout - remind) * 1000,
      };
    };
    const t0 = Date.now();
    await lanes(plain, 100, (i) => create(i));
    await sleep(500);
    const mem1 = await usedMemory(admin);
    await lanes(reminders, 100, (i) => create(plain + i));
    const createSeconds = (Date.now() - t0) / 1000;
    await sleep(500);
    const mem2 = await usedMemory(admin);
    const made = asks.filter(Boolean);
    const madePlain = asks.slice(0, plain).filter(Boolean).length;
    const madeReminder = made.length - madePlain;
    api.close();

    const usage = async (key: string) => Number((await admin.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0);
    const sample = (from: number, to: number) =>
      Array.from({ length: 25 }, (_, n) => from + Math.floor(((to - from) * n) / 25)).filter((i) => asks[i]);
    const parts: Record<string, number[]> = {
      'ask record': [],
      'run hash': [],
      'id → run map': [],
      'timeout job hash': [],
      'reminder job hash (reminder asks)': [],
    };
    for (const i of [...sample(0, plain), ...sample(plain, count)]) {
      const id = asks[i]!.id;
      parts['ask record']!.push(await usage(keys.ask(`l-${i}`, id)));
      parts['run hash']!.push(await usage(keys.run(`l-${i}`)));
      parts['id → run map']!.push(await usage(keys.idMap(id)));
      parts['timeout job hash']!.push(await usage(`${QUEUE}:timeout-${id}`));
      if (i >= plain) parts['reminder job hash (reminder asks)']!.push(await usage(`${QUEUE}:remind-1-${id}`));
    }
    const keyUsage = Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, median(v)]));
    const families = await keyFamilies(admin, made.length);
    await admin.call('BGREWRITEAOF').catch(() => undefined);

    const expected = expectedSteps(made);
    const checks = [await checkJobs('after creation', admin, expected, LEAD_MS)];
    process.kill(first.pid, 'SIGKILL');
    await sleep(200);
    const second = await start();
    // Its first reconciler pass (nothing is due: every mark sits at a deadline + grace), then a check.
    await sleep(8000);
    checks.push(await checkJobs('after kill -9 and restart', admin, expected, LEAD_MS));
    await second.stop();
    const aofBytes = Number((await info(admin, 'persistence')).aof_current_size ?? 0);

    // Phase 2: move every job onto the compressed mapping (no askgate runs meanwhile).
    const origin = Date.now() + 5000;
    const realOf = (virtual: number) => origin + (virtual - origin) / scale;
    const jobs = await delayedJobs(admin);
    let moved = 0;
    let earliest = Infinity;
    const ids = [...jobs.keys()];
    for (let from = 0; from < ids.length; from += 1000) {
      const pipe = admin.pipeline();
      for (const id of ids.slice(from, from + 1000)) {
        const due = expected.get(id);
        if (due === undefined) continue;
        const real = Math.ceil(realOf(due)) + 1;
        earliest = Math.min(earliest, real);
        pipe.zadd(`${QUEUE}:delayed`, 'XX', real * 0x1000 + (jobs.get(id)![0]! % 0x1000), id);
        moved++;
      }
      await pipe.exec();
    }
    await admin.zadd(`${QUEUE}:marker`, earliest, '1');

    // Phase 3: fire with a crash halfway.
    const perAsk = new Map<string, number>();
    let resolvedSample = '';
    await sub.subscribe(keys.resolvedChannel());
    sub.on('message', (_channel: string, message: string) => {
      resolvedSample ||= message;
      const id = /"id":"([^"]+)"/.exec(message)?.[1] ?? message;
      perAsk.set(id, (perAsk.get(id) ?? 0) + 1);
    });
    const compressed = {
      BENCH_CLOCK_ORIGIN: String(origin),
      BENCH_CLOCK_SCALE: String(scale),
      ASKGATE_STEP_LEAD_MS: '0',
    };
    await start(compressed);
    const killAt = origin + (windowSeconds * 1000) / 2;
    while (Date.now() < killAt) await sleep(50);
    process.kill(children.at(-1)!.pid, 'SIGKILL');
    const killedAt = Date.now();
    await start(compressed);
    const downMs = Date.now() - killedAt;
    while (Date.now() < origin + windowSeconds * 1000 + GRACE_REAL_MS + 15_000) await sleep(250);
    const after = await checkJobs('after the window', admin, new Map(), 0);

    // Every ask: its record's history.
    const timeouts = { ended: 0, once: 0, twice: 0, none: 0, otherwise: 0, early: 0 };
    const reminded = { due: 0, once: 0, twice: 0, none: 0, early: 0, pastDeadline: 0, lost: 0 };
    const late = { all: [] as number[], before: [] as number[], after: [] as number[], reminders: [] as number[] };
    let pastGrace = 0;
    const index = asks.map((a, i) => (a ? i : -1)).filter((i) => i >= 0);
    for (let from = 0; from < index.length; from += 1000) {
      const batch = index.slice(from, from + 1000);
      const pipe = admin.pipeline();
      for (const i of batch) pipe.get(keys.ask(`l-${i}`, asks[i]!.id));
      const replies = (await pipe.exec()) ?? [];
      for (const [n, i] of batch.entries()) {
        const a = asks[i]!;
        const doc = replies[n]?.[1];
        if (typeof doc !== 'string') {
          timeouts.none++;
          if (a.remindDue !== null) reminded.none++;
          continue;
        }
        const record = parseStoredAsk(doc, 'bench', { id: a.id, runId: `l-${i}` }) as unknown as {
          status: string;
          result?: { status: string; reason?: string };
          history: { type: string; at: string; reason?: string }[];
        };
        if (record.status !== 'pending') timeouts.ended++;
        const ends = record.history.filter((h) => h.type === 'no_answer');
        if (record.result?.status !== 'no_answer' || record.result.reason !== 'timeout') timeouts.otherwise++;
        if (ends.length === 0) timeouts.none++;
        else if (ends.length === 1) timeouts.once++;
        else timeouts.twice++;
        for (const e of ends.slice(0, 1)) {
          const v = Date.parse(e.at) - a.timeoutDue;
          if (v < 0) timeouts.early++;
          const real = v / scale;
          if (real > GRACE_REAL_MS) pastGrace++;
          late.all.push(real);
          (realOf(Date.parse(e.at)) < killedAt ? late.before : late.after).push(real);
        }
        if (a.remindDue !== null) {
          reminded.due++;
          const r = record.history.filter((h) => h.type === 'reminded');
          // Fired at or past the deadline (as late as the timeout was): the timeout owns the ask then.
          const timeoutLate = ends[0] ? Date.parse(ends[0].at) - a.timeoutDue : Infinity;
          if (r.length === 0) {
            reminded.none++;
            if (a.timeoutDue - a.remindDue <= timeoutLate) reminded.pastDeadline++;
            else reminded.lost++;
          } else if (r.length === 1) reminded.once++;
          else reminded.twice++;
          for (const e of r.slice(0, 1)) {
            const v = Date.parse(e.at) - a.remindDue;
            if (v < 0) reminded.early++;
            late.reminders.push(v / scale);
          }
        }
      }
    }
    let twice = 0;
    let none = 0;
    for (const a of made) {
      const n = perAsk.get(a.id) ?? 0;
      if (n === 0) none++;
      if (n > 1) twice++;
    }
    if (none === made.length) problems.push(`resolved messages not matched by id; one: ${resolvedSample}`);
    for (const c of children) problems.push(...c.problems().samples);
    return {
      count: made.length,
      reminders: madeReminder,
      windowSeconds,
      scale,
      createSeconds,
      createErrors,
      bytesPerAsk: (mem2 - mem0) / made.length,
      bytesPerPlainAsk: (mem1 - mem0) / madePlain,
      bytesPerReminderAsk: (mem2 - mem1) / madeReminder,
      usedMemoryBytes: mem2,
      aofBytes,
      keyUsage,
      families,
      jobsPerAsk: checks[0]!.delayed / made.length,
      checks,
      moved,
      killedAtRealMs: killedAt - origin,
      downMs,
      timeouts,
      reminded,
      resolvedMessages: { asks: perAsk.size, twice, none },
      latenessRealMs: {
        all: summarize(late.all),
        beforeKill: summarize(late.before),
        afterRestart: summarize(late.after),
        reminders: summarize(late.reminders),
      },
      pastGrace,
      after,
      problems,
    };
  } finally {
    sub.disconnect();
    await Promise.all(children.map((c) => c.stop().catch(() => undefined)));
    admin.disconnect();
    await redis.dispose();
  }
}

/** The results as markdown. */
export function longWaitsMarkdown(r: LongWaitsResult): string {
  const l = r.latenessRealMs;
  const lat = (s: Summary) => `${ms(s.p50)} / ${ms(s.p99)} / ${ms(s.max)} ms (${num(s.count)})`;
  const lines = [
    `| Asks (with a reminder) | ${num(r.count)} (${num(r.reminders)}) over ${SPAN_SECONDS / 86_400} days, created in ${r.createSeconds.toFixed(1)} s, ${r.createErrors} errors |`,
    '|---|---|',
    `| Redis memory per long ask: all / without / with a reminder | ${num(r.bytesPerAsk)} / ${num(r.bytesPerPlainAsk)} / ${num(r.bytesPerReminderAsk)} B (used_memory ${(r.usedMemoryBytes / 2 ** 20).toFixed(0)} MiB, AOF ${(r.aofBytes / 2 ** 20).toFixed(0)} MiB) |`,
    `| MEMORY USAGE medians | ${Object.entries(r.keyUsage)
      .map(([k, v]) => `${k} ${num(v)} B`)
      .join(', ')} |`,
    `| Step jobs per ask | ${r.jobsPerAsk.toFixed(2)} |`,
    ...r.checks.map(
      (c) =>
        `| Jobs ${c.label}: delayed / expected / missing / unexpected / wrong time (max off) | ${num(c.delayed)} / ${num(c.expected)} / ${c.missing} / ${c.unexpected} / ${c.wrongTime} (${c.maxOffMs} ms); other states ${JSON.stringify(c.otherStates)} |`,
    ),
    `| Compressed firing | scale ${num(r.scale)} (30 days in ${r.windowSeconds} s), ${num(r.moved)} jobs moved; kill -9 at +${(r.killedAtRealMs / 1000).toFixed(1)} s, the new process listening ${(r.downMs / 1000).toFixed(2)} s later |`,
    `| Timeouts: ended / exactly once / twice / none / ended otherwise / early | ${num(r.timeouts.ended)} / ${num(r.timeouts.once)} / ${r.timeouts.twice} / ${r.timeouts.none} / ${r.timeouts.otherwise} / ${r.timeouts.early} |`,
    `| Reminders: due / once / twice / none (past the deadline by the time they ran / lost) / early | ${num(r.reminded.due)} / ${num(r.reminded.once)} / ${r.reminded.twice} / ${r.reminded.none} (${r.reminded.pastDeadline} / ${r.reminded.lost}) / ${r.reminded.early} |`,
    `| Redis bytes per ask by key family | ${Object.entries(r.families)
      .map(([k, v]) => `\`${k}\` ${num(v)}`)
      .join(', ')} |`,
    `| Resolved messages: asks heard / twice / none | ${num(r.resolvedMessages.asks)} / ${r.resolvedMessages.twice} / ${r.resolvedMessages.none} |`,
    `| Timeout lateness, real ms, p50 / p99 / max (n): all | ${lat(l.all)} |`,
    `| … fired before the kill | ${lat(l.beforeKill)} |`,
    `| … fired after the restart | ${lat(l.afterRestart)} |`,
    `| Reminder lateness, real ms | ${lat(l.reminders)} |`,
    `| Timeouts later than the reconciler grace (${GRACE_REAL_MS / 1000} s real) | ${r.pastGrace} |`,
    `| Queue after the window: delayed / other states | ${r.after.delayed} / ${JSON.stringify(r.after.otherStates)} |`,
  ];
  return `${lines.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const count = Number(process.argv[2] ?? 100_000);
  const windowSeconds = Number(process.argv[3] ?? 300);
  const r = await longWaits(count, windowSeconds);
  console.log(longWaitsMarkdown(r));
  console.log(JSON.stringify(r));
  if (r.problems.length) console.error(r.problems.join('\n'));
  process.exit(0);
}
