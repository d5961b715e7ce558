// Approvals drawn natively on Telegram (issue 36), end to end through real grammy against the fake
// Bot API: the question message (entities, code blocks, the short hash), Approve by tap, reasons and
// edits by force-reply (JSON or `key: value` lines, an invalid edit asked again), self-approval
// refused, two approvers with a short-circuiting rejection, outcome edits, a timeout's decision.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegramApi, type FakeUser, type StoredMessage } from '../fakes/telegram-api.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import {
  mockup,
  withoutDeadline,
  channelFor,
  deliveredRef,
  keyboardRows,
  memoryLogger,
  newUser,
  tapLabel,
  visible,
} from './telegram-world.js';
import type { MessageRef } from '../../src/core/schemas.js';
import type { RunningAskgate } from '../../src/main.js';

let redis: TestRedis;
let fake: FakeTelegramApi;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
const logger = memoryLogger();
let run = 0;
let nextGroup = -7100;

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeTelegramApi.start();
  app = await startTestApp(testEnv({ REDIS_URL: redis.url }), [channelFor(fake, logger)]);
  api = client(app.url);
});

afterAll(async () => {
  await app?.close();
  await fake?.close();
  await redis?.dispose();
});

const deploy = {
  action: 'deploy',
  arguments: { service: 'billing', version: '2.3.1', replicas: 3 },
  summary: 'Deploy billing 2.3.1',
  decisions: ['approve', 'reject', 'request_changes', 'edit'],
  argumentsSchema: {
    type: 'object',
    properties: { replicas: { type: 'integer', minimum: 1, maximum: 5 } },
    required: ['service', 'version', 'replicas'],
  },
};

