import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { visibleText } from '../../src/channels/discord/render.js';
import { ChannelError } from '../../src/core/ports.js';
import { buildPromptView, type PromptView } from '../../src/core/prompt-view.js';
import type { MessageRef, Question, Responder } from '../../src/core/schemas.js';
import { FakeDiscord } from '../fakes/discord-api.js';
import { askRecord, iso, T0 } from '../helpers/records.js';

const quiet = { info() {}, warn() {}, error() {} };
const approve: Question[] = [
  { id: 'go', question: 'Ship it?', multiSelect: false, options: [{ label: 'Approve' }, { label: 'Reject' }] },
];
const hostile: Responder = { channel: 'discord', userId: '1', name: '@everyone **bold** <@&123>' };
let seq = 0;
const agreeView = (answered: Responder[] = [], id = `DcPolicy${String(++seq).padStart(6, '0')}`): PromptView =>
  buildPromptView(
    askRecord(approve, {
      id,
      policy: { agree: 2 },
      responses: answered.map((by) => ({ answers: { go: ['Approve'] }, answeredBy: by, answeredAt: iso(T0) })),
    }),
  );

describe('Discord: reminders and tallies', () => {
  let fake: FakeDiscord;
  let chat: string;
  let channel: DiscordChannel;
  const deliver = (view: PromptView) =>
    channel.deliver({ askId: view.askId, version: 1, target: { channel: 'discord', chat }, view });
  const buttonsOf = (ref: MessageRef) =>
    (fake.messages.get(ref.messageId)!.components as { components: { label: string; custom_id: string }[] }[]).flatMap(
      (row) => row.components.map((b) => `${b.label}=${b.custom_id}`),
    );
  const lastCall = (method: string) => fake.calls.filter((c) => c.method === method).at(-1)!;

  beforeAll(async () => {
    fake = await FakeDiscord.start();
    chat = fake.addTextChannel();
    channel = new DiscordChannel({ token: fake.token, apiUrl: fake.apiUrl, logger: quiet });
  });
  afterAll(async () => {
    await channel?.stop();
    await fake?.close();
  });

  it('shows the tally between the question and the instructions, escaped, never pinging', async () => {
    const view = agreeView([hostile]);
    const ref = await deliver(view);
    const content = fake.messages.get(ref.messageId)!.content;
    const unix = view.deadline!.unix;
    expect(visibleText(content)).toBe(
      [
        'Ship it?',
        '1. Approve',
        '2. Reject',
        '',
        'Approve 1 — 2 matching answers needed',
        'Answered: @everyone **bold** <@&123>',
        '',
        `Open until <t:${unix}:f> (<t:${unix}:R>)`,
        '',
        '-# Tap an option, or reply to this message with your own words. 2 matching answers are needed; you may change yours until then.',
      ].join('\n'),
    );
    expect(content).toContain('\\*\\*bold\\*\\* \\<@&123>');
    expect(lastCall('POST').body).toMatchObject({ allowed_mentions: { parse: [] } });
    expect(buttonsOf(ref).map((b) => b.split('=')[0])).toEqual(['Approve', 'Reject', 'Other…']);
  });

  it('posts a reminder as a reply to the question, escaped, with mentions suppressed', async () => {
    const ref = await deliver(agreeView());
    const sent = (await channel.remind(ref, 'Reminder: @everyone <@&1> expires at 14:05 UTC.'))!;
    const stored = fake.messages.get(sent.messageId)!;
    expect(sent).toEqual({ chat, messageId: stored.id });
    expect(stored).toMatchObject({ channel_id: chat, message_reference: { message_id: ref.messageId } });
    expect(visibleText(stored.content)).toBe('Reminder: @everyone <@&1> expires at 14:05 UTC.');
    expect(lastCall('POST').body).toMatchObject({
      allowed_mentions: { parse: [] },
      message_reference: { message_id: ref.messageId, fail_if_not_exists: true },
    });
  });

  it('fails a reminder for a question that is gone (permanent, 50035)', async () => {
    const gone = await channel.remind({ chat, messageId: '123456789012345678' }, 'Reminder').catch((e) => e);
    expect(gone).toBeInstanceOf(ChannelError);
    expect(gone).toMatchObject({ permanent: true });
    expect(lastCall('POST').status).toBe(400);
  });

  it('refreshes the tally with the bot token, buttons kept', async () => {
    const id = `DcPolicy${String(++seq).padStart(6, '0')}`;
    const ref = await deliver(agreeView([], id));
    const before = buttonsOf(ref);
    await channel.refresh(ref, agreeView([{ channel: 'discord', userId: '2', username: 'bob' }], id));
    const edited = fake.messages.get(ref.messageId)!;
    expect(edited.edited_timestamp).toBeTruthy();
    expect(visibleText(edited.content)).toContain('Approve 1 — 2 matching answers needed\nAnswered: @bob');
    expect(buttonsOf(ref)).toEqual(before);
    expect(lastCall('PATCH').body).toMatchObject({ allowed_mentions: { parse: [] } });
  });

  it("surfaces 429s at once with Discord's retry_after, for reminders and refreshes", async () => {
    const ref = await deliver(agreeView());
    fake.rateLimitNext('POST', /^\/channels\/\d+\/messages$/, 3);
    const limited = await channel.remind(ref, 'Reminder').catch((e) => e);
    expect(limited).toBeInstanceOf(ChannelError);
    expect(limited).toMatchObject({ permanent: false, retryAfterMs: expect.any(Number) });
    expect((limited as ChannelError).retryAfterMs).toBeGreaterThan(2000);
    fake.rateLimitNext('PATCH', /^\/channels\/\d+\/messages\/\d+$/, 2);
    const edit = await channel.refresh(ref, agreeView()).catch((e) => e);
    expect(edit).toMatchObject({ permanent: false });
    expect((edit as ChannelError).retryAfterMs).toBeGreaterThan(1000);
  });
});
