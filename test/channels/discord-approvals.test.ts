// Approvals drawn natively on Discord (issue 36), end to end: askgate on a private redis-server,
// the real discord.js against the Discord fake. The message shows the summary, the action, the
// arguments, the preview and the hash; Approve decides; Reject…, Request changes… and Edit… open
// modals whose submissions are checked like the API's decisions.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { FakeDiscord, type FakeInteraction } from '../fakes/discord-api.js';
import { modalText, type ModalValues } from '../fakes/discord-modals.js';
import { user, type ApiMessage } from '../fakes/discord-payloads.js';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { visibleText } from '../../src/channels/discord/render.js';
import type { RunningAskgate } from '../../src/main.js';

const quiet = { info() {}, warn() {}, error() {} };
const alice = user('311111111111111111', 'alice', 'Alice A.');
const bob = user('322222222222222222', 'bob', null);

let redis: TestRedis;
let fake: FakeDiscord;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let chat: string;
let run = 0;

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeDiscord.start();
  chat = fake.addTextChannel();
  const channel = new DiscordChannel({ token: fake.token, apiUrl: fake.apiUrl, logger: quiet });
  app = await startTestApp(testEnv({ REDIS_URL: redis.url }), [channel]);
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

/** Creates an approval ask in the channel; its message and short hash. */
async function ask(extra: object = {}, approval: object = deploy) {
  const res = await api.post('/v1/asks', {
    runId: `ap-${++run}`,
    to: { channel: 'discord', chat },
    approval,
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const messageId = await eventually(
    async () => (await api.get(`/v1/asks/${res.body.id}`)).body.deliveries[0].message?.messageId as string | undefined,
  );
  return {
    id: res.body.id as string,
    msg: fake.messages.get(messageId)!,
    hash: res.body.approval.actionHash.slice(7, 15),
  };
}

/** docs/forms-discord.md: its Approvals section shows what these tests draw. */
const DOC = readFileSync(new URL('../../docs/forms-discord.md', import.meta.url), 'utf8');

const result = async (id: string) => (await api.get(`/v1/asks/${id}?wait=5`)).body.result;
const status = async (id: string) => (await api.get(`/v1/asks/${id}`)).body.status as string;
type Button = { label: string; custom_id: string; style: number };
const buttons = (m: { components: unknown[] }) =>
  (m.components as { components: Button[] }[]).flatMap((r) => r.components);
const button = (m: ApiMessage, label: string) => buttons(m).find((b) => b.label === label)!.custom_id;

/** Taps `label` as `who` and waits for the modal Discord shows. */
async function openModal(msg: ApiMessage, label: string, who = alice): Promise<FakeInteraction> {
  const tap = fake.tap(msg.id, button(msg, label), who);
  await eventually(async () => tap.ackType !== undefined);
  expect(tap.ackType).toBe(9);
  return tap;
}

/** Submits `opened`'s modal; the ephemeral notice and the follow-up (with its buttons). */
async function submit(opened: FakeInteraction, values: ModalValues) {
  const sent = fake.submitModal(opened, values);
  await eventually(async () => sent.followUps.length > 0);
  expect(sent.ackType).toBe(6);
  expect(sent.followUps[0]!.flags).toBe(64);
  return { notice: visibleText(sent.followUps[0]!.content), followUp: sent.followUps[0]! };
}

/** The message once its buttons are gone (the outcome edit). */
const finalized = (msg: ApiMessage) =>
  eventually(async () => {
    const m = fake.messages.get(msg.id)!;
    return m.components.length === 0 && m.edited_timestamp ? m : undefined;
  });

describe('approvals on Discord (discord.js ↔ fake Discord, askgate on a private redis-server)', () => {
  it('draws the summary, the action, the arguments as lines and the hash; Approve is green, Reject… red', async () => {
    const { msg, hash } = await ask();
    expect(visibleText(msg.content).split('\n\n')[0]).toBe(
      [
        '**Deploy billing 2.3.1**',
        'Action: deploy',
        'service: billing',
        'version: 2.3.1',
        'replicas: 3',
        `Hash #${hash}`,
      ].join('\n'),
    );
    expect(msg.content).toMatch(/\n\n-# .+/);
    // The docs' mockup leaves out the deadline line (its time is the run's own; deadline-render.test.ts).
    const shown = visibleText(msg.content).replace(/\n\nOpen until <t:\d+:f> \(<t:\d+:R>\)(?=\n)/, '');
    expect(visibleText(msg.content)).not.toBe(shown);
    expect(DOC).toContain(`${shown}\n[Approve] [Reject…] [Request changes…] [Edit…] [Skip]`);
    expect(buttons(msg).map((b) => [b.label, b.style])).toEqual([
      ['Approve', 3],
      ['Reject…', 4],
      ['Request changes…', 2],
      ['Edit…', 2],
      ['Skip', 2],
    ]);
  });

  it('nested arguments and the preview go in code blocks; what does not fit is cut with "…", the hash stays', async () => {
    const nested = { ...deploy, arguments: { to: ['a@example.com'], meta: { a: 1 } }, argumentsSchema: undefined };
    const diff = '--- a/budget.csv\n+++ b/budget.csv\n@@ -1 +1 @@\n-10\n+12';
    const { msg, hash } = await ask({}, { ...nested, preview: diff });
    const json = JSON.stringify(nested.arguments, null, 2);
    expect(msg.content).toContain(`\`\`\`json\n${json}\n\`\`\``);
    expect(msg.content).toContain(`Preview:\n\`\`\`\n${diff}\n\`\`\``);
    expect(msg.content).toContain(`Hash #${hash}`);
    const huge = {
      ...deploy,
      arguments: { body: 'x'.repeat(5000) },
      preview: 'y'.repeat(5000),
      argumentsSchema: undefined,
    };
    const cut = await ask({}, huge);
    expect(cut.msg.content.length).toBeLessThanOrEqual(2000);
    expect(cut.msg.content).toMatch(/body: x+\n…\n/);
    expect(cut.msg.content).toMatch(/```\ny+\n…\n```/);
    expect(cut.msg.content).toContain(`Hash #${cut.hash}`);
  });

  it('Approve decides; the outcome names the person and the hash; the approval stays shown', async () => {
    const { id, msg, hash } = await ask();
    fake.tap(msg.id, button(msg, 'Approve'), alice);
    expect(await result(id)).toMatchObject({ status: 'answered', decision: 'approve' });
    const done = await finalized(msg);
    expect(visibleText(done.content)).toContain('replicas: 3');
    expect(visibleText(done.content)).toMatch(new RegExp(`\\*\\*Approved by .*alice.* \\(#${hash}\\)\\*\\*$`));
  });

  it('Reject… opens a required reason; an empty one is refused, a reason decides and is never shown', async () => {
    const { id, msg } = await ask();
    const opened = await openModal(msg, 'Reject…');
    expect(modalText(opened.modal!)).toMatch(
      /^╔ Reject\n║ Why\? \*\n║ {3}deploy #[0-9a-f]{8}\n║ {3}\[ paragraph, up to 4000 characters \]/,
    );
    expect(DOC).toContain(modalText(opened.modal!));
    expect(() => fake.submitModal(opened, { r: '' })).toThrow(/required/);
    // A forged blank reason (the client would not send it): nothing is decided, the form re-opens.
    const forged = fake.rawModalSubmit(
      msg.id,
      opened.modal!.custom_id,
      [{ type: 18, id: 1, component: { type: 4, id: 2, custom_id: 'r', value: '   ' } }],
      alice,
    );
    await eventually(async () => forged.followUps.length > 0);
    expect(visibleText(forged.followUps[0]!.content)).toBe(
      'Say why: the reason cannot be empty. Tap Reject… to try again.',
    );
    expect(await status(id)).toBe('pending');
    const again = await openModal(msg, 'Reject…');
    const { notice } = await submit(again, { r: 'the change freeze starts tomorrow' });
    expect(notice).toBeTruthy();
    expect(await result(id)).toMatchObject({ decision: 'reject', reason: 'the change freeze starts tomorrow' });
    const done = await finalized(msg);
    expect(visibleText(done.content)).toMatch(/\*\*Rejected by .*alice.*\*\*$/);
    expect(done.content).not.toContain('freeze');
  });

  it('Request changes… takes what should change', async () => {
    const { id, msg } = await ask();
    const opened = await openModal(msg, 'Request changes…', bob);
    expect(modalText(opened.modal!)).toContain('What should change? *');
    await submit(opened, { r: 'use 2 replicas' });
    expect(await result(id)).toMatchObject({ decision: 'request_changes', reason: 'use 2 replicas' });
    expect(visibleText((await finalized(msg)).content)).toMatch(/\*\*Changes requested by .*bob.*\*\*$/);
  });

  it('Edit… has a field per flat argument, checked against the schema; the refused form re-opens with what was typed', async () => {
    const { id, msg, hash } = await ask();
    const opened = await openModal(msg, 'Edit…');
    expect(modalText(opened.modal!)).toBe(
      [
        '╔ Edit',
        '║ service',
        `║   deploy #${hash}`,
        '║   [ one line, up to 4000 characters: billing ]',
        '║',
        '║ version',
        '║   [ one line, up to 4000 characters: 2.3.1 ]',
        '║',
        '║ replicas',
        '║   [ one line, up to 4000 characters: 3 ]',
        '║',
        '╚ [Cancel]  [Submit]',
      ].join('\n'),
    );
    expect(DOC).toContain(modalText(opened.modal!));
    const bad = await submit(opened, { 'aj:replicas': '9' });
    expect(bad.notice).toBe('Does not match the schema: replicas must be <= 5. Tap Edit… to try again.');
    expect(DOC).toContain(`${bad.notice}\n[Edit…]`);
    expect(await status(id)).toBe('pending');
    // The notice's button re-opens the form with the 9 typed.
    const retry = fake.tap(bad.followUp.messageId, buttons(bad.followUp)[0]!.custom_id, alice);
    await eventually(async () => retry.modal);
    expect(modalText(retry.modal!)).toContain('up to 4000 characters: 9 ]');
    await submit(retry, { 'aj:replicas': '2' });
    const decided = await result(id);
    expect(decided).toMatchObject({
      decision: 'edit',
      arguments: { service: 'billing', version: '2.3.1', replicas: 2 },
    });
    expect(decided.effectiveHash).not.toBe(decided.actionHash);
    const short = decided.effectiveHash.slice(7, 15);
    expect(visibleText((await finalized(msg)).content)).toMatch(
      new RegExp(`\\*\\*Approved with changes by .*alice.* \\(#${short}\\)\\*\\*$`),
    );
  });

  it('Edit… of nested arguments is one JSON field; text that is not JSON is refused', async () => {
    const nested = { ...deploy, arguments: { to: ['a@example.com'], meta: { a: 1 } }, argumentsSchema: undefined };
    const { id, msg } = await ask({}, nested);
    const opened = await openModal(msg, 'Edit…');
    expect(modalText(opened.modal!)).toContain('║ The arguments, as JSON *');
    const bad = await submit(opened, { j: '{to: nope' });
    expect(bad.notice).toMatch(/^The arguments must be a JSON object.* Tap Edit… to try again\.$/);
    const retry = await openModal(msg, 'Edit…');
    await submit(retry, { j: '{"to": ["b@example.com"], "meta": {"a": 2}}' });
    expect(await result(id)).toMatchObject({ decision: 'edit', arguments: { to: ['b@example.com'], meta: { a: 2 } } });
  });

  it('more flat arguments than a modal holds fields: one JSON field, with their types', async () => {
    const six = { a: 'x', b: 2, c: true, d: null, e: '2', f: 'y' };
    const { id, msg } = await ask({}, { ...deploy, arguments: six, argumentsSchema: undefined });
    const opened = await openModal(msg, 'Edit…');
    expect(opened.modal!.components).toHaveLength(1);
    // "2" shows as 2 on the message: the short hash tells it is the string, so the form keeps it one.
    expect(JSON.parse(opened.modal!.components[0].component.value)).toEqual(six);
    await submit(opened, { j: JSON.stringify({ ...six, b: 3 }) });
    expect(await result(id)).toMatchObject({ decision: 'edit', arguments: { ...six, b: 3 } });
  });

  it('a field per argument keeps each value its type: "42" stays a string, 42 a number', async () => {
    const args = { ticket: '42', count: 42 };
    const { id, msg } = await ask({}, { ...deploy, arguments: args, argumentsSchema: undefined });
    const opened = await openModal(msg, 'Edit…');
    const ids = opened.modal!.components.map((c: { component: { custom_id: string } }) => c.component.custom_id);
    expect(ids).toEqual(['as:ticket', 'aj:count']);
    await submit(opened, {});
    const decided = await result(id);
    expect(decided).toMatchObject({ decision: 'edit', arguments: args });
    expect(decided.effectiveHash).toBe(decided.actionHash);
  });

  it('a decision button of an ask that ended opens no modal: the person is told it ended', async () => {
    const { id, msg } = await ask();
    const reject = button(msg, 'Reject…');
    fake.tap(msg.id, button(msg, 'Approve'), bob);
    expect(await result(id)).toMatchObject({ decision: 'approve' });
    const late = fake.tap(msg.id, reject, alice);
    await eventually(async () => late.ackType !== undefined);
    expect(late.ackType).toBe(4);
    expect(late.modal).toBeUndefined();
    expect(await status(id)).toBe('answered');
  });

  it('the person who requested the action cannot approve it', async () => {
    const { id, msg } = await ask({}, { ...deploy, requestedBy: { channel: 'discord', userId: alice.id } });
    const own = fake.tap(msg.id, button(msg, 'Approve'), alice);
    await eventually(async () => own.followUps.length > 0);
    expect(visibleText(own.followUps[0]!.content)).toBe('You requested this action: someone else must decide.');
    expect(await status(id)).toBe('pending');
    fake.tap(msg.id, button(msg, 'Approve'), bob);
    expect(await result(id)).toMatchObject({ decision: 'approve', answeredBy: { userId: bob.id } });
  });

  it('agree 2: one approval is counted, a rejection by the next person ends it at once', async () => {
    const { id, msg } = await ask({ agree: 2 }, { ...deploy, decisions: ['approve', 'reject', 'request_changes'] });
    expect(buttons(msg).map((b) => b.label)).toEqual(['Approve', 'Reject…', 'Request changes…']);
    const first = fake.tap(msg.id, button(msg, 'Approve'), alice);
    await eventually(async () => first.followUps.length > 0);
    expect(await status(id)).toBe('pending');
    const shown = await eventually(async () => {
      const m = fake.messages.get(msg.id)!;
      return m.edited_timestamp ? m : undefined;
    });
    const opened = await openModal(shown, 'Reject…', bob);
    await submit(opened, { r: 'not this week' });
    expect(await result(id)).toMatchObject({ decision: 'reject', reason: 'not this week' });
    expect(visibleText((await finalized(msg)).content)).toMatch(/Rejected by .*bob/);
  });

  it('a timeout states its decision beside no_answer; the message shows it expired', async () => {
    const { id, msg, hash } = await ask({ timeoutSeconds: 1, onTimeout: { decision: 'reject' } });
    expect(await eventually(async () => ((await status(id)) === 'pending' ? undefined : status(id)))).not.toBe(
      'pending',
    );
    expect((await api.get(`/v1/asks/${id}`)).body.result).toMatchObject({
      status: 'no_answer',
      reason: 'timeout',
      decision: 'reject',
    });
    const done = await finalized(msg);
    expect(visibleText(done.content)).toContain(`Hash #${hash}`);
  });
});
