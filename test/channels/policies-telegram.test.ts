import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegramApi, type FakeUser } from '../fakes/telegram-api.js';
import { TelegramChannel } from '../../src/channels/telegram/telegram-channel.js';
import { ChannelError } from '../../src/core/ports.js';
import { buildPromptView, type PromptView } from '../../src/core/prompt-view.js';
import { reminderText } from '../../src/core/policy-view.js';
import type { MessageRef, Question, Responder } from '../../src/core/schemas.js';
import { askRecord, iso, T0 } from '../helpers/records.js';

const quiet = { info() {}, warn() {}, error() {} };
const approve: Question[] = [
  { id: 'go', question: 'Ship it?', multiSelect: false, options: [{ label: 'Approve' }, { label: 'Reject' }] },
];
const hostile: Responder = { channel: 'telegram', userId: '7', name: '<b>@everyone</b> *x*' };
let seq = 0;
/** The view of an ask that needs 2 matching answers, after `answered` people answered Approve. */
const agreeView = (answered: Responder[] = []): PromptView =>
  buildPromptView(
    askRecord(approve, {
      id: `TgPolicy${String(++seq).padStart(6, '0')}`,
      policy: { agree: 2 },
      responses: answered.map((by) => ({ answers: { go: ['Approve'] }, answeredBy: by, answeredAt: iso(T0) })),
    }),
  );
const keyboardOf = (fake: FakeTelegramApi, ref: MessageRef) => {
  const markup = fake.message(ref.chat, ref.messageId)!.reply_markup;
  return markup && 'inline_keyboard' in markup ? markup.inline_keyboard : [];
};

