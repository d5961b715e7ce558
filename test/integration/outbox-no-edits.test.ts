import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { assemble } from '../../src/app/assemble.js';
import { ALL_CAPABILITIES } from '../../src/core/capabilities.js';
import type { RunningAskgate } from '../../src/main.js';

// A channel that cannot edit a sent message (email, WhatsApp) declares `edits: false`: the shared
// outbox work then posts the outcome as a new message instead of editing the prompt, once.

describe('a channel that cannot edit gets its outcome as a new message', () => {
  let app: RunningAskgate;
  const channel = new RecordingChannel('noedit', { ...ALL_CAPABILITIES, edits: false });
  let api: ReturnType<typeof client>;
  const to = { channel: 'noedit', chat: 'room-1' };

  beforeAll(async () => {
    app = await startTestApp(testEnv(), [channel]);
    api = client(app.url);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('posts the outcome once, even when the finalize job runs again, and never edits', async () => {
    const { body: ask } = await api.post('/v1/asks', askBody('no-edits', { to }));
    await eventually(async () => (await api.get(`/v1/asks/${ask.id}`)).body.deliveries[0].status === 'sent');
    await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Staging'] }, by: 'carol' });
    const done = await eventually(async () => {
      const r = await api.get(`/v1/asks/${ask.id}`);
      return r.body.deliveries[0].finalized === 'done' && r.body;
    });
    const prompt = done.deliveries[0].message;
    const work = assemble(app.ports).work;
    await work.run({ kind: 'finalize', askId: ask.id, index: 0 });
    await work.run({ kind: 'finalize', askId: ask.id, index: 0 });

    const posts = channel.posted.filter((p) => p.ref.messageId === prompt.messageId);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.outcome.text).toMatch(/^Answered: Staging/);
    expect(posts[0]!.sent.messageId).not.toBe(prompt.messageId);
    expect(channel.finalized).toEqual([]);
  });

  it('a tally it cannot re-render is left as sent: no edit, and the outcome still arrives once', async () => {
    const body = askBody('no-edits-agree', {
      to: [to, { channel: 'noedit', chat: 'room-2' }],
      agree: 2,
    });
    const { body: ask, status } = await api.post('/v1/asks', body);
    expect(status).toBe(201);
    await eventually(async () =>
      (await api.get(`/v1/asks/${ask.id}`)).body.deliveries.every((d: { status: string }) => d.status === 'sent'),
    );
    await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Staging'] }, by: 'carol' });
    await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Staging'] }, by: 'dave' });
    const done = await eventually(async () => {
      const r = await api.get(`/v1/asks/${ask.id}`);
      return r.body.deliveries.every((d: { finalized: string }) => d.finalized === 'done') && r.body;
    });
    const ids = done.deliveries.map((d: { message: { messageId: string } }) => d.message.messageId);
    expect(channel.refreshed).toEqual([]);
    expect(channel.finalized).toEqual([]);
    expect(channel.posted.filter((p) => ids.includes(p.ref.messageId))).toHaveLength(2);
  });
});
