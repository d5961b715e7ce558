import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDiscord } from '../fakes/discord-api.js';
import { user as discordUser } from '../fakes/discord-payloads.js';
import { FakeSlackApi } from '../fakes/slack-api.js';
import { SlackInjector } from '../fakes/slack-events.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { testEnv } from '../helpers/app.js';
import { startAskgateProcess, type AskgateProcess } from '../helpers/askgate-process.js';
import { client, eventually } from '../helpers/http.js';
import { freePort, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { dumpRedis, parseAof, type DumpedKey } from './security-dump.js';
import { isAuditKey } from '../helpers/audit-keys.js';

// Secrets at rest and in logs: askgate runs as a child process (LOG_LEVEL=debug, every line
// captured) with sentinel tokens on all three platforms; people answer in their own words with
// sentinel text. Afterwards every log line, every Redis key and the AOF are searched.

const tag = () => randomBytes(6).toString('hex');
const S = {
  tgToken: `7000${Math.floor(Math.random() * 1e5)}:SENTINEL_TGTOKEN_${tag()}`,
  tgHook: `SENTINEL_TGHOOK_${tag()}`,
  slackToken: `xoxb-SENTINEL-SLACKTOKEN-${tag()}`,
  slackSigning: `SENTINEL-SLACKSIGNING-${tag()}`,
  discordToken: `SENTINEL.DISCORDTOKEN.${tag()}`,
  apiToken: `SENTINEL-APITOKEN-${tag()}`,
  webhookSecret: `SENTINEL-WEBHOOKSECRET-${tag()}`,
  badBearer: `SENTINEL-BADBEARER-${tag()}`,
};
const A = {
  tg: `SENTINEL-SECRET-tg-${tag()}`,
  tgPartial: `SENTINEL-SECRET-tgpartial-${tag()}`,
  slack: `SENTINEL-SECRET-slack-${tag()}`,
  discord: `SENTINEL-SECRET-discord-${tag()}`,
  api: `SENTINEL-SECRET-api-${tag()}`,
};
const REJECTED = `SENTINEL-SECRET-rejected-${tag()}`;
const TOKENS = Object.values(S);
const ANSWERS = Object.values(A);

let redis: TestRedis;
let tg: FakeTelegramApi;
let slack: FakeSlackApi;
let discord: FakeDiscord;
let hookServer: Server;
const hookBodies: string[] = [];
let askgate: AskgateProcess;
let api: ReturnType<typeof client>;
let prefix: string;
let midFlow: DumpedKey[] = [];
const askIds: string[] = [];

const question = (id: string) => ({
  id,
  question: `Question ${id}?`,
  options: [{ label: 'Staging' }, { label: 'Production' }],
});

async function ask(
  to: object | undefined,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; messageId?: string; chat?: string }> {
  const res = await api.post('/v1/asks', {
    runId: `sec-secret-${tag()}`,
    ...(to ? { to } : {}),
    timeoutSeconds: 120,
    questions: [question('env')],
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  askIds.push(res.body.id);
  if (!to) return { id: res.body.id };
  const ref = await eventually(async () => {
    const r = (await api.get(`/v1/asks/${res.body.id}`)).body;
    return r.deliveries[0].status === 'sent' && r.deliveries[0].message;
  });
  return { id: res.body.id, messageId: ref.messageId, chat: ref.chat };
}

beforeAll(async () => {
  redis = await startRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
  [tg, slack, discord] = await Promise.all([
    FakeTelegramApi.start({ token: S.tgToken }),
    FakeSlackApi.start(),
    FakeDiscord.start(),
  ]);
  // The fakes check whatever token they hold at request time: give them the sentinels.
  Object.assign(slack, { token: S.slackToken });
  Object.assign(discord, { token: S.discordToken });
  hookServer = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => void (hookBodies.push(body), res.writeHead(200).end()));
  });
  await new Promise<void>((r) => hookServer.listen(0, '127.0.0.1', r));
  const port = await freePort();
  const env = testEnv({
    REDIS_URL: redis.url,
    PORT: String(port),
    LOG_LEVEL: 'debug',
    ASKGATE_API_TOKEN: S.apiToken,
    ASKGATE_WEBHOOK_SECRET: S.webhookSecret,
    ASKGATE_WEBHOOK_ALLOWED_HOSTS: 'loopback', // the hook server listens on 127.0.0.1
    TELEGRAM_BOT_TOKEN: S.tgToken,
    TELEGRAM_API_ROOT: tg.url,
    TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/telegram/webhook`,
    TELEGRAM_WEBHOOK_SECRET: S.tgHook,
    SLACK_BOT_TOKEN: S.slackToken,
    SLACK_SIGNING_SECRET: S.slackSigning,
    SLACK_API_URL: `${slack.url}/api/`,
    DISCORD_BOT_TOKEN: S.discordToken,
    DISCORD_API_URL: discord.apiUrl,
  });
  prefix = env.ASKGATE_KEY_PREFIX!;
  const discordChat = discord.addTextChannel();
  askgate = await startAskgateProcess(env);
  api = client(askgate.url, S.apiToken);

  // Telegram: an answer in the person's own words; a reply by someone not allowed; a partial answer.
  const alice = tg.addUser(50_001, 'Alice', { username: 'alice' });
  const mallory = tg.addUser(50_002, 'Mallory', { username: 'mallory' });
  const group = tg.addGroup(-1_000_000_901, 'ops');
  const t1 = await ask({ channel: 'telegram', chat: String(alice.id), users: [String(alice.id)] });
  tg.say(t1.chat!, A.tg, alice, t1.messageId);
  const t2 = await ask({ channel: 'telegram', chat: String(group.id), users: [String(alice.id)] });
  tg.say(group.id, REJECTED, mallory, t2.messageId);
  await eventually(async () =>
    tg.chatMessages(group.id).some((m) => m.from.is_bot && /This question is for/.test(m.text)),
  );
  tg.say(group.id, '1', alice, t2.messageId);
  const t3 = await ask({ channel: 'telegram', chat: String(alice.id) }, { questions: [question('a'), question('b')] });
  tg.say(t3.chat!, `1: ${A.tgPartial}`, alice, t3.messageId);
  midFlow = await eventually(async () => {
    const r = (await api.get(`/v1/asks/${t3.id}`)).body;
    return r.partial?.a && (await dumpRedis(redis.url));
  });
  tg.say(t3.chat!, '2: 2', alice, t3.messageId);

  // Slack: a thread reply in own words.
  const s1 = await ask({ channel: 'slack', chat: 'C0001' });
  const injector = new SlackInjector(`${askgate.url}/slack/events`, S.slackSigning, slack);
  expect(
    (
      await injector.postEvent(
        injector.messageEvent({ channel: 'C0001', user: 'U0001', text: A.slack, threadTs: s1.messageId }),
      )
    ).status,
  ).toBe(200);

  // Discord: a reply by reference in own words.
  const d1 = await ask({ channel: 'discord', chat: discordChat });
  discord.say(discordChat, discordUser('393333333333333333', 'dora'), A.discord, { replyTo: d1.messageId });

  // Failure paths that log and leave error texts in records and job data: a 500 that is retried,
  // and a permanent refusal on every platform (the ask ends undelivered).
  tg.failNext('sendMessage', { error_code: 500, description: 'Internal Server Error' });
  const bob = tg.addUser(50_003, 'Bob');
  const retried = await ask({ channel: 'telegram', chat: String(bob.id) });
  tg.say(bob.id, 'skip', bob, retried.messageId);
  await eventually(async () => (await api.get(`/v1/asks/${retried.id}`)).body.deliveries[0].finalized === 'done');
  tg.block(bob.id);
  discord.failNext('POST', /^\/channels\/\d+\/messages$/, 403, 50001, 'Missing Access');
  for (const to of [
    { channel: 'telegram', chat: String(bob.id) },
    { channel: 'slack', chat: 'C0404' },
    { channel: 'discord', chat: discordChat },
  ]) {
    const res = await api.post('/v1/asks?wait=10', { runId: `sec-secret-${tag()}`, to, questions: [question('env')] });
    expect(res.body.result).toMatchObject({ status: 'no_answer', reason: 'undelivered' });
    askIds.push(res.body.id);
  }

  // API: an answer in own words, with a signed callback to the agent; one ask that times out.
  const hook = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hook`;
  const a1 = await ask(undefined, { callbackUrl: hook });
  expect((await api.post(`/v1/asks/${a1.id}/answer`, { answers: { env: [A.api] }, by: 'operator' })).status).toBe(200);
  await ask(undefined, { timeoutSeconds: 1 });
  expect((await client(askgate.url, S.badBearer).get(`/v1/asks/${a1.id}`)).status).toBe(401);

  await eventually(
    async () => {
      const records = await Promise.all(askIds.map(async (id) => (await api.get(`/v1/asks/${id}`)).body));
      return records.every(
        (r) =>
          r.status !== 'pending' &&
          r.deliveries.every(
            (d: { status: string; finalized: string }) => d.status !== 'sent' || d.finalized === 'done',
          ),
      );
    },
    20_000,
    100,
  );
  await eventually(async () => hookBodies.length > 0);
  await new Promise((r) => setTimeout(r, 500));
}, 60_000);

afterAll(async () => {
  await askgate?.stop();
  await Promise.all([tg?.close(), slack?.close(), discord?.close()]);
  hookServer?.close();
  await redis?.dispose();
});

const hits = (text: string, needles: string[]) => needles.filter((n) => text.includes(n));

describe('secrets: tokens and free-text answers in logs, Redis and the AOF', () => {
  it('the flow really ran: every answer reached the agent, the log is not empty', async () => {
    const results = await Promise.all(
      askIds.map(async (id) => JSON.stringify((await api.get(`/v1/asks/${id}`)).body.result)),
    );
    for (const answer of ANSWERS) expect(results.some((r) => r.includes(answer))).toBe(true);
    expect(hookBodies.join()).toContain(A.api);
    expect(askgate.output()).toContain('askgate listening');
    expect(askgate.output().split('\n').length).toBeGreaterThan(5);
  });

  it('no token, secret, free-text answer or rejected reply appears in any log line', () => {
    const log = askgate.output();
    expect(hits(log, [...TOKENS, S.tgToken.split(':')[1]!, ...ANSWERS, REJECTED])).toEqual([]);
  });

  it('Redis: tokens nowhere; free text only in the ask record (a string key); the rejected reply nowhere', async () => {
    for (const dump of [midFlow, await dumpRedis(redis.url)]) {
      const everywhere = dump.map((k) => `${k.key}\n${k.text}`).join('\n');
      expect(hits(everywhere, [...TOKENS, REJECTED])).toEqual([]);
      for (const k of dump) {
        for (const [field, value] of k.fields) {
          const found = hits(`${k.key}\u0000${field}\u0000${value}`, ANSWERS);
          if (found.length === 0) continue;
          expect({ key: k.key, type: k.type, field, found }).toEqual({
            key: expect.stringMatching(new RegExp(`^${prefix}:\\{[^}]+\\}:ask:[0-9A-Za-z]+$`)),
            type: 'string',
            field: '',
            found,
          });
        }
      }
    }
  });

  it('every askgate store key has a TTL; BullMQ keeps only its bookkeeping keys, and job data holds ids only', async () => {
    const dump = await dumpRedis(redis.url);
    const store = dump.filter((k) => k.key.startsWith(`${prefix}:`));
    expect(store.length).toBeGreaterThan(10);
    expect(store.filter((k) => k.pttl <= 0 && !isAuditKey(k.key)).map((k) => k.key)).toEqual([]);
    const queue = dump.filter((k) => k.key.startsWith(`{${prefix}}:`));
    expect(dump.filter((k) => !store.includes(k) && !queue.includes(k)).map((k) => k.key)).toEqual([]);
    const immortal = new Set(
      queue.filter((k) => k.pttl <= 0).map((k) => k.key.replace(/^\{[^}]+\}:askgate-(timeouts|outbox):/, '')),
    );
    expect(
      [...immortal].filter(
        (name) =>
          ![
            'meta',
            'id',
            'events',
            'marker',
            'delayed',
            'wait',
            'active',
            'paused',
            'prioritized',
            'completed',
            'failed',
            'pc',
          ].includes(name),
      ),
    ).toEqual([]);
    const jobs = [...midFlow, ...dump].filter(
      (k) => k.type === 'hash' && /:(timeout|deliver|finalize|webhook)-[^:]+$/.test(k.key),
    );
    expect(jobs.length).toBeGreaterThan(0);
    for (const job of jobs) {
      const data = JSON.parse(job.fields.find(([f]) => f === 'data')?.[1] ?? '{}') as Record<string, unknown>;
      expect(Object.keys(data).filter((key) => !['askId', 'kind', 'index', 'deferrals', 'step'].includes(key))).toEqual(
        [],
      );
      // A scheduled step names its kind only (`timeout`), never anything a person wrote.
      if ('step' in data) expect(data.step).toBe('timeout');
    }
  });

  it('AOF: tokens nowhere; free text only in the SET of an ask record; the rejected reply nowhere', () => {
    const files: string[] = [];
    const walk = (dir: string) =>
      readdirSync(dir).forEach((f) =>
        statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : files.push(join(dir, f)),
      );
    walk(redis.dir);
    const aofs = files.filter((f) => /\.aof$/.test(f));
    expect(aofs.length).toBeGreaterThan(0);
    const all = files.map((f) => readFileSync(f).toString('latin1')).join('\n');
    expect(hits(all, [...TOKENS, REJECTED])).toEqual([]);
    const commands = aofs.filter((f) => f.endsWith('.incr.aof')).flatMap((f) => parseAof(readFileSync(f)));
    expect(commands.length).toBeGreaterThan(20);
    const carrying = commands.filter((c) => hits(c.join('\u0000'), ANSWERS).length > 0);
    expect(carrying.length).toBeGreaterThan(0);
    for (const c of carrying) {
      // The record's value (`<rev> <status> <compact JSON>`) is the SET's third argument.
      expect({
        command: c[0]!.toUpperCase(),
        key: c[1],
        inValue: hits(c[2] ?? '', ANSWERS).length > 0,
      }).toEqual({
        command: 'SET',
        key: expect.stringMatching(new RegExp(`^${prefix}:\\{[^}]+\\}:ask:`)),
        inValue: true,
      });
      expect(hits(c.filter((_, i) => i !== 2).join('\u0000'), ANSWERS)).toEqual([]);
    }
  });
});
