/**
 * R16 "Long timeout edits" (matrix rows F18, F24) on virtual time.
 *
 * askgate runs in this process with a clock the test moves by hand (`startAskgate(config, {clock})`),
 * against the Telegram, Slack and Discord fakes, whose credential lifetimes run on the same clock:
 * a Slack `response_url` expires 30 min after it was issued, a Discord interaction token 15 min
 * after the interaction. Each run asks with `timeoutSeconds: 3600` at T0; some runs get an early
 * interaction at T0 + 1 min that leaves the ask open ("Other", or a tap by someone the ask is not
 * for), so short-lived credentials exist and are long expired by the end. At T − 1 s half of the
 * runs are answered (tap, thread/reply, API); the rest time out at T (the timeout job's handler)
 * or at T + grace (the reconciler's sweep, as when the timeout job was lost). Then:
 *
 * - every record was still there at T − 1 s (memory store: TTLs run on the virtual clock; Redis:
 *   a private redis-server, where every key's PTTL is projected onto the virtual clock and must
 *   outlast deadline + grace);
 * - every message got its final edit through a bot-token endpoint (Slack `chat.update`, Discord
 *   `PATCH /channels/{id}/messages/{id}`, Telegram `editMessageText`);
 * - no request used an expired interaction token or `response_url`.
 *
 * Redis TTLs run on real time, so nothing waits an hour: each key's expiry is tracked in a ledger
 * (virtual time when its TTL was last set + that TTL) from PTTL snapshots taken before every jump
 * of the clock.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { visibleText } from '../../src/channels/discord/render.js';
import { SlackChannel } from '../../src/channels/slack/slack-channel.js';
import { loadConfig } from '../../src/config.js';
import { assemble } from '../../src/app/assemble.js';
import type { Clock, Logger } from '../../src/core/ports.js';
import type { AskRecord, MessageRef } from '../../src/core/schemas.js';
import { startAskgate, type RunningAskgate } from '../../src/main.js';
import { FakeDiscord, INTERACTION_TOKEN_LIFETIME_MS } from '../fakes/discord-api.js';
import { user as discordUser, type ApiMessage } from '../fakes/discord-payloads.js';
import { FakeSlackApi, RESPONSE_URL_LIFETIME_MS, visibleMessage } from '../fakes/slack-api.js';
import { SlackInjector } from '../fakes/slack-events.js';
import { FakeTelegramApi, type FakeUser } from '../fakes/telegram-api.js';
import { testEnv } from '../helpers/app.js';
import { client } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { channelFor, newUser, visible } from '../channels/telegram-world.js';
import { isAuditKey } from '../helpers/audit-keys.js';

/** Runs per platform (the matrix asks for 100). */
const RUNS = 100;
/** Runs per platform on the memory store (the same scenario; its TTLs run on the virtual clock). */
const MEMORY_RUNS = 100;
const TIMEOUT_S = 3600;
const GRACE_MS = 5000;
/** The smallest retention askgate accepts: the tightest TTLs a deployment can have. */
const RETENTION_S = 60;
const MINUTE = 60_000;
const SECRET = 'r16-signing-secret';
const SLACK_CHAT = 'C0001';
const ALICE = 'U0001';
const BOB = 'U0002';
const alice = discordUser('311111111111111111', 'alice', 'Alice A.');
const bob = discordUser('322222222222222222', 'bob', null);
const quiet: Logger = { info() {}, warn() {}, error() {} };
const QUESTION = [
  {
    id: 'env',
    header: 'Deploy',
    question: 'Where should I deploy?',
    options: [{ label: 'Staging' }, { label: 'Production' }],
  },
];

type Platform = 'slack' | 'discord' | 'telegram';
/** What happens at T0 + 1 min: nothing, "Other" tapped (the ask stays open), or a tap by someone else. */
type Early = 'none' | 'other' | 'stranger';
/** How the ask ends: answered at T − 1 s, or timed out at T (timeout job) or T + grace (reconciler). */
type End = 'tap' | 'reply' | 'api' | 'timeout-job' | 'reconciler';

interface Run {
  platform: Platform;
  runId: string;
  askId: string;
  early: Early;
  end: End;
  ref?: MessageRef;
  tgUser?: FakeUser;
}

