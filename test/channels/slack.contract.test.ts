import { describe, expect, it } from 'vitest';
import { channelContract } from '../contracts/channel.contract.js';
import { SlackChannel } from '../../src/channels/slack/slack-channel.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { createLogger } from '../../src/logger.js';
import { FakeSlackApi, visibleMessage } from '../fakes/slack-api.js';
import { SlackInjector, serveRoutes } from '../fakes/slack-events.js';
import { until } from '../helpers/wait.js';

const SECRET = 'contract-signing-secret';
const logger = createLogger('silent');

channelContract('slack', async () => {
  const fake = await FakeSlackApi.start();
  const channel = new SlackChannel({ token: fake.token, signingSecret: SECRET, apiUrl: `${fake.url}/api/`, logger });
  const host = await serveRoutes(channel.routes());
  const inject = new SlackInjector(`${host.url}/slack/events`, SECRET, fake);
  return {
    channel,
    target: { channel: 'slack', chat: 'C0001' },
    forbiddenTarget: { channel: 'slack', chat: 'C0404' },
    userId: 'U0001',
    message: async (ref) => visibleMessage(fake.message(ref.chat, ref.messageId)!),
    tap: async (ref, data, userId) => {
      const before = fake.ephemeralsFor(userId).length;
      const response = await inject.postInteractive(
        inject.blockAction(fake.message(ref.chat, ref.messageId)!, data, userId),
      );
      expect(response.status).toBe(200);
      const notice = await until(() => fake.ephemeralsFor(userId)[before]);
      return notice.text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    },
    reply: async (ref, text, userId) => {
      const response = await inject.postEvent(
        inject.messageEvent({ channel: ref.chat, user: userId, text, threadTs: ref.messageId }),
      );
      expect(response.status).toBe(200);
    },
    rateLimitNextSend: (seconds) => fake.failNext('chat.postMessage', { status: 429, retryAfter: seconds }),
    close: async () => {
      await host.close();
      await fake.close();
    },
  };
});

describe('Slack channel without askgate', () => {
  it('finalizes from another instance (another replica, or after a restart) without reading the message back', async () => {
    const fake = await FakeSlackApi.start();
    try {
      const options = { token: fake.token, signingSecret: SECRET, apiUrl: `${fake.url}/api`, logger };
      const view = buildPromptView({
        id: 'ReplicaAsk000001',
        version: 1,
        questions: [
          {
            id: 'env',
            header: 'Env',
            question: 'Where?',
            multiSelect: false,
            options: [{ label: 'Staging' }, { label: 'Prod' }],
          },
        ],
      });
      const ref = await new SlackChannel(options).deliver({
        askId: view.askId,
        version: 1,
        target: { channel: 'slack', chat: 'C0001' },
        view,
      });
      await new SlackChannel(options).finalize(ref, { status: 'no_answer', text: 'Expired — no answer' }, view);
      const shown = visibleMessage(fake.message(ref.chat, ref.messageId)!);
      expect(shown.text).toContain('Where?');
      expect(shown.text).toContain('Expired — no answer');
      expect(shown.buttons).toEqual([]);
      expect(fake.callsOf('conversations.history')).toHaveLength(0);
    } finally {
      await fake.close();
    }
  });

  it('refuses a user id as the target, and maps errors: permanent codes, 5xx retried', async () => {
    const fake = await FakeSlackApi.start();
    try {
      const channel = new SlackChannel({
        token: fake.token,
        signingSecret: SECRET,
        apiUrl: `${fake.url}/api/`,
        logger,
      });
      const view = buildPromptView({
        id: 'ErrorsAsk0000001',
        version: 1,
        questions: [{ id: 'env', question: 'Where?', multiSelect: false, options: [{ label: 'A' }, { label: 'B' }] }],
      });
      const send = (chat: string) =>
        channel
          .deliver({ askId: view.askId, version: 1, target: { channel: 'slack', chat }, view })
          .catch((e: unknown) => e);
      expect(await send('U0123ABC')).toMatchObject({ permanent: true });
      for (const code of ['not_in_channel', 'is_archived', 'invalid_auth']) {
        fake.failNext('chat.postMessage', { error: code });
        expect(await send('C0001')).toMatchObject({ permanent: true, message: `chat.postMessage: ${code}` });
      }
      fake.failNext('chat.postMessage', { status: 503 });
      expect(await send('C0001')).toMatchObject({ permanent: false });
      fake.failNext('chat.postMessage', { error: 'internal_error' });
      expect(await send('C0001')).toMatchObject({ permanent: false });
    } finally {
      await fake.close();
    }
  });

  it('fails to start with a clear error when Slack rejects the bot token', async () => {
    const fake = await FakeSlackApi.start();
    try {
      const channel = new SlackChannel({
        token: 'xoxb-wrong',
        signingSecret: SECRET,
        apiUrl: `${fake.url}/api/`,
        logger,
      });
      const error = await channel.start({} as never).catch((e: unknown) => e as Error);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toBe('Slack rejected SLACK_BOT_TOKEN (auth.test: invalid_auth)');
      expect((error as Error).message).not.toContain('xoxb-wrong');
    } finally {
      await fake.close();
    }
  });
});

