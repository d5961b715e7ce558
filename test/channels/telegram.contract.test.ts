import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelContract, RecordingSink, type ChannelHarness } from '../contracts/channel.contract.js';
import { FakeTelegramApi, type FakeUser } from '../fakes/telegram-api.js';
import { TelegramChannel } from '../../src/channels/telegram/telegram-channel.js';
import { OWN_WORDS_PROMPT } from '../../src/channels/telegram/inbound.js';
import { ChannelError, type InboundOutcome, type Logger } from '../../src/core/ports.js';
import { buildPromptView, type PromptView } from '../../src/core/prompt-view.js';
import type { ChoiceQuestionRecord, MessageRef, Question } from '../../src/core/schemas.js';
import { eventually } from '../helpers/http.js';

/** A logger that keeps its lines, so tests can check that no token was logged. */
function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (level: string) => (obj: object, msg?: string) => void lines.push(JSON.stringify({ level, ...obj, msg }));
  return { lines, info: log('info'), warn: log('warn'), error: log('error') };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Harness over the fake: a user with a private chat; an unknown chat as the refused conversation. */
async function makeHarness(): Promise<ChannelHarness & { fake: FakeTelegramApi; user: FakeUser }> {
  const fake = await FakeTelegramApi.start();
  const user = fake.addUser(4242, 'Alice', { username: 'alice' });
  const users = new Map([[String(user.id), user]]);
  const channel = new TelegramChannel({
    token: fake.token,
    apiRoot: fake.url,
    logger: memoryLogger(),
    minSendIntervalMs: 0,
    pollTimeoutSeconds: 1,
  });
  return {
    fake,
    user,
    channel,
    target: { channel: 'telegram', chat: String(user.id) },
    forbiddenTarget: { channel: 'telegram', chat: '999999' },
    userId: String(user.id),
    async message(ref: MessageRef) {
      const m = fake.message(ref.chat, ref.messageId)!;
      const rows = m.reply_markup && 'inline_keyboard' in m.reply_markup ? m.reply_markup.inline_keyboard : [];
      return { text: m.text, buttons: rows.flat().map((b) => ({ label: b.text, data: b.callback_data ?? '' })) };
    },
    async tap(ref, data, userId) {
      const before = fake.chatMessages(ref.chat).length;
      const answer = await fake.answerOf(fake.tap(ref.chat, ref.messageId, data, users.get(userId)!));
      if (answer?.text) return answer.text;
      for (let i = 0; i < 300; i++) {
        const followUp = fake
          .chatMessages(ref.chat)
          .slice(before)
          .find((m) => m.from.is_bot);
        if (followUp) return followUp.text;
        await sleep(10);
      }
      return '';
    },
    async reply(ref, text, userId) {
      fake.say(ref.chat, text, users.get(userId)!, ref.messageId);
    },
    rateLimitNextSend: (seconds) => fake.rateLimitNext('sendMessage', seconds),
    close: () => fake.close(),
  };
}

channelContract('telegram', makeHarness);

const one: ChoiceQuestionRecord[] = [
  {
    id: 'env',
    header: 'Deploy',
    question: 'Where?',
    multiSelect: false,
    options: [{ label: 'Staging' }, { label: 'Production' }],
  },
];
let seq = 0;
const view = (questions: Question[]) =>
  buildPromptView({ id: `TgExtraAsk${String(++seq).padStart(4, '0')}`, version: 1, questions });

