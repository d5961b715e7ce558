// The WhatsApp channel's test world: askgate started from its environment (WHATSAPP_* settings, so
// the descriptor builds the channel) against the Cloud API fake and a real redis-server.
import { expect } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startAskgate, type RunningAskgate } from '../../src/main.js';
import type { Channel } from '../../src/core/ports.js';
import { createLogger } from '../../src/logger.js';
import { WhatsAppChannel, type WhatsAppChannelOptions } from '../../src/channels/whatsapp/whatsapp-channel.js';
import { testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startFakeWhatsApp, type FakeWhatsApp, type SentMessage } from '../fakes/whatsapp-api.js';

export const TOKEN = 'EAAG-test-access-token';
export const PHONE_ID = '106540352242922';
export const APP_SECRET = 'app-secret-0123456789abcdef';
export const VERIFY_TOKEN = 'verify-token-0123456789';
/** The operator's approved template in the fake. */
export const TEMPLATE = 'askgate_question:en_US';
/** Alice's number: E.164 in targets, the wa_id (digits) in webhooks. */
export const ALICE = '+15551234567';
export const ALICE_WA = ALICE.slice(1);

/** A running askgate with the WhatsApp channel, the API fake and redis-server. */
export interface WhatsAppWorld {
  app: RunningAskgate;
  api: ReturnType<typeof client>;
  wa: FakeWhatsApp;
  webhook: string;
  close(): Promise<void>;
}

/**
 * Starts the world; `env` adds or removes settings (undefined removes); `others`: channels beside
 * WhatsApp (a recording channel for fan-out), WhatsApp then built from the same settings.
 */
export async function startWhatsAppWorld(
  env: Record<string, string | undefined> = {},
  others: Channel[] = [],
): Promise<WhatsAppWorld> {
  const redis: TestRedis = await startRedis();
  const wa = await startFakeWhatsApp({
    token: TOKEN,
    phoneNumberId: PHONE_ID,
    appSecret: APP_SECRET,
    templates: [TEMPLATE],
  });
  const config = loadConfig(
    testEnv({
      REDIS_URL: redis.url,
      WHATSAPP_ACCESS_TOKEN: TOKEN,
      WHATSAPP_PHONE_NUMBER_ID: PHONE_ID,
      WHATSAPP_APP_SECRET: APP_SECRET,
      WHATSAPP_VERIFY_TOKEN: VERIFY_TOKEN,
      WHATSAPP_API_ROOT: wa.apiRoot,
      ...env,
    }),
  );
  const settings = config.channels.whatsapp as Omit<WhatsAppChannelOptions, 'logger'>;
  const channels = [new WhatsAppChannel({ ...settings, logger: createLogger(config.logLevel) }), ...others];
  const app = await startAskgate(config, others.length > 0 ? { channels } : {});
  return {
    app,
    api: client(app.url),
    wa,
    webhook: `${app.url}/whatsapp/webhook`,
    async close() {
      await app.close();
      await wa.close();
      await redis.dispose();
    },
  };
}

/** Creates an ask for Alice's number and waits until its delivery settled (sent or failed). */
export async function askOnWhatsApp(
  w: WhatsAppWorld,
  body: Record<string, unknown>,
  chat = ALICE,
): Promise<{ id: string; record: any }> {
  const res = await w.api.post('/v1/asks', {
    runId: `run-${Math.random().toString(36).slice(2)}`,
    ...body,
    to: { channel: 'whatsapp', chat },
  });
  expect(res.status).toBe(201);
  const record = await eventually(async () => {
    const r = await w.api.get(`/v1/asks/${res.body.id}`);
    return r.body.deliveries[0].status !== 'pending' && r.body;
  });
  return { id: res.body.id, record };
}

/** Asks as {@link askOnWhatsApp} does and returns the prompt message the fake accepted for it (it must have one). */
export async function askWithPrompt(w: WhatsAppWorld, body: Record<string, unknown>) {
  const before = w.wa.sent.length;
  const asked = await askOnWhatsApp(w, body);
  const prompt = w.wa.sent.slice(before).find((m) => m.body.context === undefined) ?? expect.fail('no prompt sent');
  return { ...asked, prompt };
}

/** The ask's result, waiting up to 10 s for it. */
export const resultOf = async (w: WhatsAppWorld, id: string) => (await w.api.get(`/v1/asks/${id}?wait=10`)).body.result;

/** The message sent with `id`. */
export const sentWithId = (w: WhatsAppWorld, id: string): SentMessage =>
  w.wa.sent.find((m) => m.id === id) ?? expect.fail(`no message ${id}`);

/** Messages sent as replies to `id` (their `context.message_id`). */
export const repliesTo = (w: WhatsAppWorld, id: string) => w.wa.sent.filter((m) => m.body.context?.message_id === id);