describe('Slack inbound timing and limits', () => {
  it('acks a tap at once while the store is slow, then tells the person; a failing event gets 500 so Slack retries', async () => {
    const fake = await FakeSlackApi.start();
    const channel = new SlackChannel({ token: fake.token, signingSecret: SECRET, apiUrl: `${fake.url}/api/`, logger });
    const host = await serveRoutes(channel.routes());
    try {
      let release!: () => void;
      const slow = new Promise<void>((r) => (release = r));
      await channel.start({
        button: async () => (await slow, { kind: 'recorded', summary: 'Answer recorded' }),
        text: async () => {
          throw new Error('store unavailable');
        },
        openForm: async () => ({ kind: 'ignored' }),
        submitForm: async () => ({ kind: 'ignored' }),
        bindFollowUp: async () => {},
      });
      const inject = new SlackInjector(`${host.url}/slack/events`, SECRET, fake);
      const view = buildPromptView({
        id: 'SlowStoreAsk0001',
        version: 1,
        questions: [{ id: 'env', question: 'Where?', multiSelect: false, options: [{ label: 'A' }, { label: 'B' }] }],
      });
      const ref = await channel.deliver({
        askId: view.askId,
        version: 1,
        target: { channel: 'slack', chat: 'C0001' },
        view,
      });
      const message = fake.message(ref.chat, ref.messageId)!;
      const started = Date.now();
      const tap = await inject.postInteractive(
        inject.blockAction(message, visibleMessage(message).buttons[0]!.data, 'U0009'),
      );
      expect(tap.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(fake.ephemeralsFor('U0009')).toEqual([]);
      release();
      await until(() => fake.ephemeralsFor('U0009')[0]);
      const event = await inject.postEvent(
        inject.messageEvent({ channel: 'C0001', user: 'U0009', text: 'A', threadTs: ref.messageId }),
      );
      expect(event.status).toBe(500);
    } finally {
      await channel.stop();
      await host.close();
      await fake.close();
    }
  });

  it('fits Slack limits without dropping an option: long escaped texts, 75-character buttons', async () => {
    const fake = await FakeSlackApi.start();
    try {
      const channel = new SlackChannel({
        token: fake.token,
        signingSecret: SECRET,
        apiUrl: `${fake.url}/api/`,
        logger,
      });
      const big = (id: string, multiSelect: boolean) => ({
        id,
        header: 'Header&Header',
        question: `${'&<>'.repeat(333)}?`,
        multiSelect,
        options: [1, 2, 3, 4].map((i) => ({ label: `${i}${'&'.repeat(99)}`, description: '<'.repeat(300) })),
      });
      for (const questions of [[big('one', false)], [big('a', false), big('b', true), big('c', false)]]) {
        const view = buildPromptView({ id: `BigAsk${questions.length}0000000`, version: 1, questions });
        const ref = await channel.deliver({
          askId: view.askId,
          version: 1,
          target: { channel: 'slack', chat: 'C0001' },
          view,
        });
        const stored = fake.message(ref.chat, ref.messageId)!;
        const sections = stored.blocks.filter((b: any) => b.type === 'section');
        expect(sections).toHaveLength(questions.length);
        for (const s of sections) {
          expect(s.text.text.length).toBeLessThanOrEqual(3000);
          for (const n of [1, 2, 3, 4]) expect(s.text.text).toContain(`\n${n}. ${n}&amp;`);
          expect(s.text.text).not.toMatch(/&[a-z]*…/);
        }
        for (const b of visibleMessage(stored).buttons) expect(b.label.length).toBeLessThanOrEqual(75);
        expect(stored.text.length).toBeLessThanOrEqual(3000);
      }
    } finally {
      await fake.close();
    }
  });
});
