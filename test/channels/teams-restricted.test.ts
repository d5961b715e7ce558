// Cards for target `users` stay theirs: a tally redraw (agree: 2) keeps the card read-only with
// `refresh.userIds` naming them, and a replica that never delivered the card (a second askgate on
// the same Redis) still gives someone else a read-only copy on a refresh, from the ask itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAskgate, type RunningAskgate } from '../../src/main.js';
import { eventually } from '../helpers/http.js';
import { botAddedToTeam, person } from '../fakes/teams-connector.js';
import {
  ALICE,
  BOB,
  CHANNEL,
  askOnTeams,
  click,
  executeActions,
  refresh,
  shownCard,
  startTeamsWorld,
  type TeamsWorld,
} from './teams-world.js';

const CAROL = person('Carol', '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a');
const yesNo = {
  questions: [{ id: 'go', header: 'Go', question: 'Ship it?', options: [{ label: 'Yes' }, { label: 'No' }] }],
};

let w: TeamsWorld;
let replica: RunningAskgate | undefined;
beforeAll(async () => {
  w = await startTeamsWorld();
  expect((await w.fake.post(w.endpoint, botAddedToTeam(w.people, CHANNEL))).status).toBe(200);
}, 30_000);
afterAll(async () => {
  await replica?.close();
  await w?.close();
});

const inChannel = { chat: CHANNEL, kind: 'channel' as const };

describe('Teams: cards for target users stay theirs', () => {
  it('a tally redraw keeps the card read-only with refresh.userIds; another replica answers a refresh read-only', async () => {
    const users = [ALICE.aadObjectId, CAROL.aadObjectId];
    const { id, card } = await askOnTeams(w, { ...yesNo, agree: 2 }, { chat: CHANNEL, users });
    expect(shownCard(card!).refresh.userIds).toEqual(users);
    const live = (await refresh(w, card!, ALICE, inChannel)).body.value;
    expect((await click(w, card!, 'Yes', ALICE, inChannel, live)).body.value).toMatch(/recorded|1 of 2|more/i);
    // The tally redraw: still not live for everyone.
    await eventually(async () => card!.updates.length > 0);
    const redrawn = shownCard(card!);
    expect(redrawn.refresh.userIds).toEqual(users);
    expect(executeActions(redrawn)).toEqual([]);
    // A second replica, which delivered nothing: Bob's refresh gets the read-only card, Carol's the live one.
    replica = await startAskgate(w.config);
    const there = { ...w, endpoint: `${replica.url}/teams/messages` };
    const bob = await refresh(there, card!, BOB, inChannel);
    expect(bob.body.type).toBe('application/vnd.microsoft.card.adaptive');
    expect(executeActions(bob.body.value)).toEqual([]);
    expect(JSON.stringify(bob.body.value)).toContain('Ship it?');
    const carol = await refresh(there, card!, CAROL, inChannel);
    expect(executeActions(carol.body.value).map((a) => a.title)).toContain('Yes');
    expect((await w.api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
  });
});
