import { randomBytes } from 'node:crypto';
import { describe, it, expect, beforeEach, afterEach, vi } from 'vitest';
import type {
  AskIndexes,
  AskStore,
  ConversationKey,
  CreateArgs,
  PendingPage,
  ResultBus,
} from '../../src/core/ports.js';
import { askCursor } from '../../src/core/ask-listing.js';
import type { AskRecord } from '../../src/core/schemas.js';

/** A store and the indexes beside its records, as both implementations expose them. */
export type StoreWithIndexes = AskStore & { readonly indexes: AskIndexes };

/** What one contract test needs from an implementation. */
export interface StoreHarness {
  /** The store under test, with the indexes beside its records. */
  store: StoreWithIndexes;
  /** Other instances over the same data (for Redis: each on its own connection). */
  peers: StoreWithIndexes[];
  /** The result bus as a waiter in another process sees it. */
  remoteBus: ResultBus;
  /** Lets `ms` of store time pass (Redis: real time; memory: the injected clock). */
  elapse(ms: number): Promise<void>;
  /** Keys (or entries) that would never expire; must be empty. */
  immortalKeys(): Promise<string[]>;
  close(): Promise<void>;
}

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const HOUR = 3_600_000;

/** A unique id in the shape askgate uses. */
export const uid = (n = 12) => randomBytes(n).toString('base64url').replace(/[-_]/g, 'x').slice(0, n);

/** A pending record with every optional field filled, so the round trip checks them all. */
export function pendingAsk(runId: string, version: number, id = uid()): AskRecord {
  const to = { channel: 'telegram', chat: '-100:42', thread: '7' };
  return {
    ...{
      id,
      runId,
      version,
      rev: 0,
      status: 'pending',
      to: { ...to, users: ['1001'] },
      targets: [{ ...to, users: ['1001'] }],
      timeoutSeconds: 900,
      result: null,
      idempotencyKey: 'key-1',
    },
    questions: [
      {
        id: 'env',
        header: 'Deploy',
        question: 'Where to?',
        options: [{ label: 'Staging', description: 'safe' }, { label: 'Prod' }],
        multiSelect: false,
      },
      { id: 'q2', question: 'Notes?', options: [{ label: 'A' }, { label: 'B' }], multiSelect: true },
    ],
    createdAt: new Date(T0).toISOString(),
    expiresAt: new Date(T0 + 900_000).toISOString(),
    partial: { q2: ['A'] },
    deliveries: [{ ...to, status: 'pending', finalized: 'no' }],
    callbackUrl: 'https://agent.example/hook',
    history: [{ type: 'created', at: new Date(T0).toISOString() }],
  };
}

/** `prev` with one delivery marked sent (a non-terminal change), tagged so concurrent nexts differ. */
export function delivered(prev: AskRecord, tag = 'm1'): AskRecord {
  const deliveries = prev.deliveries.map((d) => ({
    ...d,
    status: 'sent' as const,
    message: { chat: d.chat, messageId: tag },
  }));
  return { ...prev, rev: prev.rev + 1, deliveries };
}

/** `prev` ended without an answer. */
export function ended(prev: AskRecord, reason: 'superseded' | 'timeout' | 'cancelled'): AskRecord {
  return {
    ...prev,
    rev: prev.rev + 1,
    status: 'no_answer',
    result: { status: 'no_answer', reason, at: new Date(T0 + 1000).toISOString() },
  };
}