describe('Telegram: reminders and tallies', () => {
  let fake: FakeTelegramApi;
  let user: FakeUser;
  let channel: TelegramChannel;
  const deliver = async (view: PromptView, chat = String(user.id), thread?: string) =>
    channel.deliver({
      askId: view.askId,
      version: 1,
      target: { channel: 'telegram', chat, ...(thread ? { thread } : {}) },
      view,
    });

  beforeAll(async () => {
    fake = await FakeTelegramApi.start();
    user = fake.addUser(4242, 'Alice', { username: 'alice' });
    channel = new TelegramChannel({ token: fake.token, apiRoot: fake.url, logger: quiet, minSendIntervalMs: 0 });
  });
  afterAll(async () => fake?.close());

  it('shows the tally under the question as plain text (no parse_mode), before the instructions', async () => {
    const ref = await deliver(agreeView([hostile]));
    const sent = fake.message(ref.chat, ref.messageId)!;
    expect(sent.text).toBe(
      [
        'Ship it?',
        '',
        '1. Approve',
        '2. Reject',
        '',
        'Approve 1 — 2 matching answers needed',
        'Answered: <b>@everyone</b> *x*',
        '',
        'Open until Tue, Jan 1, 14:15 (UTC)',
        '',
        'Tap an option, or reply to this message with your own words. 2 matching answers are needed; you may change yours until then.',
      ].join('\n'),
    );
    expect(sent.parse_mode).toBeUndefined();
    // A deadline in 2030 is past the Bot API's 1098 days for a date_time entity: the line stays plain text.
    expect((sent.entities ?? []).some((e) => e.type === 'date_time')).toBe(false);
    expect(
      keyboardOf(fake, ref)
        .flat()
        .map((b) => b.text),
    ).toEqual(['Approve', 'Reject', 'Other…']);
  });

  it('posts a reminder as a reply to the question, in its forum topic, plain text', async () => {
    const group = fake.addGroup(-100123, 'Team');
    const ref = await deliver(agreeView(), String(group.id), '77');
    const text = reminderText({ expiresAt: iso(T0 + 600_000) }, T0);
    const sent = (await channel.remind(ref, text))!;
    const stored = fake.message(sent.chat, sent.messageId)!;
    expect(stored).toMatchObject({ text, reply_to: Number(ref.messageId), message_thread_id: 77 });
    expect(stored.entities).toBeUndefined();
    expect(sent).toEqual({ chat: String(group.id), messageId: String(stored.message_id), thread: '77' });
    expect(fake.callsOf('sendMessage').at(-1)!.params).toMatchObject({
      reply_parameters: { message_id: Number(ref.messageId) },
      link_preview_options: { is_disabled: true },
    });
    expect(fake.callsOf('sendMessage').at(-1)!.params.reply_parameters.allow_sending_without_reply).toBeUndefined();
  });

  it("asks stillWanted after waiting for the chat's send slot: an ask that ended during the wait posts nothing", async () => {
    const ref = await deliver(agreeView());
    const sends = fake.callsOf('sendMessage').length;
    let open = true;
    let askedAfterWait = false;
    // The delivery just used the chat's slot: the reminder waits for the next one, and the ask ends meanwhile.
    const reminder = channel.remind(ref, 'Reminder', async () => {
      askedAfterWait = !open;
      return open;
    });
    open = false;
    expect(await reminder).toBeNull();
    expect(askedAfterWait).toBe(true);
    expect(fake.callsOf('sendMessage')).toHaveLength(sends);
  });

  it('fails a reminder for a question that is gone (permanent), and one for a ref that is not a Telegram id', async () => {
    const gone = await channel.remind({ chat: String(user.id), messageId: '99999' }, 'Reminder').catch((e) => e);
    expect(gone).toBeInstanceOf(ChannelError);
    expect(gone).toMatchObject({ permanent: true, method: 'sendMessage' });
    const bad = await channel.remind({ chat: String(user.id), messageId: 'C1.23' }, 'Reminder').catch((e) => e);
    expect(bad).toMatchObject({ permanent: true });
  });

  it('refreshes the tally in place, keeping the keyboard; an unchanged tally is a success', async () => {
    const first = agreeView();
    const ref = await deliver(first);
    const before = keyboardOf(fake, ref);
    const bob: Responder = { channel: 'telegram', userId: '8', username: 'bob' };
    const next = { ...agreeView([bob]), askId: first.askId, buttons: first.buttons };
    await channel.refresh(ref, next);
    const edited = fake.message(ref.chat, ref.messageId)!;
    expect(edited.edits).toBe(1);
    expect(edited.text).toContain('Approve 1 — 2 matching answers needed\nAnswered: @bob');
    expect(keyboardOf(fake, ref)).toEqual(before);
    await channel.refresh(ref, next);
    expect(fake.callsOf('editMessageText').at(-1)).toMatchObject({ ok: false, error_code: 400 });
    expect(fake.message(ref.chat, ref.messageId)!.edits).toBe(1);
  });

  it('surfaces 429s of reminders and refreshes as retryable errors with retry_after, and paces the chat', async () => {
    const chat = fake.addUser(5151, 'Paced');
    const ref = await deliver(agreeView(), String(chat.id));
    fake.rateLimitNext('sendMessage', 7);
    const limited = await channel.remind(ref, 'Reminder').catch((e) => e);
    expect(limited).toBeInstanceOf(ChannelError);
    expect(limited).toMatchObject({ permanent: false, retryAfterMs: 7000 });
    // The chat stays closed until retry_after: the next call goes back to the outbox without calling Telegram.
    const calls = fake.calls.length;
    const paced = await channel.refresh(ref, agreeView()).catch((e) => e);
    expect(paced).toMatchObject({ permanent: false });
    expect((paced as ChannelError).retryAfterMs).toBeGreaterThan(5000);
    expect(fake.calls.length).toBe(calls);
    const other = fake.addUser(5252, 'Other');
    const ref2 = await deliver(agreeView(), String(other.id));
    fake.rateLimitNext('editMessageText', 3);
    expect(await channel.refresh(ref2, agreeView([hostile])).catch((e) => e)).toMatchObject({
      permanent: false,
      retryAfterMs: 3000,
    });
  });
});
