// The app uninstalled from a chat or the bot removed from a team: the directory entry stays
// (listed, `removed: true` with the time, so operators see why), a delivery there fails at once
// with a clear reason, and installing the app again clears the mark.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { botAddedToTeam, botRemovedFromTeam, installed, message, uninstalled } from '../fakes/teams-connector.js';
import { ALICE, CHANNEL, askOnTeams, resultOf, startTeamsWorld, type TeamsWorld } from './teams-world.js';

const yesNo = { questions: [{ id: 'go', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }] };
const CHAT = 'a:1removal-chat-with-alice';
/** Another channel of the same team, learned from a message there. */
const OTHER = '19:0ther0123456789@thread.tacv2';

let w: TeamsWorld;
beforeAll(async () => {
  w = await startTeamsWorld();
}, 30_000);
afterAll(async () => {
  await w?.close();
});

const listed = async (id: string) =>
  ((await w.api.get('/v1/channels/teams/conversations')).body.conversations as any[]).find((c) => c.id === id);

describe('Teams: conversations the bot was removed from', () => {
  it('uninstalled from a chat: still listed as removed, a delivery fails permanently; installed again it works', async () => {
    expect((await w.fake.post(w.endpoint, installed(w.people, CHAT, 'personal'))).status).toBe(200);
    expect((await askOnTeams(w, yesNo, { chat: CHAT })).record.deliveries[0].status).toBe('sent');
    const before = Date.now();
    expect((await w.fake.post(w.endpoint, uninstalled(w.people, CHAT, 'personal'))).status).toBe(200);
    const entry = await listed(CHAT);
    expect(entry).toMatchObject({ id: CHAT, kind: 'personal', removed: true });
    expect(Date.parse(entry.removedAt)).toBeGreaterThanOrEqual(before - 1000);
    const { id, record, card } = await askOnTeams(w, yesNo, { chat: CHAT });
    expect(card).toBeUndefined();
    expect(record.deliveries[0].status).toBe('failed');
    expect(record.deliveries[0].error).toMatch(/removed from conversation .*install the app there again/);
    // Nothing else could reach anyone: the ask ends at once, undelivered.
    expect(await resultOf(w, id)).toMatchObject({ status: 'no_answer', reason: 'undelivered' });
    // Installed again: the mark goes, deliveries work.
    expect((await w.fake.post(w.endpoint, installed(w.people, CHAT, 'personal'))).status).toBe(200);
    expect((await listed(CHAT)).removed).toBeUndefined();
    expect((await askOnTeams(w, yesNo, { chat: CHAT })).record.deliveries[0].status).toBe('sent');
  });

  it('removed from a team: every channel of the team askgate learned is marked; other conversations are not', async () => {
    expect((await w.fake.post(w.endpoint, botAddedToTeam(w.people, CHANNEL))).status).toBe(200);
    const there = message(w.people, ALICE, OTHER, 'channel', 'hello');
    expect((await w.fake.post(w.endpoint, there)).status).toBe(200);
    expect(await listed(OTHER)).toMatchObject({ kind: 'channel', teamId: '19:team@thread.tacv2' });
    expect((await w.fake.post(w.endpoint, botRemovedFromTeam(w.people, CHANNEL))).status).toBe(200);
    expect(await listed(CHANNEL)).toMatchObject({ removed: true });
    expect(await listed(OTHER)).toMatchObject({ removed: true, name: 'Deploys' });
    expect((await listed(CHAT)).removed).toBeUndefined();
    const { record } = await askOnTeams(w, yesNo, { chat: OTHER });
    expect(record.deliveries[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/removed/) });
    // A member (not the bot) leaving the team changes nothing.
    expect((await w.fake.post(w.endpoint, botAddedToTeam(w.people, CHANNEL))).status).toBe(200);
    const left = { ...botRemovedFromTeam(w.people, CHANNEL), membersRemoved: [ALICE] };
    expect((await w.fake.post(w.endpoint, left)).status).toBe(200);
    expect((await listed(CHANNEL)).removed).toBeUndefined();
  });
});
