// Issue 39's Teams reliability row: kill -9 of a real `askgate serve` child between a Teams
// `adaptiveCard/action` invoke and its commit (and just after it), then a restart and the invoke
// re-sent with its activity id, as Teams re-sends an invoke it got no answer to. Each click is taken
// once (one `answered` in the ask's history, the clicked option the result), every invoke the
// restarted askgate answers gets a non-empty answer, and the card ends showing the outcome.
import { afterAll, describe, expect, it } from 'vitest';
import { startAskgateProcess, type AskgateProcess } from '../helpers/askgate-process.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { sleep } from '../helpers/wait.js';
import {
  cardAction,
  installed,
  person,
  startFakeTeams,
  type BotAnswer,
  type FakeTeams,
  type StoredActivity,
} from '../fakes/teams-connector.js';

const APP_ID = '8b1e4c52-1f0c-4c5e-9d43-3f4a2b6c7d10';
const APP_PASSWORD = 'rel-app-password-0123456789';
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const ALICE = person('Alice', '0f5c7a1e-3b2d-4c6e-8a9f-1b2c3d4e5f60');
const DM = 'a:1Xq3rel-chat-with-alice';

/** Where the kill lands: Redis held while the invoke is in (claim and commit cannot happen), a delay after sending, or after askgate answered. */
type Point = { name: string; hold?: true; delayMs?: number; answered?: true };
const POINTS: Point[] = [
  { name: 'redis held: before the claim and the commit', hold: true },
  ...[0, 3, 8, 15, 30, 60].map((delayMs) => ({ name: `${delayMs} ms after the invoke`, delayMs })),
  { name: 'after askgate answered the invoke (before or during the outcome edit)', answered: true },
];

let redis: TestRedis | undefined;
let proxy: FaultProxy | undefined;
let fake: FakeTeams | undefined;
let node: AskgateProcess | undefined;
afterAll(async () => {
  await node?.kill9();
  await fake?.close();
  await proxy?.close();
  await redis?.dispose();
});

describe('R-teams (issue 39): kill -9 of askgate between a Teams invoke and its commit, then the invoke re-sent', () => {
  it('every crash point: the click taken once, every re-sent invoke answered, the card finalized', async () => {
    redis = await startRedis(['--appendonly', 'yes', '--appendfsync', 'everysec']);
    proxy = await FaultProxy.start(redis.port);
    fake = await startFakeTeams({ appId: APP_ID, appPassword: APP_PASSWORD, tenantId: TENANT });
    const people = { appId: APP_ID, tenantId: TENANT, serviceUrl: fake.serviceUrl };
    const env = {
      REDIS_URL: proxy.redisUrl,
      ASKGATE_KEY_PREFIX: 'relteams',
      ASKGATE_TIMEOUT_MIN_SECONDS: '1',
      ASKGATE_RECONCILE_INTERVAL_MS: '200',
      ASKGATE_RECONCILE_GRACE_MS: '500',
      // A dead process's unfinished outcome edit is picked up by the sweep this long after its commit.
      ASKGATE_SWEEP_DELAY_MS: '500',
      ASKGATE_OUTBOX_BASE_DELAY_MS: '20',
      ASKGATE_OUTBOX_MAX_DELAY_MS: '200',
      ...fake!.settings,
    };
    node = await startAskgateProcess(env);
    expect((await fake.post(`${node.url}/teams/messages`, installed(people, DM, 'personal'))).status).toBe(200);

    const sides: string[] = [];
    for (const point of POINTS) {
      const api = client(node.url);
      const created = await api.post('/v1/asks', {
        runId: `rel-teams-${POINTS.indexOf(point)}`,
        timeoutSeconds: 300,
        questions: [
          { id: 'env', question: 'Where should I deploy?', options: [{ label: 'Staging' }, { label: 'Production' }] },
        ],
        to: { channel: 'teams', chat: DM },
      });
      expect(created.status, point.name).toBe(201);
      const askId: string = created.body.id;
      const card = await eventually(async () =>
        fake!.sentTo(DM).find((a) => JSON.stringify(a.body).includes(`${askId}.`)),
      );
      // Clicked once askgate recorded the delivery (a kill before that re-delivers the prompt: the
      // delivery's own window, R12, not this row's).
      await eventually(
        async () => (await api.get(`/v1/asks/${askId}`)).body.deliveries[0]?.message?.messageId === card.id,
      );
      // The first button (Staging), whatever data the channel's cards carry.
      const first = card.body.attachments[0].content.actions[0] as { verb: string; data: Record<string, unknown> };
      const invoke = cardAction(people, ALICE, DM, 'personal', card.id, first);

      // The click, and the kill at the point.
      if (point.hold) proxy.set({ blackhole: true });
      const firstTry = fake.post(`${node.url}/teams/messages`, invoke).catch(() => null);
      if (point.hold) await sleep(300);
      else if (point.answered) expect((await firstTry)?.status, point.name).toBe(200);
      else await sleep(point.delayMs!);
      await node.kill9();
      await firstTry;
      if (point.hold) proxy.set({ blackhole: false });

      // Restart; Teams re-sends the invoke (same activity id) until it gets an answer that is not
      // the prompt again (a re-send within the dead attempt's lease shows the card, doing nothing).
      node = await startAskgateProcess(env);
      const answers: BotAnswer[] = [];
      const api2 = client(node.url);
      const committed = (await api2.get(`/v1/asks/${askId}`)).body.status === 'answered';
      sides.push(`${point.name}: ${committed ? 'committed before the kill' : 'not committed at the kill'}`);
      await eventually(
        async () => {
          const answer = await fake!.post(`${node!.url}/teams/messages`, invoke);
          answers.push(answer);
          return (
            (await api2.get(`/v1/asks/${askId}`)).body.status === 'answered' && answer.body?.type?.includes('message')
          );
        },
        20_000,
        500,
      );
      for (const answer of answers) {
        expect(answer.status, point.name).toBe(200);
        expect(answer.body, point.name).toMatchObject({
          statusCode: 200,
          type: expect.any(String),
          value: expect.anything(),
        });
      }
      const record = (await api2.get(`/v1/asks/${askId}`)).body;
      expect(record.result, point.name).toMatchObject({ status: 'answered', answers: { env: ['Staging'] } });
      const history = (await api2.get(`/v1/asks/${askId}/events`)).body.events as { type: string }[];
      expect(
        history.filter((e) => e.type === 'answered'),
        point.name,
      ).toHaveLength(1);
      // The card shows the outcome (the restarted askgate's outbox or reconciler edits it if the dead one did not).
      await eventually(async () => shows(card, 'Staging') && history, 20_000).catch(async (error) => {
        const events = (await api2.get(`/v1/asks/${askId}/events`)).body.events;
        throw new Error(
          `${point.name}: card not finalized: ${JSON.stringify({ updates: card.updates, events, answers, log: node!.output().slice(-2000) })}`,
          { cause: error },
        );
      });
      expect(
        (await api2.get(`/v1/asks/${askId}/events`)).body.events.some((e: { type: string }) => e.type === 'finalized'),
        point.name,
      ).toBe(true);
    }
    console.log(`R-teams crash points:\n  ${sides.join('\n  ')}`);
    // The row covers both sides of the commit.
    expect(sides.some((s) => s.endsWith('not committed at the kill'))).toBe(true);
    expect(sides.some((s) => s.endsWith('committed before the kill'))).toBe(true);
  });
});

/** Whether the card's last update shows `text`. */
const shows = (card: StoredActivity, text: string) => JSON.stringify(card.updates.at(-1) ?? '').includes(text);
