import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assemble } from '../../src/app/assemble.js';
import type { AskStore, Outbox } from '../../src/core/ports.js';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { sleep, waitFor } from '../helpers/wait.js';

// Found by the R9 reliability row (docs/RELIABILITY.md): a reconciler pass that read an ask while
// it was pending rescheduled its sweep to deadline + grace after an answer had committed, and that
// answer's finalize/webhook enqueue had failed (Redis flaky), so nothing re-drove the work until
// the deadline. Here the pass is held between its read and its reschedule, deterministically.

let redis: TestRedis;
let app: RunningAskgate;
let hookServer: Server;
let hooks = 0;

beforeAll(async () => {
  redis = await startRedis();
  hookServer = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hooks++;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => hookServer.listen(0, '127.0.0.1', r));
  // The app's own reconciler ticks once at start and then sleeps: the test drives the passes.
  app = await startTestApp(
    testEnv({
      REDIS_URL: redis.url,
      ASKGATE_RECONCILE_INTERVAL_MS: '3600000',
      ASKGATE_SWEEP_DELAY_MS: '300',
      ASKGATE_WEBHOOK_SECRET: 'whsec-test-0123456789abcdef',
      ASKGATE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
    }),
  );
});

afterAll(async () => {
  await app?.close();
  hookServer?.close();
  await redis?.dispose();
});

describe('reconciler pass racing an answer', () => {
  it('a pass that read the ask as pending does not push back the sweep of an answer whose post-commit work failed', async () => {
    const { store } = app;
    const callbackUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hook`;
    const { body: ask } = await client(app.url).post(
      '/v1/asks',
      askBody('race-run', { callbackUrl, timeoutSeconds: 600 }),
    );
    // An ask without a target is marked at creation for its deadline + grace (the reconciler's
    // regular look); the pass here comes early, as it would for a mark moved up by a failure.
    const listed = (await app.indexes.dueForSweep(Date.now() + 3_600_000, 100)).find((e) => e.askId === ask.id);
    expect(listed).toBeDefined();
    expect(listed!.at).toBe(Date.parse(ask.expiresAt) + 300);

    // The reconciler reads the record (pending) and is held there.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let readDone!: () => void;
    const read = new Promise<void>((r) => (readDone = r));
    const slowStore: AskStore = Object.create(store);
    slowStore.get = async (id: string) => {
      const record = await store.get(id);
      readDone();
      await held;
      return record;
    };
    const stalePass = assemble({ ...app.ports, store: slowStore }).work.sweep(ask.id, listed!.at);
    await read;

    // Meanwhile the answer commits, and enqueueing its webhook fails.
    const failing: Outbox = {
      ...app.ports.outbox,
      enqueue: async () => {
        throw new Error("Stream isn't writeable and enableOfflineQueue options is false");
      },
    };
    const answered = await assemble({ ...app.ports, outbox: failing }).gateway.answer(
      ask.id,
      { answers: { env: ['Staging'] }, by: 'ops' },
      { channel: 'api', userId: 'ops' },
    );
    expect(answered.status).toBe('answered');

    release();
    await stalePass;
    const [entry] = (await app.indexes.dueForSweep(Date.now() + 1000, 100)).filter((e) => e.askId === ask.id);
    expect(entry, 'the answer is still due for a sweep within a second, not at its deadline').toBeDefined();

    // The next pass re-drives the webhook at once.
    await sleep(Math.max(0, entry!.at - Date.now()));
    await assemble(app.ports).work.sweep(entry!.askId, entry!.at);
    await waitFor(() => hooks === 1, 3000);
    await sleep(200);
    expect(hooks).toBe(1);
  });
});
