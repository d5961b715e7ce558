import { describe, expect, it } from 'vitest';
import type { Update } from 'grammy/types';
import { receiveWebhook, type WebhookHost } from '../../src/channels/telegram/webhook.js';
import { UNGATED } from '../../src/channels/shared/take-event.js';
import { silentLogger } from '../helpers/logs.js';

const SECRET = 'webhook_secret-0123456789';
const request = (update: object) => ({
  headers: { 'x-telegram-bot-api-secret-token': SECRET },
  rawBody: Buffer.from(JSON.stringify(update)),
});

/** A host whose `run` is the test's: it gets the update's `reply` and says when the run is over. */
function host(run: (reply: (payload: string) => boolean) => Promise<void>): WebhookHost {
  return {
    secret: SECRET,
    logger: silentLogger,
    started: () => true,
    take: async () => UNGATED,
    run: (_update: Update, _gate, reply) => run(reply),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the webhook answer: one webhook reply at most, and a reply it could not carry is refused', () => {
  it('carries the first reply made while it is open; a second reply is refused', async () => {
    const results: boolean[] = [];
    const response = await receiveWebhook(
      request({ update_id: 1 }),
      host(async (reply) => {
        results.push(reply('{"method":"answerCallbackQuery","callback_query_id":"q1"}'));
        results.push(reply('{"method":"answerCallbackQuery","callback_query_id":"q1","text":"again"}'));
      }),
    );
    expect(response.body).toBe('{"method":"answerCallbackQuery","callback_query_id":"q1"}');
    expect(results).toEqual([true, false]);
  });

  it('a reply made after the run returned (the handler still working) is refused, not dropped in silence', async () => {
    let late: boolean | undefined;
    const response = await receiveWebhook(
      request({ update_id: 2 }),
      host(async (reply) => {
        // The bot's middleware returns early while the tap's work goes on, as TelegramChannel's does.
        void sleep(50).then(() => (late = reply('{"method":"answerCallbackQuery","callback_query_id":"q2"}')));
      }),
    );
    expect(response.body).toEqual({ ok: true });
    await sleep(100);
    expect(late).toBe(false);
  });
});
