import { expect } from 'vitest';
import { SlackChannel } from '../../src/channels/slack/slack-channel.js';
import { createLogger } from '../../src/logger.js';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/wait.js';
import { FakeSlackApi, visibleMessage, type FakeMessage } from '../fakes/slack-api.js';
import { SlackInjector } from '../fakes/slack-events.js';
import type { FakeView } from '../fakes/slack-views.js';

/** The channel the forms tests post in. */
export const CHAT = 'C0001';

/** A real askgate (redis-server, HTTP-mode Slack channel through bolt) against the fake Slack, for the forms tests. */
export interface FormsWorld {
  redis: TestRedis;
  fake: FakeSlackApi;
  app: RunningAskgate;
  channel: SlackChannel;
  api: ReturnType<typeof client>;
  slack: SlackInjector;
  logLines: string[];
  /** Added to the fake's clock: a test moves it past a trigger_id's 3 s without waiting. */
  skew: { ms: number };
  close(): Promise<void>;
}

/** Starts the world; `secret` signs the requests, `env` adds settings (the answer page's). */
export async function startWorld(
  secret = 'forms-signing-secret',
  env: Record<string, string> = {},
): Promise<FormsWorld> {
  const logLines: string[] = [];
  const logger = createLogger('info', (line) => logLines.push(line));
  const skew = { ms: 0 };
  const redis = await startRedis();
  const fake = await FakeSlackApi.start({ now: () => Date.now() + skew.ms });
  const channel = new SlackChannel({ token: fake.token, signingSecret: secret, apiUrl: `${fake.url}/api/`, logger });
  const app = await startTestApp(testEnv({ REDIS_URL: redis.url, ...env }), [channel]);
  return {
    redis,
    fake,
    app,
    channel,
    api: client(app.url),
    slack: new SlackInjector(`${app.url}/slack/events`, secret, fake),
    logLines,
    skew,
    close: async () => {
      await app?.close();
      await fake?.close();
      await redis?.dispose();
    },
  };
}

let seq = 0;
/** A run id of its own for each ask. */
export const runId = (name: string) => `${name}-${++seq}`;

/** Creates an ask for Slack and waits until the fake holds its message. */
export async function ask(
  w: FormsWorld,
  name: string,
  questions: object[],
  to: object = {},
): Promise<{ id: string; message: FakeMessage }> {
  const res = await w.api.post('/v1/asks', {
    runId: runId(name),
    questions,
    to: { channel: 'slack', chat: CHAT, ...to },
  });
  expect(res.status).toBe(201);
  const sent = await eventually(async () => {
    const r = await w.api.get(`/v1/asks/${res.body.id}`);
    return r.body.deliveries[0].status === 'sent' && r.body.deliveries[0].message;
  });
  return { id: res.body.id, message: w.fake.message(sent.chat, sent.messageId)! };
}

/** The block_actions payload of the button labelled `label` on `message`, tapped by `user` (with a fresh trigger_id). */
export function tapPayload(w: FormsWorld, message: FakeMessage, label: string, user: string): object {
  const button = visibleMessage(w.fake.message(message.channel, message.ts)!).buttons.find((b) => b.label === label);
  if (!button) throw new Error(`no button ${label}`);
  return w.slack.blockAction(message, button.data, user);
}

/** Taps `label` (Answer, Other…) as `user` and waits for the modal Slack opened for them. */
export async function openModal(
  w: FormsWorld,
  message: FakeMessage,
  user: string,
  label = 'Answer',
): Promise<FakeView> {
  const before = w.fake.viewsFor(user).length;
  const res = await w.slack.postInteractive(tapPayload(w, message, label, user));
  expect(res.status).toBe(200);
  return until(() => w.fake.viewsFor(user)[before]);
}

/** The ask's record through the HTTP API. */
export const record = async (w: FormsWorld, id: string) => (await w.api.get(`/v1/asks/${id}`)).body;
/** The ask's result through the HTTP API, waiting up to 10 s for it. */
export const result = async (w: FormsWorld, id: string) => (await w.api.get(`/v1/asks/${id}?wait=10`)).body.result;
/** Ephemeral notices shown to `user`, decoded. */
export const noticesFor = (w: FormsWorld, user: string) =>
  w.fake.ephemeralsFor(user).map((e) => e.text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
/** Waits until `user` was shown a notice beyond the first `before`, and returns it. */
export const nextNotice = (w: FormsWorld, user: string, before: number) => until(() => noticesFor(w, user)[before]);

/** Waits until the ask's message was finalized, and returns it as a person sees it. */
export async function finalMessage(w: FormsWorld, id: string, message: FakeMessage) {
  await eventually(async () => (await record(w, id)).deliveries[0].finalized === 'done');
  return visibleMessage(w.fake.message(message.channel, message.ts)!);
}

/** A question `n` with three options, single choice or multi-select. */
export function question(n: number, multiSelect: boolean) {
  return {
    id: `q${n}`,
    header: `Part ${n}`,
    question: `Question ${n}: pick ${multiSelect ? 'any' : 'one'}?`,
    multiSelect,
    options: [{ label: `Alpha ${n}`, description: `first of ${n}` }, { label: `Beta ${n}` }, { label: `Gamma ${n}` }],
  };
}
