/**
 * The platforms around askgate during a benchmark: the test fakes (test/fakes) of Telegram, Slack
 * and Discord, plus a simulated human who taps the first option of a question as soon as it is
 * delivered. The fakes keep logs for tests; here their logs are replaced by counters so a long
 * run does not grow without bound.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { FakeTelegramApi, type ApiCall, type FakeUser, type StoredMessage } from '../../test/fakes/telegram-api.js';
import { FakeSlackApi, type FakeCall, type FakeMessage } from '../../test/fakes/slack-api.js';
import { SlackInjector, slackSignature } from '../../test/fakes/slack-events.js';
import { FakeDiscord, type DiscordCall } from '../../test/fakes/discord-api.js';
import * as P from '../../test/fakes/discord-payloads.js';
import { HttpClient, Semaphore } from './http.js';

export type ChannelName = 'telegram' | 'slack' | 'discord';

/** A question message as the human sees it: where it is and the data of its first option button. */
export interface Delivered {
  chat: string;
  messageId: string;
  data: string;
  /** performance.now() when the fake stored the message. */
  at: number;
}

/** Where run `i` asks: its own chat (one chat per run) and the one user allowed to answer. */
export interface RunTarget {
  channel: ChannelName;
  chat: string;
  users: string[];
}

/** Telegram delivers webhook updates over at most this many connections (setWebhook max_connections default). */
export const TELEGRAM_WEBHOOK_CONNECTIONS = 40;

/** One platform fake plus the human. */
export interface World {
  readonly name: ChannelName;
  /** Environment for the askgate child that points its channel at the fake. */
  childEnv(port: number): Record<string, string>;
  /**
   * Called once every askgate replica listens (the URLs in replica order). Updates and events
   * are then posted to the replicas round-robin, as a load balancer in front of them would.
   */
  attach(askgateUrls: string[]): Promise<void>;
  target(run: number): RunTarget;
  /** Called whenever a question message with buttons is stored by the fake. */
  onDelivered: (d: Delivered) => void;
  /**
   * The human taps the first option; `sent` gets performance.now() when the update leaves for
   * askgate and the index of the replica it goes to (0 where the platform picks no replica).
   */
  tap(d: Delivered, run: number, sent: (at: number, replica: number) => void): Promise<void>;
  /**
   * Telegram only: the human replies to the question message with `text` (a typed answer). With it,
   * a question message without buttons whose text holds `promptMarker` counts as delivered too.
   */
  say?(d: Delivered, run: number, text: string): Promise<void>;
  promptMarker?: string;
  /** Counters of platform calls askgate made. */
  counts: { delivered: number; finalized: number; acks: number; tapErrors: number };
  close(): Promise<void>;
}

const noop = () => {};

/** HTTP clients of the replicas, handed out round-robin. */
class RoundRobin {
  private next = 0;
  constructor(private readonly clients: HttpClient[]) {}
  pick(): { client: HttpClient; replica: number } {
    const replica = this.next++ % this.clients.length;
    return { client: this.clients[replica]!, replica };
  }
  close(): void {
    for (const c of this.clients) c.close();
  }
}

const clientsOf = (urls: string[]) => new RoundRobin(urls.map((u) => new HttpClient(u)));

/**
 * Telegram in webhook mode: the bench posts updates to askgate like Telegram does, up to 40 at
 * once (over all replicas: Telegram posts to one URL, a balancer spreads the POSTs round-robin).
 * Polling mode takes one replica only (a second getUpdates poller would conflict).
 */