/** A frozen clock moved by hand: askgate, the fakes and the test all read it. */
class VirtualClock implements Clock {
  constructor(private t: number) {}
  now(): number {
    return this.t;
  }
  set(t: number): void {
    if (t < this.t) throw new Error('virtual time only moves forward');
    this.t = t;
  }
}

function planOf(platform: Platform, i: number): { early: Early; end: End } {
  const end: End =
    i % 2 === 0 ? (['tap', 'reply', 'api'] as const)[(i / 2) % 3]! : i % 4 === 1 ? 'timeout-job' : 'reconciler';
  // Telegram asks go to private chats: nobody else can tap there.
  const early: Early =
    platform === 'telegram' ? (i % 3 === 0 ? 'none' : 'other') : (['none', 'other', 'stranger'] as const)[i % 3]!;
  return { early, end };
}

/** Polls `check` (which throws or returns false while unmet) until it holds. */
async function until(what: string, check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    if (Date.now() > end) throw new Error(`${what}: not reached within ${ms} ms${last ? ` (${String(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Each store key's expiry on the virtual clock. Redis counts TTLs down in real time, so a key's
 * virtual expiry is the virtual time its TTL was last set plus that TTL. A snapshot is taken
 * before every jump of the clock: a key whose real expiry moved since the last snapshot was
 * (re)set in the current virtual instant.
 */
class TtlLedger {
  private readonly keys = new Map<string, { realExpiry: number; virtualExpiry: number }>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** Reads every `<prefix>:*` key's PTTL; returns keys without a TTL and each key's virtual expiry. */
  async snapshot(virtualNow: number): Promise<{ noTtl: string[]; expiries: Map<string, number> }> {
    const names: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}:*`, 'COUNT', 1000);
      cursor = next;
      names.push(...batch);
    } while (cursor !== '0');
    const realNow = Date.now();
    const pipeline = this.redis.pipeline();
    for (const name of names) pipeline.pttl(name);
    const replies = (await pipeline.exec()) ?? [];
    const noTtl: string[] = [];
    const expiries = new Map<string, number>();
    names.forEach((name, i) => {
      const pttl = Number(replies[i]![1]);
      if (pttl === -2) return this.keys.delete(name);
      if (isAuditKey(name)) return; // the audit trail's own lifetimes (test/helpers/audit-keys.ts)
      if (pttl === -1) return void noTtl.push(name);
      const realExpiry = realNow + pttl;
      const known = this.keys.get(name);
      const entry =
        known && Math.abs(known.realExpiry - realExpiry) < 250
          ? known
          : { realExpiry, virtualExpiry: virtualNow + pttl };
      this.keys.set(name, entry);
      expiries.set(name, entry.virtualExpiry);
    });
    return { noTtl, expiries };
  }
}

/** The key kind, for messages: `ask`, `run`, `id`, `msg`, `conv`, `sweep`, `recent`. */
function kindOf(prefix: string, key: string): string {
  const rest = key.slice(prefix.length + 1);
  return /^\{[^}]*\}:(\w+)/.exec(rest)?.[1] ?? rest.split(':')[0]!;
}

interface World {
  app: RunningAskgate;
  api: ReturnType<typeof client>;
  clock: VirtualClock;
  slack: FakeSlackApi;
  slackIn: SlackInjector;
  discord: FakeDiscord;
  discordChat: string;
  telegram: FakeTelegramApi;
  redis?: { server: TestRedis; client: Redis; ledger: TtlLedger; prefix: string };
  close(): Promise<void>;
}

async function startWorld(mode: 'redis' | 'memory', t0: number): Promise<World> {
  const clock = new VirtualClock(t0);
  const now = () => clock.now();
  const [slack, discord, telegram] = await Promise.all([
    FakeSlackApi.start({ now }),
    FakeDiscord.start({ now }),
    FakeTelegramApi.start(),
  ]);
  const discordChat = discord.addTextChannel();
  const server = mode === 'redis' ? await startRedis() : undefined;
  const env = testEnv({
    ...(server ? { REDIS_URL: server.url } : {}),
    ASKGATE_TIMEOUT_MAX_SECONDS: String(TIMEOUT_S),
    ASKGATE_RETENTION_SECONDS: String(RETENTION_S),
    ASKGATE_RECONCILE_GRACE_MS: String(GRACE_MS),
    // The reconciler's own loop stays out of the way (one tick at start); the test sweeps by hand.
    ASKGATE_RECONCILE_INTERVAL_MS: String(3_600_000),
    ASKGATE_SWEEP_DELAY_MS: '30000',
  });
  const channels = [
    new SlackChannel({ token: slack.token, signingSecret: SECRET, apiUrl: `${slack.url}/api/`, logger: quiet }),
    new DiscordChannel({ token: discord.token, apiUrl: discord.apiUrl, logger: quiet }),
    channelFor(telegram, quiet),
  ];
  const app = await startAskgate(loadConfig(env), { channels, clock, logger: quiet });
  const redisClient = server ? new Redis(server.url) : undefined;
  const prefix = env.ASKGATE_KEY_PREFIX!;
  return {
    app,
    api: client(app.url),
    clock,
    slack,
    slackIn: new SlackInjector(`${app.url}/slack/events`, SECRET, slack),
    discord,
    discordChat,
    telegram,
    ...(server && redisClient
      ? { redis: { server, client: redisClient, ledger: new TtlLedger(redisClient, prefix), prefix } }
      : {}),
    async close() {
      await app.close();
      redisClient?.disconnect();
      await Promise.all([slack.close(), discord.close(), telegram.close()]);
      await server?.dispose();
    },
  };
}

const buttonsOf = (m: ApiMessage) =>
  (m.components as { components: { label: string; custom_id: string }[] }[]).flatMap((r) => r.components);

/** Taps (or replies) as the plan says; resolves once the platform call is made. */
async function act(w: World, run: Run, what: 'other' | 'stranger' | 'tap' | 'reply'): Promise<void> {
  const ref = run.ref!;
  if (run.platform === 'slack') {
    const message = w.slack.message(ref.chat, ref.messageId)!;
    if (what === 'reply') {
      const res = await w.slackIn.postEvent(
        w.slackIn.messageEvent({ channel: ref.chat, user: ALICE, text: '2', threadTs: ref.messageId }),
      );
      expect(res.status).toBe(200);
      return;
    }
    const label = what === 'other' ? 'Other…' : 'Production';
    const who = what === 'stranger' ? BOB : ALICE;
    const data = visibleMessage(message).buttons.find((b) => b.label === label)!.data;
    // Like Slack, every interaction carries a response_url (valid 30 min, on the fake's clock).
    const payload = {
      ...w.slackIn.blockAction(message, data, who),
      response_url: w.slack.issueResponseUrl({ channel: ref.chat, ts: ref.messageId, user: who }),
    };
    expect((await w.slackIn.postInteractive(payload)).status).toBe(200);
  } else if (run.platform === 'discord') {
    if (what === 'reply') {
      w.discord.say(ref.chat, alice, '2', { replyTo: ref.messageId });
      return;
    }
    const message = w.discord.messages.get(ref.messageId)!;
    const label = what === 'other' ? 'Other…' : 'Production';
    w.discord.tap(
      ref.messageId,
      buttonsOf(message).find((b) => b.label === label)!.custom_id,
      what === 'stranger' ? bob : alice,
    );
  } else {
    const user = run.tgUser!;
    if (what === 'reply') {
      w.telegram.say(ref.chat, '2', user, ref.messageId);
      return;
    }
    const data = visible(w.telegram, ref).buttons.find(
      (b) => b.label === (what === 'other' ? 'Other…' : 'Production'),
    )!.data;
    w.telegram.tap(ref.chat, ref.messageId, data, user);
  }
}

/** How many "the person was told" effects the early interactions must have produced on each platform. */
function earlyEffects(w: World): Record<Platform, number> {
  return {
    // "Other…" opens a form (issue 17): a Slack modal or a Discord modal answers that tap.
    slack: w.slack.ephemerals.length + w.slack.views.length,
    discord: [...w.discord.interactions.values()].reduce((n, i) => n + i.followUps.length + (i.modal ? 1 : 0), 0),
    telegram: w.telegram.answers.length,
  };
}

interface Outcome {
  runs: Run[];
  t0: number;
  deadline: number;
  /** Virtual time when the early credentials were issued. */
  earlyAt: number;
  creationCheck: { keys: number; minMarginMs: number };
  atTMinus1: { keys: number; minMarginMs: number; kinds: string[] };
  realMs: number;
}

/** Runs the whole R16 scenario on one world with `n` runs per platform. */
async function scenario(w: World, n: number): Promise<Outcome> {
  const started = Date.now();
  const { app, api, clock } = w;
  const store = app.store;
  const t0 = clock.now();
  const deadline = t0 + TIMEOUT_S * 1000;
  const earlyAt = t0 + MINUTE;
  const runs: Run[] = [];

  // T0: n asks per platform, each in its own run, restricted to the addressee.
  const creations: Promise<void>[] = [];
  for (const platform of ['slack', 'discord', 'telegram'] as const) {
    for (let i = 0; i < n; i++) {
      const tgUser = platform === 'telegram' ? newUser(w.telegram, `P${i}`, `p${i}_${t0 % 1000}`) : undefined;
      const to =
        platform === 'slack'
          ? { channel: 'slack', chat: SLACK_CHAT, users: [ALICE] }
          : platform === 'discord'
            ? { channel: 'discord', chat: w.discordChat, users: [alice.id] }
            : { channel: 'telegram', chat: String(tgUser!.id), users: [String(tgUser!.id)] };
      creations.push(
        (async () => {
          const runId = `r16-${platform}-${i}-${t0}`;
          const res = await api.post('/v1/asks', { runId, to, questions: QUESTION, timeoutSeconds: TIMEOUT_S });
          expect(res.status, JSON.stringify(res.body)).toBe(201);
          expect(Date.parse(res.body.expiresAt)).toBe(deadline);
          runs.push({ platform, runId, askId: res.body.id, ...planOf(platform, i), ...(tgUser ? { tgUser } : {}) });
        })(),
      );
    }
  }
  await Promise.all(creations);
  const records = async () => Promise.all(runs.map(async (r) => [r, await store.get(r.askId)] as const));
  await until(
    'every ask delivered',
    async () => (await records()).every(([, rec]) => rec?.deliveries[0]?.status === 'sent'),
    15_000,
  );
  for (const [run, rec] of await records()) run.ref = rec!.deliveries[0]!.message!;

  // F24 at creation: every key's TTL outlasts deadline + grace.
  let creationCheck = { keys: 0, minMarginMs: Infinity };
  if (w.redis) {
    const { noTtl, expiries } = await w.redis.ledger.snapshot(clock.now());
    expect(noTtl, 'store keys without a TTL').toEqual([]);
    for (const [key, expiry] of expiries)
      expect(expiry - (deadline + GRACE_MS), `${key}: PTTL − (deadline + grace − now)`).toBeGreaterThan(0);
    creationCheck = {
      keys: expiries.size,
      minMarginMs: Math.min(...[...expiries.values()].map((e) => e - (deadline + GRACE_MS))),
    };
    // The audit saw every run's keys: ask record, id mapping, run hash (with the run's history), message binding,
    // and the shared conversation and sweep indexes.
    const p = w.redis.prefix;
    for (const run of runs) {
      const own = [
        `${p}:{${run.runId}}:ask:${run.askId}`,
        `${p}:id:${run.askId}`,
        `${p}:{${run.runId}}:run`,
        `${p}:msg:${run.platform}:${run.ref!.chat}:${run.ref!.messageId}`,
      ];
      for (const key of own) expect(expiries.has(key), key).toBe(true);
    }
    for (const kind of ['conv', 'sweep'])
      expect(
        [...expiries.keys()].some((k) => kindOf(p, k) === kind),
        kind,
      ).toBe(true);
  }

  // T0 + 1 min: early interactions that leave the asks open and issue short-lived credentials.
  clock.set(earlyAt);
  const before = earlyEffects(w);
  const early = runs.filter((r) => r.early !== 'none');
  for (const run of early) await act(w, run, run.early as 'other' | 'stranger');
  const expected = { slack: 0, discord: 0, telegram: 0 };
  for (const run of early) expected[run.platform]++;
  await until('every early interaction answered', () => {
    const now = earlyEffects(w);
    return (['slack', 'discord', 'telegram'] as const).every((p) => now[p] - before[p] >= expected[p]);
  });
  for (const [run, rec] of await records()) expect(rec?.status, `${run.platform} ${run.early}`).toBe('pending');
  if (w.redis) await w.redis.ledger.snapshot(clock.now());

  // T − 1 s: every record is still there (and, on Redis, every key outlasts deadline + grace).
  clock.set(deadline - 1000);
  for (const [run, rec] of await records()) {
    expect(rec, `${run.platform} ask ${run.askId} at T − 1 s`).not.toBeNull();
    expect(rec!.status).toBe('pending');
  }
  let atTMinus1 = { keys: 0, minMarginMs: Infinity, kinds: [] as string[] };
  if (w.redis) {
    const { noTtl, expiries } = await w.redis.ledger.snapshot(clock.now());
    expect(noTtl).toEqual([]);
    for (const run of runs) {
      const askKey = [...expiries.keys()].find((k) => k.endsWith(`:ask:${run.askId}`));
      expect(askKey, `ask record of ${run.askId}`).toBeDefined();
    }
    for (const [key, expiry] of expiries)
      expect(expiry - (deadline + GRACE_MS), `${key} at T − 1 s`).toBeGreaterThan(0);
    atTMinus1 = {
      keys: expiries.size,
      minMarginMs: Math.min(...[...expiries.values()].map((e) => e - (deadline + GRACE_MS))),
      kinds: [...new Set([...expiries.keys()].map((k) => kindOf(w.redis!.prefix, k)))].sort(),
    };
  }

  // T − 1 s: half the runs are answered (tap with fresh credentials, reply, API).
  const answered = runs.filter((r) => ['tap', 'reply', 'api'].includes(r.end));
  for (const run of answered) {
    if (run.end === 'api') {
      const res = await api.post(`/v1/asks/${run.askId}/answer`, { answers: { env: ['Production'] } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    } else {
      await act(w, run, run.end as 'tap' | 'reply');
    }
  }
  // Finalization settles as `done` or (edit refused for good) `failed`; checkOutcome tells which.
  const settled = (rec: AskRecord | null) => rec !== null && rec.deliveries[0]?.finalized !== 'no';
  await until(
    'answered runs answered and their edits settled',
    async () => (await Promise.all(answered.map((r) => store.get(r.askId)))).every(settled),
    15_000,
  );

  // T: the timeout job's handler; T + grace: the reconciler's sweep (a lost timeout job).
  clock.set(deadline);
  await Promise.all(runs.filter((r) => r.end === 'timeout-job').map((r) => app.gateway.expire(r.askId)));
  clock.set(deadline + GRACE_MS);
  const { work } = assemble(app.ports);
  await Promise.all(runs.filter((r) => r.end === 'reconciler').map((r) => work.sweep(r.askId)));
  await until('every edit settled', async () => (await records()).every(([, rec]) => settled(rec)), 15_000);
  return { runs, t0, deadline, earlyAt, creationCheck, atTMinus1, realMs: Date.now() - started };
}

/** Asserts outcomes, final edits through bot-token endpoints, and no use of an expired credential. */
async function checkOutcome(w: World, o: Outcome): Promise<void> {
  const store = w.app.store;
  const records = new Map<string, AskRecord>();
  for (const run of o.runs) records.set(run.askId, (await store.get(run.askId))!);

  // F18 first, as the likeliest failure: no request on an expired credential.
  expect(w.slack.expiredResponseUrlCalls, 'Slack response_url posts past 30 min').toEqual([]);
  expect(w.discord.expiredTokenCalls, 'Discord calls on an interaction token past 15 min').toEqual([]);

  for (const run of o.runs) {
    const rec = records.get(run.askId)!;
    const label = `${run.platform} run (${run.early} → ${run.end}) ${run.askId}`;
    if (run.end === 'timeout-job' || run.end === 'reconciler') {
      expect(rec.result, label).toMatchObject({
        status: 'no_answer',
        reason: 'timeout',
        at: new Date(run.end === 'timeout-job' ? o.deadline : o.deadline + GRACE_MS).toISOString(),
      });
    } else {
      expect(rec.result, label).toMatchObject({
        status: 'answered',
        answers: { env: ['Production'] },
        answeredAt: new Date(o.deadline - 1000).toISOString(),
        answeredBy: { channel: run.end === 'api' ? 'api' : run.platform },
      });
    }
    expect(rec.deliveries[0], label).toMatchObject({ status: 'sent', finalized: 'done' });
    const outcomeText =
      run.end === 'timeout-job' || run.end === 'reconciler' ? 'Expired — no answer' : 'Answered: Production';
    const ref = run.ref!;
    if (run.platform === 'slack') {
      const shown = visibleMessage(w.slack.message(ref.chat, ref.messageId)!);
      expect(shown.buttons, label).toEqual([]);
      expect(shown.text, label).toContain(outcomeText);
      const edits = w.slack.callsOf('chat.update').filter((c) => c.params.ts === ref.messageId);
      expect(edits.length, label).toBeGreaterThanOrEqual(1);
    } else if (run.platform === 'discord') {
      const message = w.discord.messages.get(ref.messageId)!;
      expect(message.components, label).toEqual([]);
      expect(visibleText(message.content), label).toContain(outcomeText);
      const edits = w.discord.calls.filter(
        (c) => c.method === 'PATCH' && c.path === `/channels/${ref.chat}/messages/${ref.messageId}`,
      );
      expect(edits.length, label).toBeGreaterThanOrEqual(1);
      expect(
        edits.every((c) => c.authorized && c.status === 200),
        label,
      ).toBe(true);
    } else {
      const shown = visible(w.telegram, ref);
      expect(shown.buttons, label).toEqual([]);
      expect(shown.text, label).toContain(outcomeText);
      const edits = w.telegram.callsOf('editMessageText').filter((c) => String(c.params.message_id) === ref.messageId);
      expect(
        edits.some((c) => c.ok),
        label,
      ).toBe(true);
    }
  }

  // Slack: one chat.update per message (the fake checks the bot token).
  expect(w.slack.calls.filter((c) => c.method === 'chat.update')).toHaveLength(
    o.runs.filter((r) => r.platform === 'slack').length,
  );
  // The early response_urls were long expired when the messages were edited.
  const earlyUrls = [...w.slack.responseUrls.values()].filter((u) => u.issuedAt === o.earlyAt);
  expect(earlyUrls.length).toBe(o.runs.filter((r) => r.platform === 'slack' && r.early !== 'none').length);
  expect(o.deadline - 1000 - o.earlyAt).toBeGreaterThan(RESPONSE_URL_LIFETIME_MS);

  // Discord: every ack and follow-up on an interaction token succeeded; none edited a message.
  const tokenCalls = w.discord.calls.filter((c) => /^\/(interactions|webhooks)\//.test(c.path));
  expect(
    tokenCalls.every((c) => c.status >= 200 && c.status < 300),
    JSON.stringify(tokenCalls.filter((c) => c.status >= 300)),
  ).toBe(true);
  expect(tokenCalls.filter((c) => /\/messages\//.test(c.path))).toEqual([]);
  const earlyInteractions = [...w.discord.interactions.values()].filter((i) => i.dispatchedAt === o.earlyAt);
  expect(earlyInteractions.length).toBe(o.runs.filter((r) => r.platform === 'discord' && r.early !== 'none').length);
  expect(o.deadline - 1000 - o.earlyAt).toBeGreaterThan(INTERACTION_TOKEN_LIFETIME_MS);
  // Every Discord message edit used the bot token.
  expect(
    w.discord.calls.filter((c) => c.method === 'PATCH').every((c) => c.authorized && /^\/channels\//.test(c.path)),
  ).toBe(true);

  // Telegram: every callback query answered in time; every edit succeeded.
  expect(w.telegram.callsOf('answerCallbackQuery').filter((c) => !c.ok)).toEqual([]);
  expect(w.telegram.callsOf('editMessageText').filter((c) => !c.ok)).toEqual([]);
}

/** Summary line for the report. */
function summary(name: string, w: World, o: Outcome): string {
  const count = (p: Platform, f: (r: Run) => boolean) => o.runs.filter((r) => r.platform === p && f(r)).length;
  const per = (['slack', 'discord', 'telegram'] as const).map(
    (p) =>
      `${p}: ${count(p, () => true)} runs, ${count(p, (r) => !r.end.startsWith('timeout') && r.end !== 'reconciler')} answered at T−1 s, ` +
      `${count(p, (r) => r.end === 'timeout-job')} timed out at T, ${count(p, (r) => r.end === 'reconciler')} at T+grace, ${count(p, (r) => r.early !== 'none')} early credentials`,
  );
  const ttl = w.redis
    ? `; keys audited at creation ${o.creationCheck.keys} (min margin over deadline+grace ${Math.round(o.creationCheck.minMarginMs / 1000)} s), at T−1 s ${o.atTMinus1.keys} (${o.atTMinus1.kinds.join(', ')}; min margin ${Math.round(o.atTMinus1.minMarginMs / 1000)} s)`
    : '';
  return `[R16 ${name}] ${per.join('; ')}; expired response_url posts ${w.slack.expiredResponseUrlCalls.length}, response_url posts ${w.slack.responseUrlCalls.length}, expired Discord token calls ${w.discord.expiredTokenCalls.length}${ttl}; ${o.realMs} ms`;
}

describe.each([
  ['redis', RUNS],
  ['memory', MEMORY_RUNS],
] as const)('R16 long timeout edits on virtual time (%s store, %i runs per platform)', (mode, n) => {
  let w: World;
  let outcome: Outcome;

  beforeAll(async () => {
    w = await startWorld(mode, Math.floor(Date.now() / 1000) * 1000);
  }, 30_000);

  afterAll(async () => {
    await w?.close();
  });

  it('timeout 3600 s: answered at T − 1 s or timed out at T / T + grace; every final edit goes through the bot token; no expired credential is used', async () => {
    outcome = await scenario(w, n);
    await checkOutcome(w, outcome);
    if (process.env.R16_SUMMARY) console.log(summary(mode, w, outcome));
  }, 60_000);

  it('control: the fakes refuse an expired response_url and interaction token, and count the attempt', async () => {
    expect(outcome).toBeDefined();
    const now = w.clock.now();
    // Slack: an early response_url (issued at T0 + 1 min), used now → 404 expired_url, counted.
    const stale = [...w.slack.responseUrls.values()].find((u) => u.issuedAt === outcome.earlyAt)!;
    const fresh = [...w.slack.responseUrls.values()].find((u) => now - u.issuedAt < RESPONSE_URL_LIFETIME_MS)!;
    const post = (url: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'late', replace_original: false }),
      });
    const slackBefore = w.slack.expiredResponseUrlCalls.length;
    const refused = await post(stale.url);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({ ok: false, error: 'expired_url' });
    expect(w.slack.expiredResponseUrlCalls).toHaveLength(slackBefore + 1);
    expect((await post(fresh.url)).status).toBe(200);
    expect(w.slack.expiredResponseUrlCalls).toHaveLength(slackBefore + 1);

    // Discord: an early interaction token, used to edit the message now → 401 50027, counted.
    const early = [...w.discord.interactions.values()].find((i) => i.dispatchedAt === outcome.earlyAt)!;
    const late = [...w.discord.interactions.values()].find(
      (i) => now - i.dispatchedAt < INTERACTION_TOKEN_LIFETIME_MS,
    )!;
    const edit = (token: string, method: string) =>
      fetch(`${w.discord.apiUrl}/v10/webhooks/${w.discord.applicationId}/${token}/messages/@original`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(method === 'PATCH' ? { body: JSON.stringify({ content: 'late', components: [] }) } : {}),
      });
    const discordBefore = w.discord.expiredTokenCalls.length;
    const expired = await edit(early.token, 'PATCH');
    expect(expired.status).toBe(401);
    expect(await expired.json()).toMatchObject({ code: 50027, message: 'Invalid Webhook Token' });
    const followUp = await fetch(`${w.discord.apiUrl}/v10/webhooks/${w.discord.applicationId}/${early.token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'late' }),
    });
    expect(followUp.status).toBe(401);
    expect(w.discord.expiredTokenCalls).toHaveLength(discordBefore + 2);
    expect((await edit(late.token, 'GET')).status).toBe(200);
    expect(w.discord.expiredTokenCalls).toHaveLength(discordBefore + 2);
  });

  // Redis counts its TTLs in real time (checked through PTTL above); only the memory store runs on the virtual clock.
  if (mode === 'memory')
    it('control: the memory store expires records on the virtual clock (the T − 1 s presence check is not vacuous)', async () => {
      expect(outcome).toBeDefined();
      const store = w.app.store;
      const ids = outcome.runs.map((r) => r.askId);
      expect((await Promise.all(ids.map((id) => store.get(id)))).every((r) => r !== null)).toBe(true);
      // Terminal records keep the retention (60 s) from their last commit, at T + grace at the latest.
      w.clock.set(outcome.deadline + GRACE_MS + RETENTION_S * 1000 + 1000);
      expect((await Promise.all(ids.map((id) => store.get(id)))).filter((r) => r !== null)).toEqual([]);
    });
});
