import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { channelFor, deliveredRef, memoryLogger, newUser, showsButton, tapLabel } from './telegram-world.js';
import { MemoryFormDrafts } from '../../src/store/memory-form-drafts.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { outcomeView } from '../../src/core/outcome-view.js';
import { newAskRecord } from '../../src/core/lifecycle.js';
import type { Draft, DraftKey, StoredDraft } from '../../src/core/form-draft-store.js';
import { encodeToken } from '../../src/core/token.js';
import type { TelegramChannel } from '../../src/channels/telegram/telegram-channel.js';
import type { Question } from '../../src/core/schemas.js';
import type { AskStore, ButtonPressed, Channel, InboundSink } from '../../src/core/ports.js';
import { assemble } from '../../src/app/assemble.js';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';

/** A draft store that counts the `close` calls a finalize makes (each is a Redis command in durable mode). */
class CountingDrafts extends MemoryFormDrafts {
  readonly closes: DraftKey[] = [];
  readonly reads: DraftKey[] = [];
  readonly writes: { key: DraftKey; draft: Draft }[] = [];
  override async get(key: DraftKey): Promise<StoredDraft | null> {
    this.reads.push(key);
    return super.get(key);
  }
  override async put(key: DraftKey, rev: number, draft: Draft): Promise<number | 'conflict' | 'closed'> {
    this.writes.push({ key, draft });
    return super.put(key, rev, draft);
  }
  override async close(key: DraftKey): Promise<void> {
    this.closes.push(key);
    await super.close(key);
  }
}

/** The app's sink, counting every call a channel makes into it (and keeping the taps it passes on). */
class CountingSink {
  readonly calls: string[] = [];
  readonly buttons: ButtonPressed[] = [];
  readonly sink: InboundSink;