async function ask(chat: number | string, extra: Record<string, unknown> = {}, approval: object = deploy) {
  const body = { runId: `tga-${++run}`, to: { channel: 'telegram', chat: String(chat) }, approval, ...extra };
  const created = await api.post('/v1/asks', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const hash = (created.body.approval.actionHash as string).slice(7, 15);
  return { id: created.body.id as string, ref: await deliveredRef(api, created.body.id), hash };
}
const get = async (id: string) => (await api.get(`/v1/asks/${id}`)).body;
const ended = (id: string) =>
  eventually(async () => {
    const got = await get(id);
    return got.status !== 'pending' && got.deliveries[0].finalized === 'done' ? got : undefined;
  });
/** The fenced text blocks of docs/forms-telegram.md (its Approvals section shows these renderings). */
const docBlocks = () =>
  [
    ...readFileSync(resolve(import.meta.dirname, '../../docs/forms-telegram.md'), 'utf8').matchAll(
      /```text\n([\s\S]*?)\n```/g,
    ),
  ].map((m) => m[1]!);
/** The text of an entity of `m`. */
const entityTexts = (m: StoredMessage, type: string) =>
  (m.entities ?? []).filter((e) => e.type === type).map((e) => m.text.slice(e.offset, e.offset + e.length));

/** Taps `label`, waits for the force-reply prompt and replies `text` to it; returns the prompt. */
async function replyThrough(ref: MessageRef, label: string, user: FakeUser, text: string): Promise<StoredMessage> {
  const before = fake.chatMessages(ref.chat).length;
  await tapLabel(fake, ref, label, user);
  const prompt = await eventually(async () =>
    fake
      .chatMessages(ref.chat)
      .slice(before)
      .find((m) => m.from.is_bot && m.reply_to === Number(ref.messageId)),
  );
  expect(prompt.reply_markup).toMatchObject({ force_reply: true });
  fake.say(ref.chat, text, user, prompt.message_id);
  return prompt;
}

describe('Telegram approvals: the question message', () => {
  it('shows summary, action, `key: value` lines and the hash with entities; four decisions and Skip', async () => {
    const alice = newUser(fake, 'Alice', 'alice_render');
    const { ref, hash } = await ask(alice.id);
    const { message } = visible(fake, ref);
    // The deadline paragraph (its own test: deadline-render.test.ts) sits above the instructions.
    expect(message.text).toMatch(/\n\nOpen until .+ \(UTC\)\n\nTap a button/);
    expect(withoutDeadline(message)).toBe(
      [
        'Deploy billing 2.3.1',
        'Action: deploy',
        'service: billing',
        'version: 2.3.1',
        'replicas: 3',
        `Hash #${hash}`,
        '',
        'Tap a button, or reply to this message with "approve", "reject: <why>" or "request changes: <what>".',
      ].join('\n'),
    );
    expect(entityTexts(message, 'bold')).toEqual(['Deploy billing 2.3.1']);
    expect(entityTexts(message, 'code')).toEqual(['deploy', `#${hash}`]);
    expect(fake.callsOf('sendMessage').some((c) => 'parse_mode' in c.params)).toBe(false);
    expect(keyboardRows(fake, ref)).toEqual([['Approve', 'Reject…'], ['Request changes…', 'Edit…'], ['Skip']]);
    expect(docBlocks()).toContain(mockup(fake, ref));
  });

  it('nested arguments and the preview are `pre` blocks; what does not fit is cut with "…" and the hash shows', async () => {
    const bob = newUser(fake, 'Bob', 'bob_render');
    const nested = {
      action: 'send_email',
      arguments: { to: ['finance@example.com'], body: { subject: 'Q3', lines: 'x'.repeat(3000) } },
      preview: `--- a/budget.csv\n+++ b/budget.csv\n${'+row\n'.repeat(2000)}`,
    };
    const { ref, hash, id } = await ask(bob.id, {}, nested);
    const { text, message } = visible(fake, ref);
    expect(text.length).toBeLessThanOrEqual(4096 - 300);
    const pre = (message.entities ?? []).filter((e) => e.type === 'pre');
    expect(pre).toHaveLength(2);
    expect(pre[0]).toMatchObject({ language: 'json' });
    const [args, preview] = entityTexts(message, 'pre');
    expect(args!.startsWith('{\n  "to": [\n    "finance@example.com"\n  ],')).toBe(true);
    expect(args!.endsWith('…')).toBe(true);
    expect(preview!.startsWith('--- a/budget.csv\n+++ b/budget.csv\n+row')).toBe(true);
    expect(preview!.endsWith('…')).toBe(true);
    expect(text).toContain('Preview:');
    expect(entityTexts(message, 'code')).toEqual(['send_email', `#${hash}`]);
    // The outcome edit keeps the whole body, hash included.
    await tapLabel(fake, ref, 'Approve', bob);
    await ended(id);
    const final = visible(fake, ref).text;
    expect(final).toContain(`Hash #${hash}`);
    expect(final.endsWith(`Approved by @bob_render (#${hash})`)).toBe(true);
  });
});

describe('Telegram approvals: decisions', () => {
  it('an Approve tap decides; the message shows who approved what', async () => {
    const alice = newUser(fake, 'Alice', 'alice_tap');
    const { id, ref, hash } = await ask(alice.id);
    await tapLabel(fake, ref, 'Approve', alice);
    const got = await ended(id);
    expect(got.result).toMatchObject({ status: 'answered', decision: 'approve', arguments: deploy.arguments });
    expect(got.result.effectiveHash).toBe(got.result.actionHash);
    expect((got.result.actionHash as string).slice(7, 15)).toBe(hash);
    expect(visible(fake, ref).text.endsWith(`Approved by @alice_tap (#${hash})`)).toBe(true);
    expect(visible(fake, ref).buttons).toEqual([]);
  });

  it('Reject… asks why by force-reply; the reply decides without the word, and the reason is never shown', async () => {
    const alice = newUser(fake, 'Alice', 'alice_reject');
    const { id, ref } = await ask(alice.id);
    const prompt = await replyThrough(ref, 'Reject…', alice, 'wrong quarter, use Q4');
    expect(prompt.text).toBe('Reject…\nReply to this message with why.');
    expect(docBlocks()).toContain(prompt.text);
    const got = await ended(id);
    expect(got.result).toMatchObject({ decision: 'reject', reason: 'wrong quarter, use Q4' });
    const final = visible(fake, ref).text;
    expect(final.endsWith('Rejected by @alice_reject')).toBe(true);
    expect(final).not.toContain('wrong quarter');
  });

  it('the prompt is in the person’s language (Portuguese), and their reply decides', async () => {
    const paula = fake.addUser(90_001, 'Paula', { username: 'paula_pt', language_code: 'pt-br' });
    const { id, ref } = await ask(paula.id);
    const prompt = await replyThrough(ref, 'Reject…', paula, 'trimestre errado');
    expect(prompt.text).toBe('Rejeitar…\nResponda a esta mensagem dizendo por quê.');
    expect(prompt.reply_markup).toMatchObject({ input_field_placeholder: 'Sua resposta' });
    const got = await ended(id);
    expect(got.result).toMatchObject({ decision: 'reject', reason: 'trimestre errado' });
  });

  it('Request changes… takes the reply as what to change', async () => {
    const alice = newUser(fake, 'Alice', 'alice_changes');
    const { id, ref } = await ask(alice.id);
    const prompt = await replyThrough(ref, 'Request changes…', alice, 'two replicas first');
    expect(prompt.text).toBe('Request changes…\nReply to this message with the changes you want.');
    const got = await ended(id);
    expect(got.result).toMatchObject({ decision: 'request_changes', reason: 'two replicas first' });
    expect(visible(fake, ref).text.endsWith('Changes requested by @alice_changes')).toBe(true);
  });

  it('Edit… takes the arguments as JSON; they run with their own hash', async () => {
    const alice = newUser(fake, 'Alice', 'alice_json');
    const { id, ref, hash } = await ask(alice.id);
    const edited = { service: 'billing', version: '2.3.2', replicas: 2 };
    await replyThrough(ref, 'Edit…', alice, JSON.stringify(edited, null, 2));
    const got = await ended(id);
    expect(got.result).toMatchObject({ decision: 'edit', arguments: edited });
    const effective = (got.result.effectiveHash as string).slice(7, 15);
    expect(effective).not.toBe(hash);
    expect(visible(fake, ref).text.endsWith(`Approved with changes by @alice_json (#${effective})`)).toBe(true);
  });

  it('Edit… takes `key: value` lines (values read as JSON when they parse, else as text)', async () => {
    const alice = newUser(fake, 'Alice', 'alice_lines');
    const { id, ref } = await ask(alice.id);
    await replyThrough(ref, 'Edit…', alice, 'service: billing\nversion: 2.4.0\nreplicas: 4');
    const got = await ended(id);
    expect(got.result).toMatchObject({
      decision: 'edit',
      arguments: { service: 'billing', version: '2.4.0', replicas: 4 },
    });
  });

  it('an invalid edit is asked again with what is wrong (nothing decided); the repaired one decides', async () => {
    const alice = newUser(fake, 'Alice', 'alice_repair');
    const { id, ref } = await ask(alice.id);
    const prompt = await replyThrough(ref, 'Edit…', alice, 'service: billing\nversion: 2.3.1\nreplicas: 9');
    const again = await eventually(async () =>
      fake.chatMessages(ref.chat).find((m) => m.from.is_bot && m.message_id > prompt.message_id + 1),
    );
    expect(again.text).toBe(
      [
        'Edit…',
        'does not match the schema: replicas must be <= 5.',
        'Reply to this message with the arguments to run: JSON, or one "key: value" line per argument.',
      ].join('\n'),
    );
    expect(again.reply_markup).toMatchObject({ force_reply: true });
    expect(docBlocks()).toContain(again.text);
    expect((await get(id)).status).toBe('pending');
    fake.say(ref.chat, 'this is not an edit', alice, again.message_id);
    const unread = await eventually(async () =>
      fake.chatMessages(ref.chat).find((m) => m.from.is_bot && m.message_id > again.message_id + 1),
    );
    expect(unread.text.split('\n')[1]).toBe('That could not be read as JSON or as "key: value" lines.');
    fake.say(ref.chat, '{"service": "billing", "version": "2.3.1", "replicas": 5}', alice, unread.message_id);
    const got = await ended(id);
    expect(got.result).toMatchObject({ decision: 'edit', arguments: { replicas: 5 } });
    // The refusals are noted in the history, never the text.
    const history = (await app.store.get(id))!.history;
    expect(history.filter((h) => h.type === 'reply_rejected' || h.type === 'hint_sent').length).toBeGreaterThan(0);
    expect(JSON.stringify(history)).not.toContain('this is not an edit');
  });

  it('the person who requested the action cannot approve it; someone else can', async () => {
    const chat = --nextGroup;
    fake.addGroup(chat, 'Ops');
    const alice = newUser(fake, 'Alice', 'alice_self');
    const bob = newUser(fake, 'Bob', 'bob_self');
    const requestedBy = { channel: 'telegram', userId: String(alice.id) };
    const { id, ref, hash } = await ask(chat, {}, { ...deploy, requestedBy });
    expect(await tapLabel(fake, ref, 'Approve', alice)).toBe('You requested this action: someone else must decide.');
    expect((await get(id)).status).toBe('pending');
    await tapLabel(fake, ref, 'Approve', bob);
    await ended(id);
    expect(visible(fake, ref).text.endsWith(`Approved by @bob_self (#${hash})`)).toBe(true);
  });

  it('agree 2: one approval is not enough; a rejection by the second person ends the ask at once', async () => {
    const chat = --nextGroup;
    fake.addGroup(chat, 'Ops');
    const alice = newUser(fake, 'Alice', 'alice_agree');
    const bob = newUser(fake, 'Bob', 'bob_agree');
    const { id, ref } = await ask(chat, { agree: 2 }, { ...deploy, decisions: ['approve', 'reject'] });
    expect(keyboardRows(fake, ref)).toEqual([['Approve', 'Reject…']]);
    await tapLabel(fake, ref, 'Approve', alice);
    await eventually(async () => ((await get(id)).responses?.length === 1 ? true : undefined));
    expect((await get(id)).status).toBe('pending');
    await replyThrough(ref, 'Reject…', bob, 'not during the freeze');
    const got = await ended(id);
    expect(got.result).toMatchObject({ status: 'answered', decision: 'reject', reason: 'not during the freeze' });
    expect(visible(fake, ref).text.endsWith('Rejected by @bob_agree')).toBe(true);
  });

  it('a timeout states its decision beside no_answer, and the message says it timed out', async () => {
    const alice = newUser(fake, 'Alice', 'alice_timeout');
    const { id, ref } = await ask(alice.id, { timeoutSeconds: 1, onTimeout: { decision: 'reject' } });
    const got = await ended(id);
    expect(got.result).toMatchObject({ status: 'no_answer', reason: 'timeout', decision: 'reject' });
    expect(visible(fake, ref).buttons).toEqual([]);
    expect(visible(fake, ref).text).not.toContain('Tap a button');
    expect(visible(fake, ref).text).toContain('Hash #');
  });
});