describe('Telegram channel specifics', () => {
  let h: Awaited<ReturnType<typeof makeHarness>>;
  const sink = new RecordingSink();
  const views = new Map<string, PromptView>();
  const deliver = async (questions: Question[] = one) => {
    const v = view(questions);
    const ref = await h.channel.deliver({ askId: v.askId, version: 1, target: h.target, view: v });
    views.set(ref.messageId, v);
    return ref;
  };

  beforeAll(async () => {
    h = await makeHarness();
    await h.channel.start(sink);
  });
  afterAll(async () => {
    await h?.channel.stop();
    await h?.close();
  });

  it('fails startup clearly on a bad token', async () => {
    const bad = new TelegramChannel({ token: '1:bad-token', apiRoot: h.fake.url, logger: memoryLogger() });
    await expect(bad.start(sink)).rejects.toThrow(/TELEGRAM_BOT_TOKEN is invalid/);
  });

  it('keeps the largest allowed prompt within 4096 characters and 64-byte buttons, with no parse_mode', async () => {
    const long = (n: number, c: string) => c.repeat(n);
    const questions: Question[] = [1, 2, 3].map((i) => ({
      id: `q${i}`,
      header: long(60, 'H'),
      question: long(1000, '❓'),
      multiSelect: i === 2,
      options: [1, 2, 3, 4].map((j) => ({ label: `${j}${long(99, 'é')}`, description: long(300, '🚀') })),
    }));
    const ref = await deliver(questions);
    const sent = h.fake.message(ref.chat, ref.messageId)!;
    expect(sent.text.length).toBeLessThanOrEqual(4096);
    for (let j = 1; j <= 4; j++) expect(sent.text).toContain(`${j}${long(99, 'é')}`);
    const ref1 = await deliver([{ ...one[0]!, options: [{ label: long(100, '🚀') }, { label: 'b' }] }]);
    const keyboard = h.fake.message(ref1.chat, ref1.messageId)!.reply_markup as {
      inline_keyboard: { callback_data: string }[][];
    };
    for (const b of keyboard.inline_keyboard.flat()) expect(Buffer.byteLength(b.callback_data)).toBeLessThanOrEqual(64);
    expect(h.fake.callsOf('sendMessage').every((c) => c.params.parse_mode === undefined)).toBe(true);
  });

  it('"Other…" sends a force-reply prompt as a reply to the question', async () => {
    const ref = await deliver();
    const other = (await h.message(ref)).buttons.find((b) => b.label === 'Other…')!;
    sink.buttonOutcome = { kind: 'need_text', askId: 'x', prompt: 'ignored' };
    expect(await h.tap(ref, other.data, h.userId)).toBe(OWN_WORDS_PROMPT);
    // The prompt follows the toast: wait for it rather than race it.
    const prompt = await eventually(async () =>
      h.fake.chatMessages(ref.chat).find((m) => m.from.is_bot && m.reply_to === Number(ref.messageId)),
    );
    expect(prompt).toMatchObject({
      text: OWN_WORDS_PROMPT,
      reply_to: Number(ref.messageId),
      reply_markup: { force_reply: true },
    });
  });

  it('answers a tap empty within the deadline when the core is slow, then reports the outcome in the chat', async () => {
    const slow = new (class extends RecordingSink {
      override async button(): Promise<InboundOutcome> {
        await sleep(2500);
        return { kind: 'already_resolved', summary: 'This question was already answered by @bob' };
      }
    })();
    const fake = await FakeTelegramApi.start({ callbackDeadlineMs: 2000 });
    const user = fake.addUser(5, 'Eve');
    const channel = new TelegramChannel({
      token: fake.token,
      apiRoot: fake.url,
      logger: memoryLogger(),
      minSendIntervalMs: 0,
      pollTimeoutSeconds: 1,
    });
    await channel.start(slow);
    try {
      const v = view(one);
      const ref = await channel.deliver({
        askId: v.askId,
        version: 1,
        target: { channel: 'telegram', chat: '5' },
        view: v,
      });
      const started = Date.now();
      const answer = await fake.answerOf(fake.tap(5, ref.messageId, v.buttons![0]!.token, user));
      expect(answer).toMatchObject({ text: '' });
      expect(answer!.at - started).toBeLessThan(2000);
      const reply = await (async () => {
        for (let i = 0; i < 400; i++) {
          const m = fake.chatMessages(5).find((x) => x.reply_to === Number(ref.messageId));
          if (m) return m;
          await sleep(10);
        }
      })();
      expect(reply?.text).toBe('This question was already answered by @bob');
    } finally {
      await channel.stop();
      await fake.close();
    }
  });

  it('logs a failed ack (query too old) instead of throwing, and keeps handling updates', async () => {
    const ref = await deliver();
    h.fake.failNext('answerCallbackQuery', {
      error_code: 400,
      description: 'Bad Request: query is too old and response timeout expired or query ID is invalid',
    });
    sink.buttonOutcome = { kind: 'recorded', summary: 'Answer recorded' };
    const first = h.fake.tap(ref.chat, ref.messageId, view(one).buttons![0]!.token, h.user);
    expect(await h.fake.answerOf(first, 600)).toBeNull();
    expect(await h.tap(ref, view(one).buttons![1]!.token, h.userId)).toBe('Answer recorded');
  });

  it('maps failures: 403 permanent, 5xx retryable, unknown message permanent, identical edit is success', async () => {
    h.fake.forbidNext('sendMessage');
    expect(await deliver().catch((e: ChannelError) => e)).toMatchObject({ permanent: true });
    h.fake.failNext('sendMessage', { error_code: 502, description: 'Bad Gateway' });
    expect(await deliver().catch((e: ChannelError) => e)).toMatchObject({ permanent: false });
    const missing = await h.channel
      .finalize(
        { chat: h.target.chat, messageId: '999999' },
        { status: 'no_answer', text: 'Expired — no answer' },
        view(one),
      )
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ChannelError);
    expect((missing as ChannelError).permanent).toBe(true);
    const ref = await deliver();
    await h.channel.finalize(ref, { status: 'no_answer', text: 'Cancelled' }, views.get(ref.messageId)!);
    await h.channel.finalize(ref, { status: 'no_answer', text: 'Cancelled' }, views.get(ref.messageId)!);
    expect(h.fake.callsOf('editMessageText').at(-1)).toMatchObject({
      ok: false,
      description: expect.stringMatching(/not modified/),
    });
  });

  it('paces sends per chat: a far slot goes back to the outbox as a retryable error', async () => {
    const paced = new TelegramChannel({
      token: h.fake.token,
      apiRoot: h.fake.url,
      logger: memoryLogger(),
      minSendIntervalMs: 5000,
    });
    const v = view(one);
    await paced.deliver({ askId: v.askId, version: 1, target: h.target, view: v });
    const error = await paced
      .deliver({ askId: v.askId, version: 1, target: h.target, view: v })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChannelError);
    expect(error).toMatchObject({ permanent: false, retryAfterMs: expect.any(Number) });
    expect((error as ChannelError).retryAfterMs).toBeGreaterThan(3000);
  });

  it('finalizes a message another process sent, from the view alone: question kept, instructions and keyboard gone', async () => {
    const ref = await deliver();
    const other = new TelegramChannel({
      token: h.fake.token,
      apiRoot: h.fake.url,
      logger: memoryLogger(),
      minSendIntervalMs: 0,
    });
    await other.finalize(ref, { status: 'no_answer', text: 'Expired — no answer' }, views.get(ref.messageId)!);
    const edited = h.fake.message(ref.chat, ref.messageId)!;
    expect(edited.reply_markup).toBeUndefined();
    expect(edited.text).toBe('Deploy\nWhere?\n\n1. Staging\n2. Production\n\nExpired — no answer');
    expect(edited.entities).toEqual([
      { type: 'bold', offset: 0, length: 6 },
      { type: 'bold', offset: edited.text.indexOf('Expired'), length: 19 },
    ]);
  });

  it('never logs the bot token', async () => {
    const logger = memoryLogger();
    const failing = new TelegramChannel({
      token: h.fake.token,
      apiRoot: 'http://127.0.0.1:1',
      logger,
      minSendIntervalMs: 0,
    });
    const v = view(one);
    await failing.deliver({ askId: v.askId, version: 1, target: h.target, view: v }).catch(() => {});
    await expect(failing.start(sink)).rejects.toThrow(/cannot reach/);
    expect(logger.lines.length).toBeGreaterThan(0);
    expect(logger.lines.join('\n')).not.toContain(h.fake.token.split(':')[1]);
  });
});

