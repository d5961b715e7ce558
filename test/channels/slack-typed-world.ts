// Helpers of the typed-question tests on Slack (issue 35): asks with any request fields, the
// history, the first input of a modal. The world itself is the forms tests' (slack-forms-world.ts).
import { expect } from 'vitest';
import { eventually } from '../helpers/http.js';
import type { FakeMessage } from '../fakes/slack-api.js';
import type { FakeView } from '../fakes/slack-views.js';
import { CHAT, runId, type FormsWorld } from './slack-forms-world.js';

/** Creates an ask for Slack with `body`'s fields (questions, locale, timeZone, policy, onTimeout…) and waits for its message. */
export async function askWith(
  w: FormsWorld,
  name: string,
  body: Record<string, unknown>,
): Promise<{ id: string; message: FakeMessage }> {
  const res = await w.api.post('/v1/asks', {
    runId: runId(name.replace(/[^A-Za-z0-9_.-]+/g, '-')),
    to: { channel: 'slack', chat: CHAT },
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const sent = await eventually(async () => {
    const r = await w.api.get(`/v1/asks/${res.body.id}`);
    return r.body.deliveries[0].status === 'sent' && r.body.deliveries[0].message;
  });
  return { id: res.body.id, message: w.fake.message(sent.chat, sent.messageId)! };
}

/** An ask's history (GET /v1/asks/:id/events). */
export const historyOf = async (w: FormsWorld, id: string): Promise<any[]> =>
  (await w.api.get(`/v1/asks/${id}/events`)).body.events;

/** The input block `blockId` of an opened modal. */
export function inputOf(view: FakeView, blockId: string): any {
  const block = view.view.blocks.find((b: any) => b.block_id === blockId);
  if (!block) throw new Error(`the modal has no block ${blockId}`);
  return block;
}

/** The state `values` of a forged (or old client's) submission: one raw state entry per typed block. */
export const rawValues = (entries: Record<string, Record<string, unknown>>) => ({
  values: Object.fromEntries(Object.entries(entries).map(([block, v]) => [block, { askgate_value: v }])),
});