/** `prev` answered. */
export function answered(prev: AskRecord): AskRecord {
  const answeredBy = { channel: 'telegram', userId: '1001', username: 'alice' };
  const result = {
    status: 'answered' as const,
    answers: { env: ['Prod'], q2: ['A', 'free text'] },
    answeredBy,
    answeredAt: new Date(T0 + 5000).toISOString(),
  };
  return { ...prev, rev: prev.rev + 1, status: 'answered', partial: {}, result };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Create arguments with the test defaults (one hour TTL and retention). */
const args = (
  record: AskRecord,
  expectedVersion: number,
  supersede: CreateArgs['supersede'] = null,
  ttlMs = HOUR,
): CreateArgs => ({ record, expectedVersion, supersede, ttlMs, retentionMs: HOUR });

/** Creates an ask on the run the way the gateway does (superseding the pending one). */
export async function createAsk(store: AskStore, runId: string, ttlMs = HOUR): Promise<AskRecord> {
  const { current, version } = await store.getRun(runId);
  const record = pendingAsk(runId, version + 1);
  const supersede =
    current && current.status === 'pending' ? { prev: current, next: ended(current, 'superseded') } : null;
  const result = await store.create(args(record, version, supersede, ttlMs));
  expect(result.status).toBe('created');
  return record;
}

const count = <T>(items: T[], value: T) => items.filter((i) => i === value).length;

/** The {@link AskStore} contract, run against every implementation. */
export function storeContract(name: string, factory: () => Promise<StoreHarness>): void {
  describe(`AskStore contract: ${name}`, () => {
    let h: StoreHarness;
    let store: StoreWithIndexes;
    let all: StoreWithIndexes[];
    beforeEach(async () => {
      h = await factory();
      store = h.store;
      all = [h.store, ...h.peers];
    });
    afterEach(async () => {
      await h.close();
    });

    it('create then get returns the record exactly as written', async () => {
      const record = pendingAsk(uid(), 1);
      const result = await store.create(args(record, 0));
      expect(result).toEqual({ status: 'created', record, superseded: null });
      expect(await store.get(record.id)).toEqual(record);
      expect(await h.peers[0]!.get(record.id)).toEqual(record);
      expect(await store.getRun(record.runId)).toEqual({ current: record, version: 1 });
      expect(await store.history(record.runId, 10)).toEqual([record]);
    });

    it('getMany reads records in the order asked, null for unknown ids, as get would (warm and cold caches)', async () => {
      const a = await createAsk(store, uid());
      const b = await createAsk(store, uid());
      const b2 = await createAsk(store, b.runId); // supersedes b
      const ids = [b2.id, 'unknown-id', a.id, b.id, b2.id];
      const expected = await Promise.all(ids.map((id) => store.get(id)));
      expect(expected.map((r) => r?.status ?? null)).toEqual(['pending', null, 'pending', 'no_answer', 'pending']);
      expect(await store.getMany(ids)).toEqual(expected);
      expect(await h.peers[0]!.getMany(ids)).toEqual(expected);
      expect(await store.getMany([])).toEqual([]);
      expect(await store.getMany([a.id])).toEqual([a]);
    });

    it('recent lists the newest asks of all runs first, with their current state', async () => {
      // Newer than every other ask the suite creates (they are all created at T0).
      const a = { ...pendingAsk(uid(), 1), createdAt: new Date(T0 + 500).toISOString() };
      const b = { ...pendingAsk(uid(), 1), createdAt: new Date(T0 + 1000).toISOString() };
      await store.create(args(a, 0));
      await store.create(args(b, 0));
      const a1 = answered(a);
      expect(await store.commit(a, a1, { ttlMs: HOUR, publish: false })).toBe('ok');
      const listed = await h.peers[0]!.recent(10);
      expect(listed.map((r) => r.id).slice(0, 2)).toEqual([b.id, a.id]);
      expect(listed.find((r) => r.id === a.id)?.status).toBe(a1.status);
      expect(await store.recent(1)).toHaveLength(1);
      expect(await store.recent(0)).toEqual([]);
    });

    it('creating the same ask id twice returns exists with the stored record and keeps one record', async () => {
      const record = pendingAsk(uid(), 1);
      await store.create(args(record, 0));
      const retry = { ...record, questions: [record.questions[0]!] };
      const again = await store.create(args(retry, 0));
      expect(again).toEqual({ status: 'exists', record });
      expect(await store.history(record.runId, 10)).toHaveLength(1);
      expect((await store.getRun(record.runId)).version).toBe(1);
    });

    it('concurrent creates on one run with the same expected version: exactly one is created', async () => {
      const runId = uid();
      const records = Array.from({ length: 12 }, () => pendingAsk(runId, 1));
      const results = await Promise.all(records.map((record, i) => all[i % all.length]!.create(args(record, 0))));
      const statuses = results.map((r) => r.status);
      expect(count(statuses, 'created')).toBe(1);
      expect(count(statuses, 'conflict')).toBe(11);
      const winner = records[statuses.indexOf('created')]!;
      expect(await store.getRun(runId)).toEqual({ current: winner, version: 1 });
      expect(await store.history(runId, 50)).toEqual([winner]);
      for (const r of records) if (r !== winner) expect(await store.get(r.id)).toBeNull();
    });

    it('a stale expected version conflicts and writes nothing', async () => {
      const a = await createAsk(store, uid());
      const b = pendingAsk(a.runId, 1);
      expect(await store.create(args(b, 0))).toEqual({ status: 'conflict' });
      expect(await store.get(b.id)).toBeNull();
      expect(await store.getRun(a.runId)).toEqual({ current: a, version: 1 });
    });

    it('supersede ends the pending ask, publishes it once and makes the new ask current', async () => {
      const a = await createAsk(store, uid());
      let wakes = 0;
      h.remoteBus.subscribe(a.id, () => wakes++);
      const b = pendingAsk(a.runId, 2);
      const next = ended(a, 'superseded');
      const result = await store.create(args(b, 1, { prev: a, next }));
      expect(result).toEqual({ status: 'created', record: b, superseded: next });
      await vi.waitFor(() => expect(wakes).toBeGreaterThan(0));
      expect(await store.get(a.id)).toEqual(next);
      expect(await store.getRun(a.runId)).toEqual({ current: b, version: 2 });
      expect((await store.history(a.runId, 10)).map((r) => r.id)).toEqual([b.id, a.id]);
      await sleep(50);
      expect(wakes).toBe(1);
    });

    it('supersede conflicts when the pending ask moved or already ended, and writes nothing', async () => {
      const a = await createAsk(store, uid());
      const a1 = delivered(a);
      expect(await store.commit(a, a1, { ttlMs: HOUR, publish: false })).toBe('ok');
      const b = pendingAsk(a.runId, 2);
      const stale = await store.create(args(b, 1, { prev: a, next: ended(a, 'superseded') }));
      expect(stale).toEqual({ status: 'conflict' });
      const a2 = answered(a1);
      expect(await store.commit(a1, a2, { ttlMs: HOUR, publish: false })).toBe('ok');
      const onTerminal = await store.create(args(b, 1, { prev: a2, next: ended(a2, 'superseded') }));
      expect(onTerminal).toEqual({ status: 'conflict' });
      expect(await store.get(b.id)).toBeNull();
      expect(await store.get(a.id)).toEqual(a2);
      expect(await store.getRun(a.runId)).toEqual({ current: a2, version: 1 });
    });

    it('commit replaces the record and rejects a stale rev', async () => {
      const a = await createAsk(store, uid());
      const a1 = delivered(a, 'first');
      expect(await store.commit(a, a1, { ttlMs: HOUR, publish: false })).toBe('ok');
      expect(await store.get(a.id)).toEqual(a1);
      expect(await store.commit(a, delivered(a, 'second'), { ttlMs: HOUR, publish: false })).toBe('conflict');
      expect(await store.get(a.id)).toEqual(a1);
      const a2 = answered(a1);
      expect(await store.commit(a1, a2, { ttlMs: HOUR, publish: false })).toBe('ok');
      expect(await store.getRun(a.runId)).toEqual({ current: a2, version: 1 });
    });

    it('20 concurrent commits from the same prev: exactly one is ok and its record is stored', async () => {
      const a = await createAsk(store, uid());
      const nexts = Array.from({ length: 20 }, (_, i) => delivered(a, `m${i}`));
      const results = await Promise.all(
        nexts.map((next, i) => all[i % all.length]!.commit(a, next, { ttlMs: HOUR, publish: false })),
      );
      expect(count(results, 'ok')).toBe(1);
      expect(count(results, 'conflict')).toBe(19);
      expect(await store.get(a.id)).toEqual(nexts[results.indexOf('ok')]);
    });

    it('commit with publish wakes a subscriber on the result bus exactly once; without publish it does not', async () => {
      const a = await createAsk(store, uid());
      let wakes = 0;
      const unsubscribe = h.remoteBus.subscribe(a.id, () => wakes++);
      const a1 = delivered(a);
      expect(await store.commit(a, a1, { ttlMs: HOUR, publish: false })).toBe('ok');
      await sleep(50);
      expect(wakes).toBe(0);
      const a2 = answered(a1);
      expect(await store.commit(a1, a2, { ttlMs: HOUR, publish: true })).toBe('ok');
      await vi.waitFor(() => expect(wakes).toBeGreaterThan(0));
      await sleep(50);
      expect(wakes).toBe(1);
      unsubscribe();
      expect(await store.commit(a2, { ...a2, rev: a2.rev + 1 }, { ttlMs: HOUR, publish: true })).toBe('ok');
      await sleep(50);
      expect(wakes).toBe(1);
    });

    it('create, supersede and every commit announce the history growth once each; a conflict announces nothing', async () => {
      const heard: string[] = [];
      const unsubscribe = h.remoteBus.subscribeHistory((askId, runId) => heard.push(`${askId} ${runId}`));
      const runId = uid();
      const a = await createAsk(store, runId);
      await vi.waitFor(() => expect(heard).toEqual([`${a.id} ${runId}`]));
      const a1 = delivered(a);
      expect(await store.commit(a, a1, { ttlMs: HOUR, publish: false })).toBe('ok');
      expect(await store.commit(a, delivered(a, 'stale'), { ttlMs: HOUR, publish: false })).toBe('conflict');
      const b = await createAsk(store, runId);
      await vi.waitFor(() => expect(heard).toHaveLength(4));
      await sleep(50);
      unsubscribe();
      expect(heard.slice(0, 2)).toEqual([`${a.id} ${runId}`, `${a.id} ${runId}`]);
      expect(heard.slice(2).sort()).toEqual([`${a.id} ${runId}`, `${b.id} ${runId}`].sort());
    });

    it('a record stays findable by id while it lives, however its TTL moved', async () => {
      const a = await createAsk(store, uid(), 300);
      const a1 = delivered(a);
      expect(await store.commit(a, a1, { ttlMs: 300, publish: false })).toBe('ok');
      const a2 = answered(a1);
      expect(await store.commit(a1, a2, { ttlMs: 3000, publish: true })).toBe('ok');
      await h.elapse(500);
      expect(await store.get(a.id)).toEqual(a2);
      expect(await h.peers[0]!.get(a.id)).toEqual(a2);
    });

    it('getRun with pendingOnly reads the current ask only while it is pending, and always the version', async () => {
      const runId = uid();
      const a = await createAsk(store, runId);
      expect(await store.getRun(runId, { pendingOnly: true })).toEqual({ current: a, version: 1 });
      const a1 = answered(a);
      expect(await store.commit(a, a1, { ttlMs: HOUR, publish: true })).toBe('ok');
      for (const s of all) {
        expect(await s.getRun(runId, { pendingOnly: true })).toEqual({ current: null, version: 1 });
        expect(await s.getRun(runId)).toEqual({ current: a1, version: 1 });
      }
    });

    it('unknown asks and runs read as absent', async () => {
      const ghost = pendingAsk(uid(), 1);
      expect(await store.get(ghost.id)).toBeNull();
      expect(await store.commit(ghost, delivered(ghost), { ttlMs: HOUR, publish: true })).toBe('missing');
      expect(await store.get(ghost.id)).toBeNull();
      expect(await store.getRun(ghost.runId)).toEqual({ current: null, version: 0 });
      expect(await store.history(ghost.runId, 10)).toEqual([]);
    });

    it('ten concurrent idempotency claims: one wins and all get the same binding', async () => {
      const key = `idem-${uid()}`;
      const claims = await Promise.all(
        Array.from({ length: 10 }, (_, i) => all[i % all.length]!.claimIdempotencyKey(key, 'hash-1', `ask${i}`, HOUR)),
      );
      expect(claims.filter((c) => c.won)).toHaveLength(1);
      const winner = claims.find((c) => c.won)!;
      for (const c of claims)
        expect({ askId: c.askId, requestHash: c.requestHash }).toEqual({ askId: winner.askId, requestHash: 'hash-1' });
      expect(await store.claimIdempotencyKey(key, 'hash-2', 'late', HOUR)).toEqual({
        askId: winner.askId,
        requestHash: 'hash-1',
        won: false,
      });
    });

    it('history is newest first, honours the limit and keeps the 50 newest', async () => {
      const runId = uid();
      const made: AskRecord[] = [];
      for (let i = 0; i < 52; i++) made.push(await createAsk(store, runId));
      const top3 = await store.history(runId, 3);
      expect(top3.map((r) => r.version)).toEqual([52, 51, 50]);
      expect(top3[0]).toEqual(made[51]);
      expect(top3[1]).toEqual(ended(made[50]!, 'superseded'));
      const everything = await store.history(runId, 500);
      expect(everything).toHaveLength(50);
      expect(everything.map((r) => r.version)).toEqual(Array.from({ length: 50 }, (_, i) => 52 - i));
      expect(await store.history(runId, 0)).toEqual([]);
    });

    it('records expire after their TTL; a commit extends the record and its run', async () => {
      const a = await createAsk(store, uid(), 300);
      const a1 = answered(a);
      expect(await store.commit(a, a1, { ttlMs: HOUR, publish: false })).toBe('ok');
      const b = await createAsk(store, uid(), 200);
      await h.elapse(450);
      expect(await store.get(b.id)).toBeNull();
      expect(await store.getRun(b.runId)).toEqual({ current: null, version: 0 });
      expect(await store.get(a.id)).toEqual(a1);
      expect(await h.peers[0]!.get(a.id)).toEqual(a1);
      expect(await store.getRun(a.runId)).toEqual({ current: a1, version: 1 });
      expect(await store.history(a.runId, 5)).toEqual([a1]);
    });

    it('sweep index keeps the earliest mark, reschedules, lists due asks oldest first with their time, and unmarks', async () => {
      const [a, b, c] = [uid(), uid(), uid()];
      const ids = (entries: { askId: string }[]) => entries.map((e) => e.askId);
      await store.indexes.markForSweep(a, T0 + 1000);
      await store.indexes.markForSweep(a, T0 + 2000);
      // The later mark keeps the earlier time, 1 ms earlier still: every mark moves the time.
      expect(await store.indexes.dueForSweep(T0 + 1500, 10)).toEqual([{ askId: a, at: T0 + 999 }]);
      await store.indexes.markForSweep(a, T0 + 500);
      await store.indexes.markForSweep(b, T0 + 800);
      await store.indexes.markForSweep(c, T0 + 3000);
      expect(await store.indexes.dueForSweep(T0 + 1000, 10)).toEqual([
        { askId: a, at: T0 + 500 },
        { askId: b, at: T0 + 800 },
      ]);
      expect(ids(await store.indexes.dueForSweep(T0 + 1000, 1))).toEqual([a]);
      expect(await store.indexes.dueForSweep(T0 + 499, 10)).toEqual([]);
      expect(await store.indexes.rescheduleSweep(a, T0 + 5000)).toBe(true);
      expect(ids(await store.indexes.dueForSweep(T0 + 1000, 10))).toEqual([b]);
      await store.indexes.unmarkSweep(b);
      expect(ids(await store.indexes.dueForSweep(T0 + 10_000, 10))).toEqual([c, a]);
    });

    it('rescheduleSweeps moves a batch in one call: each listed ask only while its time is the one listed, an unlisted one always', async () => {
      const [a, b, c, d] = [uid(), uid(), uid(), uid()];
      for (const id of [a, b, c]) await store.indexes.markForSweep(id, T0 + 100);
      await store.indexes.markForSweep(b, T0 + 50); // marked again after the listing: now T0 + 50
      await store.indexes.unmarkSweep(c); // dropped meanwhile
      expect(
        await store.indexes.rescheduleSweeps([
          { askId: a, at: T0 + HOUR, seenAt: T0 + 100 },
          { askId: b, at: T0 + HOUR, seenAt: T0 + 100 },
          { askId: c, at: T0 + HOUR, seenAt: T0 + 100 },
          { askId: d, at: T0 + 2 * HOUR },
        ]),
      ).toEqual([true, false, false, true]);
      expect(await store.indexes.dueForSweep(T0 + 3 * HOUR, 10)).toEqual([
        { askId: b, at: T0 + 50 },
        { askId: a, at: T0 + HOUR },
        { askId: d, at: T0 + 2 * HOUR },
      ]);
      expect(await store.indexes.rescheduleSweeps([])).toEqual([]);
    });

    it('a reschedule that names the time it listed is refused once the ask was marked again (concurrent reconciler passes and answers)', async () => {
      const a = uid();
      await store.indexes.markForSweep(a, T0 + 100);
      const [listed] = await store.indexes.dueForSweep(T0 + 100, 10);
      expect(listed).toEqual({ askId: a, at: T0 + 100 });
      // An answer's write-ahead mark lands while the reconciler works on the stale record.
      await store.indexes.markForSweep(a, T0 + 30_000);
      expect(await store.indexes.rescheduleSweep(a, T0 + HOUR, listed!.at)).toBe(false);
      expect(await store.indexes.dueForSweep(T0 + 100, 10)).toEqual([{ askId: a, at: T0 + 99 }]);
      // Nobody marked it: the reschedule goes through, once.
      expect(await all[all.length - 1]!.indexes.rescheduleSweep(a, T0 + HOUR, T0 + 99)).toBe(true);
      expect(await store.indexes.rescheduleSweep(a, T0 + 2 * HOUR, T0 + 99)).toBe(false);
      expect(await store.indexes.dueForSweep(T0 + HOUR, 10)).toEqual([{ askId: a, at: T0 + HOUR }]);
      // An ask dropped from the index meanwhile stays dropped.
      await store.indexes.unmarkSweep(a);
      expect(await store.indexes.rescheduleSweep(a, T0 + HOUR, T0 + HOUR)).toBe(false);
      expect(await store.indexes.dueForSweep(T0 + 3 * HOUR, 10)).toEqual([]);
    });

    it('along writes: made with a create or commit that succeeds, in its atomic step, and never with one that does not', async () => {
      const runId = uid();
      const conv: ConversationKey = { channel: 'telegram', chat: `c:${uid()}` };
      const a = pendingAsk(runId, 1);
      const mark = { along: { mark: T0 + 100 } };
      if (!store.ordered) {
        await expect(store.create({ ...args(a, 0), ...mark })).rejects.toThrow(/ordered connection/);
        return;
      }
      expect((await store.create({ ...args(a, 0), ...mark })).status).toBe('created');
      expect(await store.indexes.dueForSweep(T0 + 100, 10)).toEqual([{ askId: a.id, at: T0 + 100 }]);
      // A second mark keeps the earlier time, 1 ms earlier, as markForSweep does.
      const a1 = delivered(a);
      expect(await store.commit(a, a1, { ttlMs: HOUR, publish: false, along: { mark: T0 + 500 } })).toBe('ok');
      expect(await store.indexes.dueForSweep(T0 + 100, 10)).toEqual([{ askId: a.id, at: T0 + 99 }]);
      await store.indexes.addToConversation(conv, a.id, T0 + HOUR);
      // Refused writes leave the indexes as they were.
      const lost = pendingAsk(runId, 1);
      expect((await store.create({ ...args(lost, 0), along: { mark: T0 } })).status).toBe('conflict');
      const along = { unsweep: true, leave: [conv] };
      expect(await store.commit(a, answered(a), { ttlMs: HOUR, publish: false, along })).toBe('conflict');
      expect(await store.indexes.dueForSweep(T0 + HOUR, 10)).toEqual([{ askId: a.id, at: T0 + 99 }]);
      expect(await store.indexes.pendingInConversation(conv, T0)).toEqual([a.id]);
      expect(await store.commit(a1, answered(a1), { ttlMs: HOUR, publish: true, along })).toBe('ok');
      expect(await store.indexes.dueForSweep(T0 + HOUR, 10)).toEqual([]);
      expect(await store.indexes.pendingInConversation(conv, T0)).toEqual([]);
    });

    it('along writes: a later look moves the sweep time only while it is still the one given', async () => {
      if (!store.ordered) return; // refused on Cluster: see the test above
      const a = pendingAsk(uid(), 1);
      expect((await store.create({ ...args(a, 0), along: { mark: T0 + 100 } })).status).toBe('created');
      const a1 = delivered(a);
      const later = { at: T0 + HOUR, from: T0 + 100 };
      expect(await store.commit(a, a1, { ttlMs: HOUR, publish: false, along: { later } })).toBe('ok');
      expect(await store.indexes.dueForSweep(T0 + 2 * HOUR, 10)).toEqual([{ askId: a.id, at: T0 + HOUR }]);
      // Marked again meanwhile (an answer's write-ahead mark): not moved.
      await store.indexes.markForSweep(a.id, T0 + 50);
      const a2 = delivered(a1, 'm2');
      expect(await store.commit(a1, a2, { ttlMs: HOUR, publish: false, along: { later } })).toBe('ok');
      expect(await store.indexes.dueForSweep(T0 + 2 * HOUR, 10)).toEqual([{ askId: a.id, at: T0 + 50 }]);
    });

    it('conversation index: pending by score, stale members removed, conversations isolated', async () => {
      const conv: ConversationKey = { channel: 'telegram', chat: `c:${uid()}` };
      const other: ConversationKey = { channel: 'slack', chat: conv.chat };
      const [a, b, c] = [uid(), uid(), uid()];
      await store.indexes.addToConversation(conv, a, T0 + 1000);
      await store.indexes.addToConversation(conv, b, T0 + 2000);
      await store.indexes.addToConversation(conv, c, T0 + 3000);
      expect(await store.indexes.pendingInConversation(conv, T0 + 1000)).toEqual([b, c]);
      // a was stale at that read and is gone, even when asked about an earlier time.
      expect(await store.indexes.pendingInConversation(conv, T0)).toEqual([b, c]);
      await store.indexes.removeFromConversation(conv, c);
      expect(await store.indexes.pendingInConversation(conv, T0)).toEqual([b]);
      await store.indexes.addToConversation(conv, b, T0 + 500);
      expect(await store.indexes.pendingInConversation(conv, T0 + 600)).toEqual([]);
      expect(await store.indexes.pendingInConversation(other, T0)).toEqual([]);
    });

    it('message bindings map a platform message to its ask and expire', async () => {
      const conv: ConversationKey = { channel: 'telegram', chat: `a:${uid()}` };
      await store.indexes.bindMessage(conv, '10', 'ask-a', HOUR);
      await store.indexes.bindMessage({ channel: conv.channel, chat: `${conv.chat}:10` }, 'x', 'ask-b', HOUR);
      await store.indexes.bindMessage(conv, '11', 'ask-c', 150);
      expect(await store.indexes.findByMessage(conv, '10')).toBe('ask-a');
      expect(await store.indexes.findByMessage({ channel: 'slack', chat: conv.chat }, '10')).toBeNull();
      expect(await store.indexes.findByMessage(conv, '10:x')).toBeNull();
      expect(await store.indexes.findByMessage(conv, '11')).toBe('ask-c');
      await h.elapse(250);
      expect(await store.indexes.findByMessage(conv, '11')).toBeNull();
      expect(await store.indexes.findByMessage(conv, '10')).toBe('ask-a');
    });

    /** Every pending ask, paging `limit` at a time from the start; fails on a repeat. */
    async function listAll(from: StoreWithIndexes, limit: number): Promise<string[]> {
      const ids: string[] = [];
      let after: string | null = null;
      for (let pages = 0; pages < 100; pages++) {
        const page: PendingPage = await from.pendingAsks(after, limit);
        expect(page.asks.length).toBeLessThanOrEqual(limit);
        for (const { record, cursor } of page.asks) {
          expect(cursor).toBe(askCursor(record));
          if (after !== null) expect(cursor > after).toBe(true);
          ids.push(record.id);
        }
        if (page.next === null) break;
        after = page.next;
      }
      expect(new Set(ids).size).toBe(ids.length);
      return ids;
    }
    /** A pending ask created `ms` after T0 on a run of its own (or `runId`'s, superseding its pending ask). */
    async function pendingAt(ms: number, id = uid(), runId = uid()): Promise<AskRecord> {
      const { current, version } = await store.getRun(runId);
      const record = { ...pendingAsk(runId, version + 1, id), createdAt: new Date(T0 + ms).toISOString() };
      const supersede = current?.status === 'pending' ? { prev: current, next: ended(current, 'superseded') } : null;
      expect((await store.create(args(record, version, supersede))).status).toBe('created');
      return record;
    }

    it('pendingAsks lists every pending ask oldest first (ties by id), pages by cursor, and leaves ended asks out', async () => {
      const a = await pendingAt(3000);
      const b = await pendingAt(1000);
      const [c, d] = [await pendingAt(2000, `B${uid(13)}`), await pendingAt(2000, `A${uid(13)}`)];
      const e = await pendingAt(4000);
      const f = await pendingAt(5000);
      expect(await store.commit(e, answered(e), { ttlMs: HOUR, publish: true })).toBe('ok');
      const f2 = await pendingAt(6000, uid(), f.runId); // supersedes f
      const expected = [b.id, d.id, c.id, a.id, f2.id];
      for (const limit of [1, 2, 3, 5, 200]) expect(await listAll(store, limit)).toEqual(expected);
      expect(await listAll(h.peers[0]!, 2)).toEqual(expected);
      const first = await store.pendingAsks(null, 2);
      expect(first.asks.map((x) => x.record)).toEqual([b, d]);
      expect(first.next).toBe(askCursor(d));
      expect((await store.pendingAsks(askCursor(f2), 10)).asks).toEqual([]);
    });

    it('pendingAsks while asks come and go between pages: none twice, none pending throughout skipped', async () => {
      const asks = [];
      for (let i = 0; i < 6; i++) asks.push(await pendingAt(1000 * (i + 1)));
      const page1 = await store.pendingAsks(null, 2);
      expect(page1.asks.map((x) => x.record.id)).toEqual([asks[0]!.id, asks[1]!.id]);
      // Meanwhile: one not yet listed ends, one already listed ends, a new one comes.
      expect(await store.commit(asks[3]!, answered(asks[3]!), { ttlMs: HOUR, publish: true })).toBe('ok');
      expect(await store.commit(asks[0]!, answered(asks[0]!), { ttlMs: HOUR, publish: true })).toBe('ok');
      const late = await pendingAt(9000);
      const seen = page1.asks.map((x) => x.record.id);
      let after = page1.next;
      while (after !== null) {
        const page = await h.peers[0]!.pendingAsks(after, 2);
        seen.push(...page.asks.map((x) => x.record.id));
        after = page.next;
      }
      expect(seen).toEqual([asks[0]!.id, asks[1]!.id, asks[2]!.id, asks[4]!.id, asks[5]!.id, late.id]);
      expect(await listAll(store, 50)).toEqual([asks[1]!.id, asks[2]!.id, asks[4]!.id, asks[5]!.id, late.id]);
    });

    it('pendingAsks leaves out an ask whose record expired while pending', async () => {
      const short = { ...pendingAsk(uid(), 1), createdAt: new Date(T0 + 10).toISOString() };
      expect((await store.create(args(short, 0, null, 300))).status).toBe('created');
      const kept = await pendingAt(20);
      expect(await listAll(store, 10)).toEqual([short.id, kept.id]);
      await h.elapse(400);
      expect(await listAll(store, 10)).toEqual([kept.id]);
    });

    it('ping resolves', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it('every key it writes has a TTL', async () => {
      const runId = uid();
      await store.claimIdempotencyKey(`idem-${uid()}`, 'h', 'x', HOUR);
      const a = await createAsk(store, runId);
      await store.indexes.markForSweep(a.id, T0);
      const b = await createAsk(store, runId);
      await store.commit(b, answered(b), { ttlMs: HOUR, publish: true });
      await store.indexes.rescheduleSweep(b.id, T0 + 1);
      const conv = { channel: 'discord', chat: uid() };
      await store.indexes.addToConversation(conv, b.id, T0 + HOUR);
      await store.indexes.pendingInConversation(conv, T0);
      await store.indexes.bindMessage(conv, 'm', b.id, HOUR);
      expect(await h.immortalKeys()).toEqual([]);
    });
  });
}
