// Helpers of the Slack approval tests: an approval ask posted through the real askgate and bolt to
// the Slack fake, and what a person sees of it.
import { expect } from 'vitest';
import { visibleMessage, type FakeMessage } from '../fakes/slack-api.js';
import { eventually } from '../helpers/http.js';
import { CHAT, runId, type FormsWorld } from './slack-forms-world.js';

/** Alice, Bob and Carol: Slack user ids (the fake names them `@u0001`…). */
export const ALICE = 'U0001';
export const BOB = 'U0002';
export const CAROL = 'U0003';

/** A deploy with flat arguments, every decision offered, and a schema edits must satisfy. */
export const DEPLOY = {
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

/** An approval ask posted to the fake's channel; resolves once its message is there. */
export async function askApproval(
  w: FormsWorld,
  approval: object,
  extra: object = {},
): Promise<{ id: string; message: FakeMessage; hash: string }> {
  const res = await w.api.post('/v1/asks', {
    runId: runId('approval'),
    approval,
    to: { channel: 'slack', chat: CHAT },
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const sent = await eventually(async () => {
    const r = await w.api.get(`/v1/asks/${res.body.id}`);
    return r.body.deliveries[0].status === 'sent' && r.body.deliveries[0].message;
  });
  return {
    id: res.body.id,
    message: w.fake.message(sent.chat, sent.messageId)!,
    hash: (res.body.approval.actionHash as string).slice(7, 15),
  };
}

/** The message as it stands now in the fake. */
export const current = (w: FormsWorld, m: FakeMessage) => w.fake.message(m.channel, m.ts)!;
/** Its blocks by block_id. */
export const blockOf = (w: FormsWorld, m: FakeMessage, id: string): any =>
  current(w, m).blocks.find((b: any) => b.block_id === id);
/** What the person reads of it. */
export const shown = (w: FormsWorld, m: FakeMessage) => visibleMessage(current(w, m));
