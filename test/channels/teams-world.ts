// The Teams channel's test world: askgate started from its environment (TEAMS_* settings, so the
// descriptor builds the channel) against the Bot Framework / Entra / Bot Connector fake and a real
// redis-server; helpers to learn conversations, ask, and click cards.
import { expect } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startAskgate, type RunningAskgate } from '../../src/main.js';
import { testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import {
  cardAction,
  installed,
  person,
  startFakeTeams,
  type BotAnswer,
  type FakeTeams,
  type StoredActivity,
  type TeamsPeople,
} from '../fakes/teams-connector.js';

export const APP_ID = '8b1e4c52-1f0c-4c5e-9d43-3f4a2b6c7d10';
export const APP_PASSWORD = 'app-password-0123456789';
export const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
export const ALICE = person('Alice', '0f5c7a1e-3b2d-4c6e-8a9f-1b2c3d4e5f60');
export const BOB = person('Bob', '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d');
/** Alice's one-to-one chat with the bot: an id as Teams makes them (131 characters). */
export const DM =
  'a:1p0iicaJlVi-_KIYKDDvLi4c2pMZMc8B0bPauUJq9pZ6IHPzMOrXbWS4g7Wktn1hwl8J3FecCj4cn33DInsp7AGj8mSSb23S5cQJTjU_CXlYs-eph-CchluBdnSKVFm40';
/** An ask of one single-choice question, "Where should I deploy?", with these option labels. */
export const single = (labels: string[]) => ({
  questions: [
    { id: 'env', header: 'Deploy', question: 'Where should I deploy?', options: labels.map((label) => ({ label })) },
  ],
});

/** A team channel. */
export const CHANNEL = '19:c0ffee0123456789@thread.tacv2';

/** A running askgate with the Teams channel, the fake and redis-server. */
export interface TeamsWorld {
  app: RunningAskgate;
  /** askgate's settings, to start another replica on the same Redis. */
  config: ReturnType<typeof loadConfig>;
  api: ReturnType<typeof client>;
  fake: FakeTeams;
  people: TeamsPeople;
  /** askgate's messaging endpoint. */
  endpoint: string;
  /** The fault proxy askgate reaches Redis through, when asked for (a slow store). */
  proxy?: FaultProxy;
  close(): Promise<void>;
}

/** Starts the world; `env` adds or removes settings (undefined removes). */
export async function startTeamsWorld(
  env: Record<string, string | undefined> = {},
  options: { proxy?: boolean } = {},
): Promise<TeamsWorld> {
  const redis: TestRedis = await startRedis();
  const proxy = options.proxy ? await FaultProxy.start(redis.port) : undefined;
  const fake = await startFakeTeams({ appId: APP_ID, appPassword: APP_PASSWORD, tenantId: TENANT });
  const config = loadConfig(
    testEnv({
      REDIS_URL: proxy?.redisUrl ?? redis.url,
      ...fake.settings,
      ...env,
    }),
  );
  const app = await startAskgate(config);
  return {
    app,
    config,
    api: client(app.url),
    fake,
    people: { appId: APP_ID, tenantId: TENANT, serviceUrl: fake.serviceUrl },
    endpoint: `${app.url}/teams/messages`,
    ...(proxy ? { proxy } : {}),
    async close() {
      proxy?.heal();
      await app.close();
      await fake.close();
      await proxy?.close();
      await redis.dispose();
    },
  };
}

/** The app installed in Alice's chat: askgate learns the conversation. */
export async function installForAlice(w: TeamsWorld): Promise<void> {
  const r = await w.fake.post(w.endpoint, installed(w.people, DM, 'personal'));
  expect(r.status).toBe(200);
}

/** Creates an ask for `to` and waits until its delivery settled; returns the card activity askgate posted. */
export async function askOnTeams(
  w: TeamsWorld,
  body: Record<string, unknown>,
  to: Record<string, unknown> = { chat: DM },
): Promise<{ id: string; record: any; card: StoredActivity | undefined }> {
  const before = new Set(w.fake.activities.keys());
  const res = await w.api.post('/v1/asks', {
    runId: `run-${Math.random().toString(36).slice(2)}`,
    ...body,
    to: { channel: 'teams', ...to },
  });
  expect(res.status).toBe(201);
  const record = await eventually(async () => {
    const r = await w.api.get(`/v1/asks/${res.body.id}`);
    return r.body.deliveries[0].status !== 'pending' && r.body;
  });
  const messageId = record.deliveries[0].message?.messageId;
  const card = messageId ? w.fake.activities.get(messageId) : undefined;
  expect(before.has(messageId)).toBe(false);
  return { id: res.body.id, record, card };
}

/** Every Action.Execute of a card (its actions, its ShowCards', its body's), as drawn. */
export function executeActions(content: any): { title: string; verb: string; data: any }[] {
  const found: { title: string; verb: string; data: any }[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== 'object' || node === null) return;
    const n = node as Record<string, unknown>;
    if (n.type === 'Action.Execute' && n.verb !== 'refresh') found.push(n as any);
    for (const [key, value] of Object.entries(n)) if (key !== 'fallback' && key !== 'refresh') walk(value);
  };
  walk(content);
  return found;
}

