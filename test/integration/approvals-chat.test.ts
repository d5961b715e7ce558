// Approvals (issue 36) in a chat, through a channel that declares no approval case: the approval is
// shown whole as the prompt's text with its hash, decision buttons decide (Approve) or say how to
// reply (Reject…, Request changes…, Edit…), replies in the person's language decide, the outcome
// names the decision, who made it and the hash of what runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { decodeToken } from '../../src/core/token.js';
import type { RunningAskgate } from '../../src/main.js';

const channel = new RecordingChannel('test');
let app: RunningAskgate;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp(testEnv(), [channel]);
  api = client(app.url);
});
afterAll(async () => {
  await app?.close();
});

const alice = { channel: 'test', userId: 'u1', name: 'Alice' };
const bob = { channel: 'test', userId: 'u2', name: 'Bob' };
const approval = {
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
let chats = 0;
const ask = async (extra: object = {}) => {
  const chat = `a${++chats}`;
  const res = await api.post('/v1/asks', {
    runId: `approve-${chat}`,
    to: { channel: 'test', chat },
    approval,
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const delivered = await eventually(async () => channel.delivered.find((d) => d.askId === res.body.id));
  return {
    id: res.body.id as string,
    chat,
    view: delivered.view,
    hash: (res.body.approval.actionHash as string).slice(7, 15),
  };
};
const reply = (chat: string, text: string, user = alice, locale?: string) =>
  channel.sink!.text({ channel: 'test', chat, privateChat: true, user, text, ...(locale ? { locale } : {}) });
const tap = (chat: string, token: string, user = alice) => channel.sink!.button({ channel: 'test', chat, token, user });
const record = async (id: string) => (await api.get(`/v1/asks/${id}`)).body;
const finalText = async (chat: string) =>
  (await eventually(async () => channel.finalized.find((f) => f.ref.chat === chat))).outcome.text;

describe('an approval in a chat', () => {
  it('shows the whole approval with its hash and one button per decision; Approve decides', async () => {
    const { id, chat, view, hash } = await ask();
    expect(view.questions).toHaveLength(1);
    expect(view.questions[0]!.question).toBe(
      [
        'Deploy billing 2.3.1',
        'Action: deploy',
        'service: billing',
        'version: 2.3.1',
        'replicas: 3',
        `Hash #${hash}`,
      ].join('\n'),
    );
    expect(view.approval).toMatchObject({ action: 'deploy', hash });
    expect(view.buttons!.map((b) => b.label)).toEqual(['Approve', 'Reject…', 'Request changes…', 'Edit…', 'Skip']);
    expect(view.buttons!.map((b) => decodeToken(b.token)!.choice)).toEqual([
      { kind: 'decide', decision: 'approve' },
      { kind: 'decide', decision: 'reject' },
      { kind: 'decide', decision: 'request_changes' },
      { kind: 'decide', decision: 'edit' },
      { kind: 'skip' },
    ]);
    const told = await tap(chat, view.buttons![0]!.token);
    expect(told.kind).toBe('recorded');
    expect((await record(id)).result).toMatchObject({ decision: 'approve', answeredBy: { userId: 'u1' } });
    expect(await finalText(chat)).toBe(`Approved by Alice (#${hash})`);
  });

  it('Reject… says how to reply; the reply with a reason decides, and the reason is never shown', async () => {
    const { id, chat, view } = await ask();
    const told = await tap(chat, view.buttons![1]!.token);
    expect(told).toMatchObject({ kind: 'need_text', prompt: 'Reply to the message with "reject:" and why.' });
    expect((await record(id)).status).toBe('pending');
    await reply(chat, 'reject: the change freeze starts tomorrow');
    expect((await record(id)).result).toMatchObject({
      decision: 'reject',
      reason: 'the change freeze starts tomorrow',
    });
    const text = await finalText(chat);
    expect(text).toBe('Rejected by Alice');
  });

  it('replies in the person’s language: "pedir alterações: …" requests changes', async () => {
    const { id, chat } = await ask({ locale: 'pt-BR' });
    await reply(chat, 'pedir alterações: use 2 réplicas', bob, 'pt-BR');
    expect((await record(id)).result).toMatchObject({ decision: 'request_changes', reason: 'use 2 réplicas' });
    expect(await finalText(chat)).toBe('Alterações pedidas por Bob');
  });

  it('an edit by reply is checked against the schema; a valid one runs with its own hash', async () => {
    const { id, chat, hash } = await ask();
    const bad = await reply(chat, 'edit: {"service": "billing", "version": "2.3.1", "replicas": 9}');
    expect(bad).toMatchObject({ kind: 'invalid' });
    expect('hint' in bad && bad.hint).toMatch(
      /^does not match the schema: replicas must be <= 5\. Send the edited arguments as JSON/,
    );
    const notJson = await reply(chat, 'edit: replicas=2');
    expect('hint' in notJson && notJson.hint).toMatch(/^Send the edited arguments as JSON/);
    expect((await record(id)).status).toBe('pending');
    await reply(chat, 'edit: {"service": "billing", "version": "2.3.1", "replicas": 2}');
    const { result } = await record(id);
    expect(result).toMatchObject({
      decision: 'edit',
      arguments: { service: 'billing', version: '2.3.1', replicas: 2 },
    });
    expect(result.effectiveHash).not.toBe(result.actionHash);
    expect(await finalText(chat)).toBe(`Approved with changes by Alice (#${result.effectiveHash.slice(7, 15)})`);
    expect(result.effectiveHash.slice(7, 15)).not.toBe(hash);
  });

  it('anything else is a hint (nothing decided), and the requester cannot approve their own action', async () => {
    const { id, chat, view } = await ask({ approval: { ...approval, requestedBy: { channel: 'test', userId: 'u1' } } });
    const told = await reply(chat, 'looks fine I guess');
    expect(told).toMatchObject({ kind: 'invalid' });
    const own = await tap(chat, view.buttons![0]!.token);
    expect(own.kind).toBe('invalid');
    expect('hint' in own ? own.hint : '').toBe('You requested this action: someone else must decide.');
    expect((await record(id)).status).toBe('pending');
    expect((await tap(chat, view.buttons![0]!.token, bob)).kind).toBe('recorded');
  });

  it('a timeout with a stated decision says so, and it is no answer', async () => {
    const { id, chat } = await ask({ timeoutSeconds: 1, onTimeout: { decision: 'reject' } });
    expect(await finalText(chat)).toBe('Expired with no decision: rejected, as the request stated for a timeout');
    expect((await record(id)).result).toMatchObject({ status: 'no_answer', reason: 'timeout', decision: 'reject' });
  });
});
