// Microsoft Teams end to end: askgate started from TEAMS_* settings against the Bot Framework /
// Entra / Bot Connector fake and a real redis-server. Conversations learned from signed activities,
// cards delivered and clicked through signed invokes, outcomes in place, re-sent invokes acting once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/http.js';
import { sleep } from '../helpers/wait.js';
import { botAddedToTeam, cardAction, installed, message } from '../fakes/teams-connector.js';
import {
  ALICE,
  BOB,
  CHANNEL,
  DM,
  TENANT,
  askOnTeams,
  click,
  executeActions,
  refresh,
  installForAlice,
  resultOf,
  shownCard,
  single,
  startTeamsWorld,
  textsOf,
  type TeamsWorld,
} from './teams-world.js';

let w: TeamsWorld;
beforeAll(async () => {
  w = await startTeamsWorld();
}, 30_000);
afterAll(async () => {
  await w?.close();
});

const conversations = async () => (await w.api.get('/v1/channels/teams/conversations')).body.conversations as any[];

describe('Teams: only authenticated activities are processed', () => {
  it('forged, unsigned, expired, wrongly addressed or mismatched activities get 401 and nothing is learned', async () => {
    const activity = installed(w.people, 'a:never-learned', 'personal');
    const refusals = await Promise.all([
      w.fake.post(w.endpoint, activity, { key: 'forged' }),
      w.fake.post(w.endpoint, activity, { key: 'unknown-kid' }),
      w.fake.post(w.endpoint, activity, { authorization: null }),
      w.fake.post(w.endpoint, activity, { expiresIn: -900 }),
      w.fake.post(w.endpoint, activity, { iss: 'https://evil.example.com' }),
      w.fake.post(w.endpoint, activity, { aud: '11111111-2222-3333-4444-555555555555' }),
      // A token for another service URL: the activity's serviceUrl is not the one the token vouches for.
      w.fake.post(w.endpoint, activity, { serviceurl: 'https://smba.trafficmanager.net/emea/' }),
    ]);
    expect(refusals.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 401, 401]);
    expect((await conversations()).map((c) => c.id)).not.toContain('a:never-learned');
  });

  it('an authenticated request whose body is not an activity is a 400 and nothing is learned', async () => {
    const post = async (body: string) => {
      const r = await fetch(w.endpoint, {
        method: 'POST',
        headers: { authorization: `Bearer ${await w.fake.token()}`, 'content-type': 'application/json' },
        body,
      });
      return { status: r.status, body: (await r.json()) as { error: string } };
    };
    expect(await post('{"type": "message", ')).toEqual({ status: 400, body: { error: 'invalid_json' } });
    expect(await post(JSON.stringify({ type: 'message', text: 'no conversation, no service URL' }))).toEqual({
      status: 400,
      body: { error: 'invalid_activity' },
    });
    const noConversation = { ...installed(w.people, 'a:half-an-activity', 'personal'), conversation: 'a string' };
    expect(await post(JSON.stringify(noConversation))).toEqual({ status: 400, body: { error: 'invalid_activity' } });
    expect((await conversations()).map((c) => c.id)).not.toContain('a:half-an-activity');
  });

  it('a service URL off the allow-list or another tenant is refused (403) and not learned', async () => {
    const evil = 'https://evil.example.com/teams/';
    const off = { ...installed(w.people, 'a:evil-host', 'personal'), serviceUrl: evil };
    expect((await w.fake.post(w.endpoint, off, { serviceurl: evil })).status).toBe(403);
    const other = installed({ ...w.people, tenantId: '00000000-0000-0000-0000-000000000001' }, 'a:other', 'personal');
    expect((await w.fake.post(w.endpoint, other)).status).toBe(403);
    const webchat = { ...installed(w.people, 'a:webchat', 'personal'), channelId: 'webchat' };
    expect((await w.fake.post(w.endpoint, webchat)).status).toBe(403);
    const { channelData: _, ...noTenant } = installed(w.people, 'a:no-tenant', 'personal');
    expect((await w.fake.post(w.endpoint, { ...noTenant, conversation: { id: 'a:no-tenant' } })).status).toBe(403);
    const ids = (await conversations()).map((c) => c.id);
    expect(ids).not.toContain('a:evil-host');
    for (const id of ['a:other', 'a:webchat', 'a:no-tenant']) expect(ids).not.toContain(id);
  });

  it('an ask to a conversation askgate never learned fails at once, saying to install the bot', async () => {
    const { record } = await askOnTeams(w, single(['A', 'B']), { chat: 'a:unknown-conversation' });
    expect(record.deliveries[0].status).toBe('failed');
    expect(record.deliveries[0].error).toMatch(/install the app/);
  });
});

