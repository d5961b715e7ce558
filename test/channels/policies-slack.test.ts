import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackChannel } from '../../src/channels/slack/slack-channel.js';
import { ChannelError } from '../../src/core/ports.js';
import { buildPromptView, type PromptView } from '../../src/core/prompt-view.js';
import type { Question, Responder } from '../../src/core/schemas.js';
import { createLogger } from '../../src/logger.js';
import { FakeSlackApi, visibleMessage } from '../fakes/slack-api.js';
import { askRecord, iso, T0 } from '../helpers/records.js';

const logger = createLogger('silent');
const approve: Question[] = [
  { id: 'go', question: 'Ship it?', multiSelect: false, options: [{ label: 'Approve' }, { label: 'Reject' }] },
];
const hostile: Responder = { channel: 'slack', userId: 'U9', name: '<!channel> <@U1> & <https://x|y>' };
let seq = 0;
const agreeView = (answered: Responder[] = [], id = `SlPolicy${String(++seq).padStart(6, '0')}`): PromptView =>
  buildPromptView(
    askRecord(approve, {
      id,
      policy: { agree: 2 },
      responses: answered.map((by) => ({ answers: { go: ['Reject'] }, answeredBy: by, answeredAt: iso(T0) })),
    }),
  );

describe('Slack: reminders and tallies', () => {
  let fake: FakeSlackApi;
  let channel: SlackChannel;
  const deliver = (view: PromptView, thread?: string) =>
    channel.deliver({
      askId: view.askId,
      version: 1,
      target: { channel: 'slack', chat: 'C0001', ...(thread ? { thread } : {}) },
      view,
    });

  beforeAll(async () => {
    fake = await FakeSlackApi.start();
    channel = new SlackChannel({ token: fake.token, signingSecret: 'secret', apiUrl: `${fake.url}/api/`, logger });
  });
  afterAll(async () => fake?.close());

  it('shows the tally in its own context block, mrkdwn escaped, and says how many must agree', async () => {
    const ref = await deliver(agreeView([hostile]));
    const stored = fake.message(ref.chat, ref.messageId)!;
    const tally = stored.blocks.find((b: any) => b.block_id === 'askgate_tally');
    expect(tally.elements.map((e: any) => e.text)).toEqual([
      'Reject 1 — 2 matching answers needed',
      'Answered: &lt;!channel&gt; &lt;@U1&gt; &amp; &lt;https://x|y&gt;',
    ]);
    expect(JSON.stringify(stored.blocks)).not.toMatch(/<!channel>|<@U1>/);
    const shown = visibleMessage(stored);
    expect(shown.text).toContain('in this thread with your own words. 2 matching answers are needed');
    expect(shown.buttons.map((b) => b.label)).toEqual(['Approve', 'Reject', 'Other…']);
  });

  it('posts a reminder in the question thread, escaped, without unfurling', async () => {
    const ref = await deliver(agreeView());
    const sent = (await channel.remind(ref, 'Reminder: <!here> & co'))!;
    const stored = fake.message(sent.chat, sent.messageId)!;
    expect(stored).toMatchObject({ thread_ts: ref.messageId, text: 'Reminder: &lt;!here&gt; &amp; co', blocks: [] });
    expect(sent).toEqual({ chat: 'C0001', messageId: stored.ts, thread: ref.messageId });
    expect(fake.callsOf('chat.postMessage').at(-1)!.params).toMatchObject({
      unfurl_links: 'false',
      unfurl_media: 'false',
    });
  });

  it('keeps a reminder for a question posted in a thread in that thread', async () => {
    const root = await deliver(agreeView());
    const ref = await deliver(agreeView(), root.messageId);
    const sent = (await channel.remind(ref, 'Reminder'))!;
    expect(fake.message(sent.chat, sent.messageId)!.thread_ts).toBe(root.messageId);
  });

  it('refreshes the tally through chat.update, buttons kept', async () => {
    const id = `SlPolicy${String(++seq).padStart(6, '0')}`;
    const ref = await deliver(agreeView([], id));
    const before = visibleMessage(fake.message(ref.chat, ref.messageId)!).buttons;
    await channel.refresh(ref, agreeView([{ channel: 'slack', userId: 'U3', username: 'bob' }], id));
    const stored = fake.message(ref.chat, ref.messageId)!;
    expect(stored.edits).toBe(1);
    expect(visibleMessage(stored).text).toContain('Reject 1 — 2 matching answers needed\nAnswered: @bob');
    expect(visibleMessage(stored).buttons).toEqual(before);
  });

  it("surfaces 429s with Slack's Retry-After, and refusals as permanent", async () => {
    const ref = await deliver(agreeView());
    fake.failNext('chat.postMessage', { status: 429, retryAfter: 4 });
    const limited = await channel.remind(ref, 'Reminder').catch((e) => e);
    expect(limited).toBeInstanceOf(ChannelError);
    expect(limited).toMatchObject({ permanent: false, retryAfterMs: 4000, method: 'chat.postMessage' });
    fake.failNext('chat.update', { status: 429, retryAfter: 2 });
    expect(await channel.refresh(ref, agreeView()).catch((e) => e)).toMatchObject({
      permanent: false,
      retryAfterMs: 2000,
      method: 'chat.update',
    });
    expect(await channel.refresh({ chat: 'C0001', messageId: '1.000' }, agreeView()).catch((e) => e)).toMatchObject({
      permanent: true,
      message: 'chat.update: message_not_found',
    });
    expect(await channel.remind({ chat: 'C0404', messageId: ref.messageId }, 'Reminder').catch((e) => e)).toMatchObject(
      { permanent: true },
    );
  });
});