describe('fake Bot API (self-check)', () => {
  let fake: FakeTelegramApi;
  const call = async (method: string, params: object, token = fake.token) => {
    const r = await fetch(`${fake.url}/bot${token}/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(params),
    });
    return (await r.json()) as {
      ok: boolean;
      result?: any;
      error_code?: number;
      description?: string;
      parameters?: { retry_after?: number };
    };
  };
  beforeAll(async () => {
    fake = await FakeTelegramApi.start({ longPollCapMs: 400 });
  });
  afterAll(async () => fake?.close());

  it('getUpdates is a real long poll that honours offset', async () => {
    const u = fake.addUser(77, 'Poll');
    let started = Date.now();
    expect((await call('getUpdates', { timeout: 30 })).result).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    started = Date.now();
    const held = call('getUpdates', { timeout: 30 });
    setTimeout(() => fake.say(77, 'hi', u), 100);
    const [first] = (await held).result;
    expect(Date.now() - started).toBeLessThan(350);
    fake.say(77, 'again', u);
    expect((await call('getUpdates', { offset: first.update_id })).result).toHaveLength(2);
    expect((await call('getUpdates', { offset: first.update_id + 1 })).result.map((x: any) => x.message.text)).toEqual([
      'again',
    ]);
    expect((await call('getUpdates', { offset: first.update_id })).result).toHaveLength(1);
  });

  it('enforces the Bot API limits and injects faults', async () => {
    fake.addUser(78, 'Limits');
    expect(await call('getMe', {}, '1:nope')).toMatchObject({ ok: false, error_code: 401 });
    expect(await call('sendMessage', { chat_id: 78, text: 'x'.repeat(4097) })).toMatchObject({
      error_code: 400,
      description: expect.stringMatching(/too long/),
    });
    expect(
      await call('sendMessage', {
        chat_id: 78,
        text: 'x',
        reply_markup: { inline_keyboard: [[{ text: 'a', callback_data: 'é'.repeat(33) }]] },
      }),
    ).toMatchObject({ error_code: 400, description: expect.stringMatching(/BUTTON_DATA_INVALID/) });
    expect(await call('sendMessage', { chat_id: 12345, text: 'x' })).toMatchObject({
      error_code: 400,
      description: 'Bad Request: chat not found',
    });
    fake.rateLimitNext('sendMessage', 3);
    expect(await call('sendMessage', { chat_id: 78, text: 'x' })).toMatchObject({
      error_code: 429,
      parameters: { retry_after: 3 },
    });
    const sent = (await call('sendMessage', { chat_id: 78, text: 'x' })).result;
    expect(await call('editMessageText', { chat_id: 78, message_id: sent.message_id, text: 'x' })).toMatchObject({
      error_code: 400,
      description: expect.stringMatching(/not modified/),
    });
  });

  it('re-sends a webhook update whose answer failed, with the secret header', async () => {
    const { createServer } = await import('node:http');
    const seen: { secret: unknown; id: number }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ secret: req.headers['x-telegram-bot-api-secret-token'], id: JSON.parse(body).update_id });
        res.writeHead(seen.length === 1 ? 500 : 200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    expect(
      await call('setWebhook', { url: `http://127.0.0.1:${port}/hook`, secret_token: 'abc_DEF-123' }),
    ).toMatchObject({ ok: true });
    // Updates still queued for getUpdates move to the webhook too; the first POST fails, so it is re-sent.
    fake.say(78, 'hello', fake.addUser(78, 'Limits'));
    const last = fake.pushed.at(-1).update_id;
    for (let i = 0; i < 100 && !seen.some((s) => s.id === last); i++) await sleep(20);
    expect(seen[0]).toEqual(seen[1]);
    expect(seen.map((s) => s.secret)).toEqual(seen.map(() => 'abc_DEF-123'));
    expect(seen.filter((s) => s.id === last)).toHaveLength(1);
    expect(fake.webhookLog.slice(0, 2).map((l) => l.status)).toEqual([500, 200]);
    await call('deleteWebhook', {});
    await new Promise<void>((r) => server.close(() => r()));
  });
});