export async function telegramWorld(
  runs: number,
  mode: 'webhook' | 'polling' = 'webhook',
  sendIntervalMs = 0,
): Promise<World> {
  const fake = await FakeTelegramApi.start({ callbackDeadlineMs: 120_000, longPollCapMs: 1000 });
  const secret = randomBytes(16).toString('hex');
  const users: FakeUser[] = [];
  for (let i = 0; i < runs; i++) users.push(fake.addUser(20_000_000 + i, `u${i}`, { username: `u${i}` }));
  const fakeHttp = new HttpClient(fake.url);
  const gate = new Semaphore(TELEGRAM_WEBHOOK_CONNECTIONS);
  let askgate: RoundRobin | null = null;
  let webhookSecret = '';
  let lastUpdateId = 0;
  let sinceDrain = 0;
  const counts = { delivered: 0, finalized: 0, acks: 0, tapErrors: 0 };
  const world: World = {
    name: 'telegram',
    onDelivered: noop,
    counts,
    childEnv: () => ({
      BENCH_TG_TOKEN: fake.token,
      BENCH_TG_API: fake.url,
      BENCH_TG_SECRET: secret,
      BENCH_TG_MODE: mode,
      BENCH_TG_SEND_INTERVAL_MS: String(sendIntervalMs),
    }),
    async attach(urls) {
      if (mode === 'polling' && urls.length > 1)
        throw new Error('Telegram polling mode takes one askgate replica (getUpdates has one consumer)');
      askgate = clientsOf(urls);
      if (mode === 'webhook') {
        // Every replica called setWebhook on startup (the last one's URL is the fake's now; all
        // carry the same secret). Called once all have started, so none registers again later.
        if (!fake.webhook) throw new Error('askgate did not register its Telegram webhook');
        webhookSecret = fake.webhook.secret ?? '';
        // The bench posts updates itself (in parallel, like Telegram); the fake's own pump sends one at a time.
        fake.webhook = null;
      }
    },
    target: (run) => ({ channel: 'telegram', chat: String(users[run]!.id), users: [String(users[run]!.id)] }),
    async tap(d, run, sent) {
      fake.tap(d.chat, d.messageId, d.data, users[run]!);
      if (mode === 'polling') return sent(performance.now(), 0); // askgate's getUpdates picks it up
      const update = fake.pushed.pop()!;
      lastUpdateId = update.update_id;
      if (++sinceDrain >= 500) {
        sinceDrain = 0;
        // Drops delivered updates from the fake's queue (nobody polls in webhook mode).
        void fakeHttp
          .request(
            'POST',
            `/bot${fake.token}/getUpdates`,
            JSON.stringify({ offset: lastUpdateId + 1, timeout: 0, limit: 1 }),
          )
          .catch(noop);
      }
      await gate.run(async () => {
        const { client, replica } = askgate!.pick();
        sent(performance.now(), replica);
        const reply = await client.request(
          'POST',
          '/telegram/webhook',
          JSON.stringify(update),
          { 'x-telegram-bot-api-secret-token': webhookSecret },
          60_000,
        );
        if (reply.status !== 200) counts.tapErrors++;
        // Like Telegram, run the method askgate put in its answer (the tap's answerCallbackQuery).
        else await fake.webhookReply(reply.body);
      });
    },
    async say(d, run, text) {
      fake.say(d.chat, text, users[run]!, d.messageId);
      const update = fake.pushed.pop()!;
      await gate.run(async () => {
        const { client } = askgate!.pick();
        const reply = await client.request('POST', '/telegram/webhook', JSON.stringify(update), {
          'x-telegram-bot-api-secret-token': webhookSecret,
        });
        if (reply.status !== 200) counts.tapErrors++;
        else await fake.webhookReply(reply.body);
      });
    },
    async close() {
      askgate?.close();
      fakeHttp.close();
      await fake.close();
    },
  };
  fake.calls.push = (...calls: ApiCall[]) => {
    for (const c of calls) {
      if (!c.ok) continue;
      if (c.method === 'sendMessage') {
        const chat = String(c.params.chat_id);
        const list = fake.chatMessages(chat);
        const m: StoredMessage | undefined = list[list.length - 1];
        const markup = m?.reply_markup;
        const buttons = markup && 'inline_keyboard' in markup ? markup.inline_keyboard : null;
        const plainPrompt = !buttons && world.promptMarker !== undefined && !!m?.text?.includes(world.promptMarker);
        if (m && (buttons || plainPrompt)) {
          counts.delivered++;
          const d: Delivered = {
            chat,
            messageId: String(m.message_id),
            data: buttons?.[0]?.[0]?.callback_data ?? '',
            at: performance.now(),
          };
          setImmediate(() => world.onDelivered(d));
        }
      } else if (c.method === 'editMessageText') counts.finalized++;
      else if (c.method === 'answerCallbackQuery') counts.acks++;
    }
    return 0;
  };
  fake.answers.push = () => 0;
  return world;
}

