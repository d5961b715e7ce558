// Fan-out with another channel: one ask to a Teams chat and a Telegram chat at once (askgate from
// TEAMS_* and TELEGRAM_* settings, both fakes, a real redis-server). Answered on one, the other's
// message shows the outcome too, and a late click there gets the honest notice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegramApi, type FakeUser } from '../fakes/telegram-api.js';
import { eventually } from '../helpers/http.js';
import { newUser, tapLabel, visible } from './telegram-world.js';
import {
  ALICE,
  DM,
  click,
  executeActions,
  installForAlice,
  resultOf,
  shownCard,
  startTeamsWorld,
  textsOf,
  type TeamsWorld,
} from './teams-world.js';
import type { MessageRef } from '../../src/core/schemas.js';
import { unescapeMarkdown } from '../../src/channels/teams/cards-text.js';

let w: TeamsWorld;
let tg: FakeTelegramApi;
beforeAll(async () => {
  tg = await FakeTelegramApi.start();
  w = await startTeamsWorld({ TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url });
  await installForAlice(w);
}, 30_000);
afterAll(async () => {
  await w?.close();
  await tg?.close();
});

/** Asks on Teams (Alice's chat) and Telegram (`user`'s chat) at once; waits until both are delivered. */
async function fanOut(user: FakeUser, labels: string[]) {
  const res = await w.api.post('/v1/asks', {
    runId: `run-${Math.random().toString(36).slice(2)}`,
    questions: [{ id: 'env', header: 'Deploy', question: 'Where?', options: labels.map((label) => ({ label })) }],
    to: [
      { channel: 'teams', chat: DM },
      { channel: 'telegram', chat: String(user.id) },
    ],
  });
  expect(res.status).toBe(201);
  const record = await eventually(async () => {
    const r = await w.api.get(`/v1/asks/${res.body.id}`);
    return r.body.deliveries.every((d: any) => d.status === 'sent') && r.body;
  });
  const [teams, telegram] = record.deliveries as { channel: string; message: MessageRef }[];
  expect([teams!.channel, telegram!.channel]).toEqual(['teams', 'telegram']);
  const card = w.fake.activities.get(teams!.message.messageId) ?? expect.fail('no card');
  return { id: res.body.id as string, card, tgRef: telegram!.message };
}

describe('Teams fan-out with Telegram', () => {
  it('answered on Teams: the Telegram message is finalized; a late tap there gets the honest notice', async () => {
    const bob = newUser(tg, 'Bob', 'bob_fanout_teams');
    const { id, card, tgRef } = await fanOut(bob, ['Staging', 'Production']);
    expect(visible(tg, tgRef).buttons.map((b) => b.label)).toEqual(expect.arrayContaining(['Staging', 'Production']));
    const buttonsBefore = visible(tg, tgRef).buttons;
    expect((await click(w, card, 'Production')).body.value).toMatch(/recorded/i);
    expect((await resultOf(w, id)).answers).toEqual({ env: ['Production'] });
    await eventually(async () => card.updates.length > 0 && visible(tg, tgRef).buttons.length === 0);
    expect(visible(tg, tgRef).text).toMatch(/Production/);
    expect(visible(tg, tgRef).text).toMatch(/Alice/);
    // Bob taps the old keyboard (a client that had not redrawn yet): told it is answered, nothing changes.
    const staging = buttonsBefore.find((b) => b.label === 'Staging')!;
    const toast = await tg.answerOf(tg.tap(tgRef.chat, tgRef.messageId, staging.data, bob), 4000);
    expect(toast?.text).toMatch(/already/i);
    expect((await resultOf(w, id)).answers).toEqual({ env: ['Production'] });
  });

  it('answered on Telegram: the Teams card is replaced in place; a late click on it gets the honest notice', async () => {
    const bob = newUser(tg, 'Bob', 'bob_fanout_telegram');
    const { id, card, tgRef } = await fanOut(bob, ['Staging', 'Production']);
    const asPosted = shownCard(card);
    expect(await tapLabel(tg, tgRef, 'Staging', bob)).toMatch(/recorded/i);
    expect((await resultOf(w, id)).answers).toEqual({ env: ['Staging'] });
    await eventually(async () => card.updates.length > 0);
    const outcome = unescapeMarkdown(textsOf(shownCard(card)).join('\n'));
    expect(outcome).toMatch(/Staging/);
    expect(outcome).toContain('Answered in Telegram by @bob_fanout_telegram');
    expect(executeActions(shownCard(card))).toEqual([]);
    const late = await click(w, card, 'Production', ALICE, {}, asPosted);
    expect(late.body).toMatchObject({ statusCode: 200, type: 'application/vnd.microsoft.activity.message' });
    expect(late.body.value).toMatch(/already/i);
    expect((await resultOf(w, id)).answers).toEqual({ env: ['Staging'] });
  });
});
