import { relative, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importClosure } from '../helpers/import-graph.js';
import { RunState } from '../../src/guard/run-state.js';
import { createToolGuard } from '../../src/guard/index.js';
import { RunStreamClient } from '../fakes/run-stream-client.js';
import type { AskResult, AskView } from '../../src/client/index.js';
import { waitFor } from '../helpers/wait.js';

// The ordering cases of the guard's run state, with the run read and the stream driven by the test.

const states: { close(): void }[] = [];
afterEach(() => {
  for (const s of states.splice(0)) s.close();
});

const follow = async (client: RunStreamClient) => {
  const state = new RunState(client, 'run-1', { backoffMs: 5, maxBackoffMs: 20, openTimeoutMs: 200 });
  states.push(state);
  await state.firstAttempt;
  return state;
};

describe('the run state of a guard', () => {
  it('an end seen on the stream before an older read said pending stays an end', async () => {
    const client = new RunStreamClient();
    let release!: () => void;
    client.runGate = new Promise((r) => (release = r));
    client.current = { id: 'A1', status: 'pending', version: 1 };
    const state = new RunState(client, 'run-1', { backoffMs: 5, maxBackoffMs: 20, openTimeoutMs: 200 });
    states.push(state);
    await waitFor(() => client.streams.length === 1);
    client.last.entry('created', 'A1', 1, 0);
    client.last.entry('answered', 'A1', 1, 1);
    await new Promise((r) => setTimeout(r, 10));
    release();
    await state.firstAttempt;
    await waitFor(() => state.hasEnded('A1'));
    expect(state.known).toBe(true);
    expect(state.pendingAsk).toBeUndefined();
  });

  it('a replayed created of an ended ask does not open it again', async () => {
    const client = new RunStreamClient();
    const state = await follow(client);
    client.last.entry('created', 'A1', 1, 0);
    await waitFor(() => state.pendingAsk === 'A1');
    client.last.entry('no_answer', 'A1', 1, 1);
    client.last.entry('created', 'A1', 1, 0);
    client.last.entry('created', 'A2', 2, 0);
    await waitFor(() => state.pendingAsk === 'A2');
    expect(state.hasEnded('A1')).toBe(true);
  });

  it('after a reconnect, resumes from the last id and the read ends asks older than the current one', async () => {
    const client = new RunStreamClient();
    const state = await follow(client);
    client.last.entry('created', 'A1', 1, 0);
    await waitFor(() => state.pendingAsk === 'A1');
    // A1's end and A2's creation happen while the stream is down, and the resumed stream skips them.
    client.current = { id: 'A3', status: 'pending', version: 3 };
    client.last.end();
    await waitFor(() => client.streams.length === 2 && client.reads === 2);
    expect(client.last.lastEventId).toBe('1.0');
    await waitFor(() => state.pendingAsk === 'A3');
    expect(state.hasEnded('A1')).toBe(true);
    expect(state.known).toBe(true);
  });

  it('keeps the state across a stream that ends and reopens; unknown only when reopening fails', async () => {
    const client = new RunStreamClient();
    const state = await follow(client);
    client.last.entry('created', 'A1', 1, 0);
    await waitFor(() => state.pendingAsk === 'A1');
    client.current = { id: 'A1', status: 'pending', version: 1 };
    client.reachable = false;
    const changes: boolean[] = [];
    state.onChange(() => changes.push(state.known));
    client.last.fail();
    await waitFor(() => !state.known);
    expect(changes[0]).toBe(false);
    client.reachable = true;
    await waitFor(() => state.known, 2_000);
    expect(state.pendingAsk).toBe('A1');
  });

  it('an askgate that never answers (stream or read) makes the state unknown after openTimeoutMs', async () => {
    const client = new RunStreamClient();
    const state = await follow(client);
    expect(state.known).toBe(true);
    client.hangs = true;
    const t0 = Date.now();
    client.last.end();
    await waitFor(() => !state.known, 2_000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(150);
    client.hangs = false;
    client.runGate = new Promise(() => undefined); // the read never answers now
    await waitFor(() => client.streams.length >= 3 && client.last.aborted, 2_000);
    expect(state.known).toBe(false);
  });

  it('a read that fails after the stream opened leaves it unknown and closes that stream', async () => {
    const client = new RunStreamClient();
    client.current = new Error('503');
    const state = await follow(client);
    expect(state.known).toBe(false);
    expect(client.streams[0]!.aborted).toBe(true);
    client.current = null;
    await waitFor(() => state.known, 2_000);
  });
});

describe('a guard over that state', () => {
  it('close() ends held calls at once, even while the state is unknown', async () => {
    const client = new RunStreamClient();
    const guard = createToolGuard({
      client: {
        ...bind(client),
        get: never,
        recordGuardBlocked: async () => ({ askId: 'A1', recorded: true as const }),
      },
      runId: 'run-1',
      hold: true,
      backoffMs: 5,
    });
    states.push(guard);
    await guard.ready();
    client.last.entry('created', 'A1', 1, 0);
    await new Promise((r) => setTimeout(r, 20)); // the entry is taken
    const held = guard.check('deploy');
    client.reachable = false;
    client.last.fail();
    await waitFor(() => !guard.known);
    guard.close();
    expect(await held).toMatchObject({ run: false, reason: 'state_unknown' });
  });

  it('a call released by an answer waits in turn for a newer ask already open, and its end', async () => {
    const client = new RunStreamClient();
    const results: Record<string, AskResult> = {
      A1: {
        status: 'answered',
        answers: { env: ['Staging'] },
        answeredBy: { channel: 'api', userId: 'a' },
        answeredAt: 'x',
      },
      A2: { status: 'no_answer', reason: 'cancelled', at: 'x' },
    };
    const reads: string[] = [];
    const guard = createToolGuard({
      client: {
        ...bind(client),
        get: async (id: string) => (reads.push(id), { result: results[id] ?? null }) as unknown as AskView,
        recordGuardBlocked: async () => ({ askId: 'A1', recorded: true as const }),
      },
      runId: 'run-1',
      hold: true,
    });
    states.push(guard);
    await guard.ready();
    client.last.entry('created', 'A1', 1, 0);
    await new Promise((r) => setTimeout(r, 20));
    const held = guard.check('deploy');
    client.last.entry('created', 'A2', 2, 0);
    client.last.entry('answered', 'A1', 1, 1);
    await new Promise((r) => setTimeout(r, 20));
    client.last.entry('no_answer', 'A2', 2, 1);
    expect(await held).toMatchObject({ run: false, reason: 'ask_ended', askId: 'A2' });
    const decision = await held;
    expect(decision.run ? '' : decision.message).toContain('it was cancelled');
    expect(reads).toEqual(['A1', 'A2']);
  });

  it('track() counts an ask this process created before the stream shows it', async () => {
    const client = new RunStreamClient();
    const guard = createToolGuard({
      client: {
        ...bind(client),
        get: never,
        recordGuardBlocked: async () => ({ askId: 'A9', recorded: true as const }),
      },
      runId: 'run-1',
    });
    states.push(guard);
    await guard.ready();
    expect(await guard.check('deploy')).toEqual({ run: true });
    guard.track({ id: 'A9', runId: 'other-run', version: 1, status: 'pending' });
    expect(await guard.check('deploy')).toEqual({ run: true });
    guard.track({ id: 'A9', runId: 'run-1', version: 1, status: 'pending' });
    expect(await guard.check('deploy')).toMatchObject({ run: false, reason: 'ask_pending', askId: 'A9' });
  });
});

const bind = (client: RunStreamClient) => ({
  run: client.run.bind(client),
  streamRunEvents: client.streamRunEvents.bind(client),
});
const never = (): never => {
  throw new Error('not expected');
};

describe('what askgate/guard loads', () => {
  it('only its own files at runtime: no server part, no SDK (the client is passed in), no framework', () => {
    const src = resolve(import.meta.dirname, '../../src');
    const files = importClosure(resolve(src, 'guard/index.ts'), 'runtime').map((f) => relative(src, f));
    expect(files.sort()).toEqual(['guard/index.ts', 'guard/messages.ts', 'guard/recorder.ts', 'guard/run-state.ts']);
  });
});