/** Slack in HTTP mode: interactivity payloads signed and POSTed to askgate's /slack/events. */
export async function slackWorld(runs: number): Promise<World> {
  const fake = await FakeSlackApi.start();
  const secret = randomBytes(16).toString('hex');
  const channels: string[] = [];
  for (let i = 0; i < runs; i++) {
    const id = `CB${(1_000_000 + i).toString(36).toUpperCase()}`;
    fake.channels.add(id);
    channels.push(id);
  }
  const injector = new SlackInjector('', secret, fake);
  const byTs = new Map<string, FakeMessage>();
  let askgate: RoundRobin | null = null;
  const counts = { delivered: 0, finalized: 0, acks: 0, tapErrors: 0 };
  const world: World = {
    name: 'slack',
    onDelivered: noop,
    counts,
    childEnv: () => ({ BENCH_SLACK_API: `${fake.url}/api/`, BENCH_SLACK_SECRET: secret }),
    async attach(urls) {
      askgate = clientsOf(urls);
    },
    target: (run) => ({ channel: 'slack', chat: channels[run]!, users: [`UB${run}`] }),
    async tap(d, run, sent) {
      const message = byTs.get(`${d.chat}:${d.messageId}`)!;
      byTs.delete(`${d.chat}:${d.messageId}`);
      const body = `payload=${encodeURIComponent(JSON.stringify(injector.blockAction(message, d.data, `UB${run}`)))}`;
      const ts = Math.floor(Date.now() / 1000);
      const headers = {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': String(ts),
        'x-slack-signature': slackSignature(secret, ts, body),
      };
      const { client, replica } = askgate!.pick();
      sent(performance.now(), replica);
      const reply = await client.request('POST', '/slack/events', body, headers, 60_000);
      if (reply.status !== 200) counts.tapErrors++;
    },
    async close() {
      askgate?.close();
      await fake.close();
    },
  };
  const set = fake.messages.set.bind(fake.messages);
  fake.messages.set = (key: string, m: FakeMessage) => {
    set(key, m);
    const button = m.blocks.flatMap((b: any) => (b.type === 'actions' ? b.elements : []))[0];
    if (button) {
      counts.delivered++;
      byTs.set(`${m.channel}:${m.ts}`, m);
      const d: Delivered = { chat: m.channel, messageId: m.ts, data: button.value, at: performance.now() };
      setImmediate(() => world.onDelivered(d));
    }
    return fake.messages;
  };
  fake.calls.push = (...calls: FakeCall[]) => {
    for (const c of calls) {
      if (c.method === 'chat.update') counts.finalized++;
      else if (c.method === 'chat.postEphemeral') counts.acks++;
    }
    return 0;
  };
  fake.ephemerals.push = () => 0;
  return world;
}

/** Discord: taps are INTERACTION_CREATE dispatches over the fake gateway. */
export async function discordWorld(runs: number): Promise<World> {
  const fake = await FakeDiscord.start();
  const channels: string[] = [];
  const users: P.ApiUser[] = [];
  for (let i = 0; i < runs; i++) {
    channels.push(fake.addTextChannel());
    users.push(P.user(P.snowflake(), `u${i}`));
  }
  const counts = { delivered: 0, finalized: 0, acks: 0, tapErrors: 0 };
  const world: World = {
    name: 'discord',
    onDelivered: noop,
    counts,
    childEnv: () => ({ BENCH_DISCORD_TOKEN: fake.token, BENCH_DISCORD_API: fake.apiUrl }),
    async attach(urls) {
      // Every replica would hold its own gateway session, and the fake dispatches to each.
      if (urls.length > 1) throw new Error('the Discord world takes one askgate replica');
    },
    target: (run) => ({ channel: 'discord', chat: channels[run]!, users: [users[run]!.id] }),
    async tap(d, run, sent) {
      sent(performance.now(), 0);
      fake.tap(d.messageId, d.data, users[run]!);
    },
    close: () => fake.close(),
  };
  const set = fake.messages.set.bind(fake.messages);
  fake.messages.set = (key: string, m: P.ApiMessage) => {
    set(key, m);
    const first = (m.components as { components?: { custom_id?: string }[] }[])[0]?.components?.[0]?.custom_id;
    if (m.author.id === fake.bot.id && first) {
      counts.delivered++;
      const d: Delivered = { chat: m.channel_id, messageId: m.id, data: first, at: performance.now() };
      setImmediate(() => world.onDelivered(d));
    }
    return fake.messages;
  };
  fake.calls.push = (...calls: DiscordCall[]) => {
    for (const c of calls) {
      if (c.method === 'PATCH' && c.path.startsWith('/channels/')) counts.finalized++;
      else if (c.path.startsWith('/interactions/')) counts.acks++;
    }
    return 0;
  };
  return world;
}

/** Builds the world of a channel for `runs` concurrent runs. */
export function worldFor(
  channel: ChannelName,
  runs: number,
  opts: { telegramMode?: 'webhook' | 'polling'; telegramSendIntervalMs?: number } = {},
): Promise<World> {
  if (channel === 'telegram') return telegramWorld(runs, opts.telegramMode, opts.telegramSendIntervalMs);
  if (channel === 'slack') return slackWorld(runs);
  return discordWorld(runs);
}