/** The card's Action.Execute actions as posted. */
export const actionsOf = (card: StoredActivity | undefined) =>
  executeActions(card?.body.attachments?.[0]?.content ?? expect.fail('no card'));

/** The card as it shows now: its last update, else as posted. */
export const shownCard = (card: StoredActivity): any =>
  (card.updates.at(-1) ?? card.body).attachments?.[0]?.content ?? expect.fail('no card content');

/** Every TextBlock text of a card. */
export const textsOf = (content: any): string[] =>
  JSON.stringify(content)
    .match(/"text":"((?:[^"\\]|\\.)*)"/g)!
    .map((m) => JSON.parse(m.slice(7)) as string);

/** Where and how a click happens: the conversation, the person's language, the invoke's id, the card's inputs. */
export interface ClickWhere {
  chat?: string;
  kind?: 'personal' | 'channel' | 'groupChat';
  locale?: string;
  id?: string;
  /** The card's input values (Teams merges them into the action's data). */
  inputs?: Record<string, string>;
}

/** Sends an `adaptiveCard/action` invoke for `action` on `card` as `who`; returns askgate's answer and the invoke. */
export async function invoke(
  w: TeamsWorld,
  card: StoredActivity,
  action: { verb: string; data: any },
  who = ALICE,
  where: ClickWhere = {},
): Promise<BotAnswer & { invoke: any }> {
  const data = { ...action.data, ...where.inputs };
  const activity: any = cardAction(
    w.people,
    who,
    where.chat ?? DM,
    where.kind ?? 'personal',
    card.id,
    { verb: action.verb, data },
    {
      ...(where.locale ? { locale: where.locale } : {}),
    },
  );
  if (where.id) activity.id = where.id;
  return { ...(await w.fake.post(w.endpoint, activity)), invoke: activity };
}

/** Clicks the action titled `title` on the card as it shows now (or `content`), as `who`. */
export async function click(
  w: TeamsWorld,
  card: StoredActivity,
  title: string,
  who = ALICE,
  where: ClickWhere = {},
  content: any = shownCard(card),
): Promise<BotAnswer & { invoke: any }> {
  const action = executeActions(content).find((a) => a.title === title) ?? expect.fail(`no action ${title}`);
  return invoke(w, card, action, who, where);
}

/** Teams asking for `who`'s view of the card (its `refresh` action). */
export const refresh = (w: TeamsWorld, card: StoredActivity, who = ALICE, where: ClickWhere = {}) =>
  invoke(w, card, shownCard(card).refresh.action, who, where);

/** The ask's result once it ended. */
export const resultOf = async (w: TeamsWorld, id: string) => (await w.api.get(`/v1/asks/${id}?wait=10`)).body.result;
