// Teams gives an `adaptiveCard/action` invoke 5 s, then shows an error and re-sends it. With a
// slow store (a fault proxy adding latency in front of the real redis-server), askgate answers by
// its deadline ("being recorded…", in the person's language), finishes the work in the
// background, and then the card changes in place (recorded) or a notice replies to it (refused):
// a re-sent invoke meanwhile acts once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/http.js';
import { sleep } from '../helpers/wait.js';
import { INVOKE_DEADLINE_MS } from '../../src/channels/teams/invoke.js';
import {
  ALICE,
  askOnTeams,
  click,
  installForAlice,
  resultOf,
  shownCard,
  single,
  startTeamsWorld,
  textsOf,
  type TeamsWorld,
} from './teams-world.js';

/** Each chunk to and from Redis waits this long: a round trip takes 1.3 s (under the store’s 1.5 s command timeout), an invoke several. */
const SLOW_MS = 650;

let w: TeamsWorld;
beforeAll(async () => {
  w = await startTeamsWorld({}, { proxy: true });
  await installForAlice(w);
}, 30_000);
afterAll(async () => {
  await w?.close();
});

const repliesTo = (id: string) => [...w.fake.activities.values()].filter((a) => a.replyToId === id);

describe('Teams: every invoke answered within Teams’ time limit', () => {
  it('a slow store: "being recorded…" by the deadline, then the card is finalized in place; a re-send acts once', async () => {
    const { id, card } = await askOnTeams(w, single(['Staging', 'Production']));
    w.proxy!.set({ latencyMs: SLOW_MS });
    const started = Date.now();
    const tap = await click(w, card!, 'Production', ALICE, { locale: 'de-DE' });
    const took = Date.now() - started;
    w.proxy!.heal();
    // The interim answer below proves the deadline fired (askgate counts it from the request's
    // arrival); no upper bound on the client's clock, which a loaded machine stretches.
    expect(took).toBeGreaterThanOrEqual(INVOKE_DEADLINE_MS - 100);
    expect(tap.body).toEqual({
      statusCode: 200,
      type: 'application/vnd.microsoft.activity.message',
      value: 'Deine Antwort wird gespeichert…',
    });
    // Teams' re-send of the same invoke arrives while the first attempt is still at work.
    const again = await click(w, card!, 'Production', ALICE, { id: tap.invoke.id });
    expect(again.status).toBe(200);
    expect(String(again.body.value)).not.toBe('');
    const result = await resultOf(w, id);
    expect(result.status).toBe('answered');
    expect(result.answers).toEqual({ env: ['Production'] });
    await eventually(async () => card!.updates.length > 0);
    expect(textsOf(shownCard(card!)).join('\n')).toMatch(/Production/);
    await sleep(500);
    const { events } = (await w.api.get(`/v1/asks/${id}/events`)).body as { events: { type: string }[] };
    // One answer and one outcome edit (the re-send, answered with what the card shows now, may note a refusal).
    expect(events.filter((e) => e.type === 'answered')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'finalized')).toHaveLength(1);
    expect(card!.updates).toHaveLength(1);
    // Recorded: the card shows it; nothing is replied under it.
    expect(repliesTo(card!.id)).toEqual([]);
  }, 30_000);

  it('a slow store and a refusal (a late click): "being recorded…" now, the honest notice replied to the card later', async () => {
    const { id, card } = await askOnTeams(w, single(['Yes', 'No']));
    const asPosted = card!.body.attachments[0].content;
    expect((await click(w, card!, 'Yes')).body.value).toMatch(/recorded/i);
    expect((await resultOf(w, id)).status).toBe('answered');
    w.proxy!.set({ latencyMs: SLOW_MS });
    const late = await click(w, card!, 'No', ALICE, {}, asPosted);
    w.proxy!.heal();
    expect(late.body.value).toBe('Your answer is being recorded…');
    const notice = await eventually(async () => repliesTo(card!.id)[0]);
    expect(notice.body).toMatchObject({ type: 'message', textFormat: 'plain' });
    expect(notice.body.text).toMatch(/already/i);
    expect((await resultOf(w, id)).answers).toEqual({ env: ['Yes'] });
  }, 30_000);
});