  constructor(inner: InboundSink) {
    const count = (name: string) => this.calls.push(name);
    const buttons = this.buttons;
    this.sink = new Proxy(inner, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        // The form sessions (when the sink has them) are counted call by call too.
        if (prop === 'formSessions' && value) return counted(value as object, 'formSessions.', count);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          count(String(prop));
          if (prop === 'button') buttons.push(args[0] as ButtonPressed);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }
}

/** `target` with each method call counted as `prefix + name`. */
function counted<T extends object>(target: T, prefix: string, count: (name: string) => void): T {
  return new Proxy(target, {
    get(t, prop, receiver) {
      const value: unknown = Reflect.get(t, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        count(prefix + String(prop));
        return (value as (...a: unknown[]) => unknown).apply(t, args);
      };
    },
  });
}

const env: Question = { id: 'env', question: 'Where?', multiSelect: false, options: [{ label: 'A' }, { label: 'B' }] };
const checks: Question = { ...env, id: 'checks', multiSelect: true };

let fake: FakeTelegramApi;
let channel: TelegramChannel;
let app: RunningAskgate;
const drafts = new CountingDrafts({ retentionMs: 60_000 });
/** Every record the channel's sink reads (outbox work reads through the app's own store, not counted). */
const recordReads: string[] = [];
let sink: CountingSink;
/** While set, the app's outcome edits wait for it (as they wait for a chat's send slot after a keyboard edit). */
let finalizeHeld: Promise<void> | null = null;

beforeAll(async () => {
  fake = await FakeTelegramApi.start();
  channel = channelFor(fake, memoryLogger(), { minSendIntervalMs: 0 });
  // The app delivers and finalizes through the channel; the channel itself is started below, with
  // the app's inbound handler over a store that counts its reads.
  const outbound: Channel = {
    name: channel.name,
    deliver: (request) => channel.deliver(request),
    finalize: async (ref, outcome, view) => {
      await finalizeHeld;
      return channel.finalize(ref, outcome, view);
    },
    remind: (ref, text, stillWanted) => channel.remind(ref, text, stillWanted),
    refresh: (ref, view) => channel.refresh(ref, view),
    start: async () => {},
    stop: () => channel.stop(),
  };
  app = await startTestApp(testEnv(), [outbound], { drafts });
  const store = app.ports.store;
  const reads: AskStore = counted(store, '', (name) => void (name === 'get' && recordReads.push(name)));
  sink = new CountingSink(assemble({ ...app.ports, store: reads }).inbound());
  await channel.start(sink.sink);
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});

/** Delivers an ask of `questions` to a fresh chat, answers it through the API shape, and finalizes it. */
async function deliverAndFinalize(id: string, questions: Question[]) {
  const user = newUser(fake, 'Ann');
  const record = newAskRecord({ runId: `r-${id}`, questions }, id, 1, 60, Date.now());
  const view = buildPromptView(record);
  const ref = await channel.deliver({
    askId: id,
    version: 1,
    target: { channel: 'telegram', chat: String(user.id) },
    view,
  });
  const ended = {
    ...record,
    status: 'no_answer' as const,
    result: { status: 'no_answer' as const, reason: 'cancelled' as const, at: new Date().toISOString() },
  };
  await channel.finalize(ref, outcomeView(ended), view);
  return ref;
}

describe('the draft a finalize closes', () => {
  it('a prompt with buttons has no draft: its finalize costs no draft command', async () => {
    await deliverAndFinalize('ButtonsAsk0001', [env]);
    expect(drafts.closes).toEqual([]);
  });

  it('a prompt answered on its keyboard closes its draft before the outcome edit', async () => {
    const ref = await deliverAndFinalize('DraftAsk000001', [env, checks]);
    expect(drafts.closes.filter((k) => k.askId === 'DraftAsk000001')).toEqual([
      expect.objectContaining({ messageId: ref.messageId }),
    ]);
  });

  it('a Skip on a prompt with buttons reads no draft (only a draft keyboard can be held)', async () => {
    const user = newUser(fake, 'Bo');
    const record = newAskRecord({ runId: 'r-skip', questions: [env] }, 'SkipAsk0000001', 1, 60, Date.now());
    const view = buildPromptView(record);
    const target = { channel: 'telegram', chat: String(user.id) };
    const ref = await channel.deliver({ askId: record.id, version: 1, target, view });
    const skip = encodeToken({ askId: record.id, version: 1, choice: { kind: 'skip' } });
    expect(await fake.answerOf(fake.tap(user.id, ref.messageId, skip, user))).not.toBeNull();
    expect(sink.buttons.map((b) => b.token)).toContain(skip);
    expect(drafts.reads.filter((k) => k.askId === record.id)).toEqual([]);
  });
});

describe('what a final tap (Submit) costs', () => {
  /** Asks `questions` of a fresh private chat through the API; the prompt is answered on its keyboard. */
  async function askOnKeyboard(name: string, questions: Question[]) {
    const user = newUser(fake, name);
    const api = client(app.url);
    const to = { channel: 'telegram', chat: String(user.id), users: [String(user.id)] };
    const created = await api.post('/v1/asks', askBody(`cost-${name}`, { to, questions, timeoutSeconds: 60 }));
    expect(created.status).toBe(201);
    const ref = await deliveredRef(api, created.body.id);
    return { user, api, id: created.body.id as string, ref };
  }

  it('one sink call, one record read, and no draft written for the ask it ends', async () => {
    const { user, api, id, ref } = await askOnKeyboard('Cy', [checks]);
    expect(await tapLabel(fake, ref, '☐ B', user)).toBe('');
    await showsButton(fake, ref, '☑ B');
    sink.calls.length = 0;
    recordReads.length = 0;
    const writesBefore = drafts.writes.length;
    // The outcome edit (which closes the draft) waits until the tap was answered: a write the
    // Submit makes for an ask it ended would find the draft still open.
    let release = () => {};
    finalizeHeld = new Promise((resolve) => (release = resolve));
    expect(await tapLabel(fake, ref, 'Submit', user)).toBe('Answer recorded');
    release();
    finalizeHeld = null;
    await eventually(
      async () => (await api.get(`/v1/asks/${id}`)).body.deliveries[0].finalized === 'done' || undefined,
    );
    // Drawing the form (the keyboard's draft, closing it at the outcome edit) is no call into the core.
    expect(sink.calls.filter((c) => c !== 'formSessions.shown' && c !== 'formSessions.close')).toEqual([
      'formSessions.step',
    ]);
    expect(recordReads).toHaveLength(1);
    // The Submit tap itself takes the draft (one compare-and-set); nothing starts afresh for an ask that ended.
    const written = drafts.writes.slice(writesBefore).filter((w) => w.key.askId === id);
    expect(written).toHaveLength(1);
    expect(written[0]!.draft.parts).toEqual([{ choices: [1] }]);
  });

  it('an ask that needs several matching answers goes on: the draft starts afresh for the next person', async () => {
    const user = newUser(fake, 'Di');
    const other = newUser(fake, 'Ed');
    const api = client(app.url);
    const to = { channel: 'telegram', chat: String(user.id), users: [String(user.id), String(other.id)] };
    const body = askBody('cost-agree', { to, questions: [checks], timeoutSeconds: 60, agree: 2 });
    const created = await api.post('/v1/asks', body);
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const ref = await deliveredRef(api, id);
    expect(await tapLabel(fake, ref, '☐ A', user)).toBe('');
    await showsButton(fake, ref, '☑ A');
    const writesBefore = drafts.writes.length;
    expect(await tapLabel(fake, ref, 'Submit', user)).not.toBeNull();
    const written = drafts.writes.slice(writesBefore).filter((w) => w.key.askId === id);
    expect(written.map((w) => w.draft.parts)).toEqual([[{ choices: [0] }], [{ choices: [] }]]);
    expect(written[1]!.draft.heldAt).toBe(0);
  });
});