describe('Teams end to end (the Bot Connector fake, redis-server)', () => {
  beforeAll(async () => {
    await installForAlice(w);
    expect((await w.fake.post(w.endpoint, botAddedToTeam(w.people, CHANNEL))).status).toBe(200);
  });

  it('lists the learned conversations for the operator', async () => {
    const listed = await conversations();
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: DM,
          kind: 'personal',
          tenantId: TENANT,
          serviceUrl: w.fake.serviceUrl.replace(/\/$/, ''),
        }),
        expect.objectContaining({ id: CHANNEL, kind: 'channel', name: 'Deploys', teamName: 'Platform' }),
      ]),
    );
  });

  it('a card is delivered; a tap answers; the card is replaced in place; a re-sent invoke acts once; a late click gets the notice', async () => {
    const { id, record, card } = await askOnTeams(w, single(['Staging', 'Production']));
    expect(record.deliveries[0].status).toBe('sent');
    expect(card!.conversationId).toBe(DM);
    expect(textsOf(shownCard(card!))).toContain('Where should I deploy?');
    const tap = await click(w, card!, 'Production');
    expect(tap.status).toBe(200);
    expect(tap.body).toMatchObject({ statusCode: 200, type: 'application/vnd.microsoft.activity.message' });
    expect(tap.body.value).toMatch(/recorded/i);
    const result = await resultOf(w, id);
    expect(result.status).toBe('answered');
    expect(result.answers).toEqual({ env: ['Production'] });
    expect(result.answeredBy).toMatchObject({ channel: 'teams', userId: ALICE.aadObjectId, name: 'Alice' });
    await eventually(async () => card!.updates.length > 0);
    const outcome = textsOf(shownCard(card!)).join('\n');
    expect(outcome).toMatch(/Production/);
    expect(outcome).toMatch(/Alice/);
    expect(shownCard(card!).actions ?? []).toEqual([]);
    // Teams re-sends the same invoke (same activity id) when its answer was late: nothing happens twice.
    const updates = card!.updates.length;
    const again = await w.fake.post(w.endpoint, tap.invoke);
    expect(again.status).toBe(200);
    expect(again.body.statusCode).toBe(200);
    expect(String(again.body.value)).not.toBe('');
    await sleep(300);
    expect(card!.updates.length).toBe(updates);
    expect(await resultOf(w, id)).toEqual(result);
    // A later click (a new invoke) by someone else: the honest notice, in their language.
    const asPosted = card!.body.attachments[0].content;
    const late = await click(w, card!, 'Staging', BOB, { locale: 'de-DE' }, asPosted);
    expect(late.body.type).toBe('application/vnd.microsoft.activity.message');
    expect(late.body.value).toMatch(/bereits/);
    // A late reply in the chat, in German: the notice replies to it, in German.
    const reply = message(w.people, ALICE, DM, 'personal', 'Staging', { replyToId: card!.id, locale: 'de-DE' });
    expect((await w.fake.post(w.endpoint, reply)).status).toBe(200);
    const notice = await eventually(async () => [...w.fake.activities.values()].find((a) => a.replyToId === reply.id));
    expect(notice.body).toMatchObject({ type: 'message', textFormat: 'plain' });
    expect(notice.body.text).toMatch(/bereits/);
  });

  it('a reply in the card thread of a team channel (the bot mentioned) answers', async () => {
    const { id, card } = await askOnTeams(w, single(['Staging', 'Production']), { chat: CHANNEL });
    expect(card!.conversationId).toBe(CHANNEL);
    const reply = message(w.people, ALICE, `${CHANNEL};messageid=${card!.id}`, 'channel', 'Staging', {
      replyToId: card!.id,
    });
    expect((await w.fake.post(w.endpoint, reply)).status).toBe(200);
    const result = await resultOf(w, id);
    expect(result.status).toBe('answered');
    await eventually(async () => card!.updates.length > 0);
    expect(textsOf(shownCard(card!)).join('\n')).toMatch(/Staging/);
    // The same message re-sent by the connector: nothing more.
    expect((await w.fake.post(w.endpoint, reply)).status).toBe(200);
  });

  it('only the target users may answer: someone else gets the notice and the card stays', async () => {
    const { id, card } = await askOnTeams(w, single(['Yes', 'No']), { chat: CHANNEL, users: [ALICE.aadObjectId] });
    // The card as sent is read-only; Bob clicks the live card's button anyway (an old copy, a forged client).
    const liveForAlice = (await refresh(w, card!, ALICE, { chat: CHANNEL, kind: 'channel' })).body.value;
    expect(executeActions(shownCard(card!))).toEqual([]);
    const bob = await click(w, card!, 'Yes', BOB, { chat: CHANNEL, kind: 'channel' }, liveForAlice);
    expect(bob.body.type).toBe('application/vnd.microsoft.activity.message');
    expect(bob.body.value).toMatch(/This question is for/);
    expect((await w.api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
    // The refresh gives Alice the live card, Bob a read-only one.
    const live = await refresh(w, card!, ALICE, { chat: CHANNEL, kind: 'channel' });
    expect(live.body.type).toBe('application/vnd.microsoft.card.adaptive');
    expect(executeActions(live.body.value).map((a) => a.title)).toContain('Yes');
    const readOnly = await refresh(w, card!, BOB, { chat: CHANNEL, kind: 'channel' });
    expect(readOnly.body.type).toBe('application/vnd.microsoft.card.adaptive');
    expect(executeActions(readOnly.body.value)).toEqual([]);
    expect(shownCard(card!).refresh.userIds).toEqual([ALICE.aadObjectId]);
    const alice = await click(w, card!, 'No', ALICE, { chat: CHANNEL, kind: 'channel' }, live.body.value);
    expect(alice.body.value).toMatch(/recorded/i);
    expect((await resultOf(w, id)).status).toBe('answered');
  });

  it('a 429 from the connector is waited out (Retry-After) and the card delivered', async () => {
    w.fake.failNext({ status: 429, retryAfter: '1' });
    const started = Date.now();
    const res = await w.api.post('/v1/asks', {
      runId: 'run-429',
      ...single(['A', 'B']),
      to: { channel: 'teams', chat: DM },
    });
    const record = await eventually(async () => {
      const r = await w.api.get(`/v1/asks/${res.body.id}`);
      return r.body.deliveries[0].status === 'sent' && r.body;
    }, 10_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(w.fake.calls.some((c) => c.status === 429)).toBe(true);
    expect(w.fake.activities.get(record.deliveries[0].message.messageId)).toBeDefined();
  });

  it('a reminder replies to the card in its conversation', async () => {
    const { card } = await askOnTeams(w, { ...single(['A', 'B']), remindAfterSeconds: [1], timeoutSeconds: 600 });
    const reminder = await eventually(
      async () => [...w.fake.activities.values()].find((a) => a.replyToId === card!.id),
      10_000,
    );
    expect(reminder.conversationId).toBe(DM);
    expect(reminder.body).toMatchObject({ type: 'message', textFormat: 'plain' });
  });

  it('a forged invoke on a real card changes nothing', async () => {
    const { id, card } = await askOnTeams(w, single(['Staging', 'Production']));
    const action = executeActions(shownCard(card!)).find((a) => a.title === 'Production')!;
    const forged = cardAction(w.people, ALICE, DM, 'personal', card!.id, action);
    expect((await w.fake.post(w.endpoint, forged, { key: 'forged' })).status).toBe(401);
    expect((await w.fake.post(w.endpoint, forged, { authorization: null })).status).toBe(401);
    await sleep(200);
    expect((await w.api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
    expect(card!.updates).toEqual([]);
  });

  it('a target thread: the card is posted in it, a reply in that thread answers, the reminder lands there too', async () => {
    const root = '1733580000000';
    const { id, card, record } = await askOnTeams(
      w,
      { ...single(['Staging', 'Production']), remindAfterSeconds: [1], timeoutSeconds: 600 },
      { chat: CHANNEL, thread: root },
    );
    expect(record.deliveries[0].message).toMatchObject({ chat: CHANNEL, thread: root });
    expect(card!.conversationId).toBe(`${CHANNEL};messageid=${root}`);
    const reminder = await eventually(
      async () => [...w.fake.activities.values()].find((a) => a.replyToId === root && a.id !== card!.id),
      10_000,
    );
    expect(reminder.conversationId).toBe(`${CHANNEL};messageid=${root}`);
    const reply = message(w.people, ALICE, `${CHANNEL};messageid=${root}`, 'channel', 'Production', {
      replyToId: root,
    });
    expect((await w.fake.post(w.endpoint, reply)).status).toBe(200);
    expect((await resultOf(w, id)).answers).toEqual({ env: ['Production'] });
  });

  it('a thread in a personal chat is refused for good', async () => {
    const { record } = await askOnTeams(w, single(['A', 'B']), { chat: DM, thread: '1733580000000' });
    expect(record.deliveries[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/thread/) });
  });

  it('an ask several people must agree on: the card is re-drawn in place with the tally', async () => {
    const { id, card } = await askOnTeams(w, { ...single(['Yes', 'No']), agree: 2 });
    await click(w, card!, 'Yes', ALICE);
    const tallied = await eventually(async () => card!.updates.length > 0 && shownCard(card!), 10_000);
    expect(textsOf(tallied).join('\n')).toMatch(/Yes 1/);
    expect(executeActions(tallied).map((a) => a.title)).toContain('Yes');
    await click(w, card!, 'Yes', BOB, {}, tallied);
    expect((await resultOf(w, id)).status).toBe('answered');
  });
});
