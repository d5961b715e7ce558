import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import type { RunningAskgate } from '../../src/main.js';

// Core names no platform: main.ts hands the channel registry's display names to the outbox work
// (outcome lines) and the inbound handler (notices). Two recording channels stand in for the platforms.
const slack = new RecordingChannel('slack');
const discord = new RecordingChannel('discord');
let app: RunningAskgate;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp(testEnv(), [slack, discord]);
  api = client(app.url);
});

afterAll(async () => {
  await app?.close();
});

describe('chat channels are named by the registry in outcome lines and notices', () => {
  it('an ask sent to Slack and Discord, answered in Slack, says so in both places', async () => {
    const to = [
      { channel: 'slack', chat: 'C1' },
      { channel: 'discord', chat: 'D1' },
    ];
    const { body: ask } = await api.post('/v1/asks', askBody('r-names', { to }));
    const [onSlack, onDiscord] = await eventually(async () => {
      const both = [slack, discord].map((c) => c.delivered.find((d) => d.askId === ask.id));
      return both.every(Boolean) ? both : undefined;
    });
    const bob = { channel: 'slack', userId: 'U2', username: 'bob' };
    const tap = { channel: 'slack', token: onSlack!.view.buttons![1]!.token, user: bob, chat: 'C1' };
    expect((await slack.sink!.button(tap)).kind).toBe('recorded');
    const carol = { channel: 'discord', userId: '333', username: 'carol' };
    const late = { channel: 'discord', token: onDiscord!.view.buttons![0]!.token, user: carol, chat: 'D1' };
    expect(await discord.sink!.button(late)).toMatchObject({
      summary: 'This question was already answered by @bob in Slack',
    });
    const final = await eventually(async () => discord.finalized.find((f) => f.outcome.text.startsWith('Answered')));
    expect(final.outcome.text).toBe('Answered in Slack by @bob: Production');
  });
});
