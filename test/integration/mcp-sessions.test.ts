import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { loadConfig } from '../../src/config.js';
import { startAskgate } from '../../src/main.js';
import { client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';

// MCP over Streamable HTTP keeps sessions in memory (~75 KB each): they are bounded
// (ASKGATE_MCP_MAX_SESSIONS), closed when idle (no request open for
// ASKGATE_MCP_SESSION_IDLE_SECONDS; a waiting call or an open event stream is not idle), and
// ended by DELETE /mcp. Driven with the real SDK client and with raw requests.

const TOKEN = 'mcp-sessions-token-0123456789';
let app: RunningAskgate;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp(
    testEnv({
      ASKGATE_API_TOKEN: TOKEN,
      ASKGATE_DEFAULT_TO: 'test:chat-1',
      ASKGATE_MCP_MAX_SESSIONS: '2',
      ASKGATE_MCP_SESSION_IDLE_SECONDS: '1',
    }),
    [new RecordingChannel('test')],
  );
  api = client(app.url, TOKEN);
});

afterAll(async () => {
  await app?.close();
});

const question = {
  id: 'env',
  header: 'Deploy',
  question: 'Where should I deploy?',
  options: [{ label: 'Staging' }, { label: 'Production' }],
};
const auth = { authorization: `Bearer ${TOKEN}` };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Connected {
  mcp: Client;
  transport: StreamableHTTPClientTransport;
  sessionId: string;
}

async function connect(base = app.url): Promise<Connected> {
  const mcp = new Client({ name: 'sessions-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: auth } });
  await mcp.connect(transport);
  return { mcp, transport, sessionId: transport.sessionId! };
}

/** A raw JSON-RPC POST to /mcp (no event stream of its own: a client that only sends requests). */
function post(message: object, sessionId?: string, base = app.url): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      ...auth,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify(message),
  });
}
const initialize = (base?: string) =>
  post(
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    },
    undefined,
    base,
  );
async function rawSession(): Promise<string> {
  const res = await initialize();
  expect(res.status).toBe(200);
  await res.text();
  const id = res.headers.get('mcp-session-id')!;
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, id)).text();
  return id;
}
/** The status of `tools/list` in session `id`: 200 while it lives, 404 once it ended. */
const listStatus = async (id: string) => {
  const res = await post({ jsonrpc: '2.0', id: 9, method: 'tools/list' }, id);
  await res.text();
  return res.status;
};
const pendingAsk = (runId: string) =>
  eventually(async () => {
    const r = await api.get(`/v1/runs/${runId}`);
    return r.body.current?.status === 'pending' ? (r.body.current.id as string) : undefined;
  });
const answer = (id: string) => api.post(`/v1/asks/${id}/answer`, { answers: { env: ['Production'] } });
const call = (c: Connected, runId: string) =>
  c.mcp.callTool({ name: 'ask_user', arguments: { questions: [question], runId } }, undefined, { timeout: 60_000 });

describe('the session cap', () => {
  it('when full, a new session evicts the least recently used one without a call in flight, else initialize gets 503', async () => {
    const a = await connect();
    const b = await connect();
    const callA = call(a, 'cap-a');
    const callB = call(b, 'cap-b');
    const askA = await pendingAsk('cap-a');
    const askB = await pendingAsk('cap-b');

    // Both sessions wait for a person: none can be evicted.
    const refused = await initialize();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.headers.get('mcp-session-id')).toBeNull();
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: expect.stringMatching(/too many MCP sessions \(2\)/) },
      id: null,
    });
    await expect(connect()).rejects.toThrow(/too many MCP sessions/);

    // A's call ends: A is now the least recently used session with nothing in flight.
    await answer(askA);
    expect((await callA).structuredContent).toEqual({
      status: 'answered',
      answers: { env: ['Production'] },
      values: { env: ['Production'] },
    });
    const c = await connect();
    await expect(a.mcp.listTools()).rejects.toThrow(/session not found/);

    // B's waiting call was untouched and still gets its answer.
    await answer(askB);
    expect((await callB).structuredContent).toEqual({
      status: 'answered',
      answers: { env: ['Production'] },
      values: { env: ['Production'] },
    });
    expect((await b.mcp.listTools()).tools.map((t) => t.name)).toEqual([
      'ask_user',
      'await_answer',
      'request_approval',
    ]);
    await b.transport.terminateSession();
    await c.transport.terminateSession();
    await Promise.all([a, b, c].map((x) => x.mcp.close()));
  }, 30_000);
});

describe('sessions per caller', () => {
  it('one address with calls in flight holds at most its share (429 for more); another address still gets a session', async () => {
    // Listening on :: so that 127.0.0.1 (::ffff:127.0.0.1) and ::1 are two callers on one machine.
    const own = await startTestApp(
      testEnv({
        HOST: '::',
        ASKGATE_API_TOKEN: TOKEN,
        ASKGATE_DEFAULT_TO: 'test:chat-1',
        ASKGATE_MCP_MAX_SESSIONS: '3',
        ASKGATE_MCP_MAX_SESSIONS_PER_CALLER: '2',
      }),
      [new RecordingChannel('test')],
    );
    const port = new URL(own.url).port;
    const v4 = `http://127.0.0.1:${port}`;
    const v6 = `http://[::1]:${port}`;
    const ownApi = client(v4, TOKEN);
    const open: Connected[] = [];
    try {
      const [a1, a2] = [await connect(v4), await connect(v4)];
      open.push(a1, a2);
      const calls = [call(a1, 'caller-a1'), call(a2, 'caller-a2')];
      const asks = await Promise.all(
        ['caller-a1', 'caller-a2'].map((run) =>
          eventually(async () => (await ownApi.get(`/v1/runs/${run}`)).body.current?.id as string | undefined),
        ),
      );

      // The third session of the same address: refused, though the table has room.
      await expect(connect(v4)).rejects.toThrow(/too many MCP sessions from this address \(2\)/);
      const refused = await initialize(v4);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect((await refused.json()).error.code).toBe(-32000);

      // Another address takes the place that is left, and works.
      const b = await connect(v6);
      open.push(b);
      expect((await b.mcp.listTools()).tools.map((t) => t.name)).toEqual([
        'ask_user',
        'await_answer',
        'request_approval',
      ]);

      // Once a call of the first address ends, its own idle session makes room for its next one.
      await ownApi.post(`/v1/asks/${asks[0]}/answer`, { answers: { env: ['Production'] } });
      expect((await calls[0]).structuredContent).toMatchObject({ status: 'answered' });
      open.push(await connect(v4));
      await expect(a1.mcp.listTools()).rejects.toThrow(/session not found/);
      expect((await b.mcp.listTools()).tools).toHaveLength(3);
      await ownApi.post(`/v1/asks/${asks[1]}/answer`, { answers: { env: ['Staging'] } });
      expect((await calls[1]).structuredContent).toMatchObject({ status: 'answered' });
    } finally {
      await Promise.all(open.map((c) => c.mcp.close()));
      await own.close();
    }
  }, 30_000);
});

describe('idle sessions', () => {
  it('a session with no request open is closed after the idle time', async () => {
    const id = await rawSession();
    expect(await listStatus(id)).toBe(200);
    // Any request would count as use: look only once, after idle time (1 s) + one sweep (1 s).
    await sleep(2_500);
    expect(await listStatus(id)).toBe(404);
  });

  it('a call in flight is never idle: it outlives the idle time and gets its answer', async () => {
    const id = await rawSession();
    const response = post(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'ask_user', arguments: { questions: [question], runId: 'idle-call' } },
      },
      id,
    );
    const ask = await pendingAsk('idle-call');
    await sleep(2_500);
    await answer(ask);
    const text = await (await response).text();
    expect(text).toContain('"status":"answered"');
    expect(await listStatus(id)).toBe(200);
  }, 15_000);

  it('a connected SDK client (its event stream open) stays; once closed without DELETE, its session ends after the idle time', async () => {
    const d = await connect();
    await sleep(2_500);
    expect(await listStatus(d.sessionId)).toBe(200);
    await d.mcp.close();
    await sleep(2_500);
    expect(await listStatus(d.sessionId)).toBe(404);
  }, 15_000);
});

describe('the injected clock', () => {
  it('session idle times are read from StartOptions.clock: a stopped clock never idles a session', async () => {
    const stopped = Date.now();
    const own = await startAskgate(
      loadConfig(testEnv({ ASKGATE_API_TOKEN: TOKEN, ASKGATE_MCP_SESSION_IDLE_SECONDS: '1' })),
      { channels: [new RecordingChannel('test')], clock: { now: () => stopped } },
    );
    try {
      const mcp = new Client({ name: 'clock-test', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${own.url}/mcp`), {
        requestInit: { headers: auth },
      });
      await mcp.connect(transport);
      const id = transport.sessionId!;
      await mcp.close();
      // On the system clock this session ends after 1 s + one sweep (see "idle sessions" above).
      await sleep(2_500);
      const res = await fetch(`${own.url}/mcp`, {
        method: 'POST',
        headers: {
          ...auth,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': id,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
      await res.text();
      expect(res.status).toBe(200);
    } finally {
      await own.close();
    }
  }, 15_000);
});

describe('DELETE /mcp', () => {
  it("ends the session (the SDK's terminateSession): its waiting ask is cancelled and its slot is free at once", async () => {
    const e = await connect();
    const f = await connect();
    const callE = call(e, 'delete-e').catch((error: unknown) => error);
    const callF = call(f, 'delete-f');
    const askE = await pendingAsk('delete-e');
    const askF = await pendingAsk('delete-f');
    expect((await initialize()).status).toBe(503);

    await e.transport.terminateSession();
    expect(await listStatus(e.sessionId)).toBe(404);
    const ended = await eventually(async () => {
      const r = await api.get(`/v1/asks/${askE}`);
      return r.body.status !== 'pending' && r.body;
    });
    expect(ended.result).toMatchObject({ status: 'no_answer', reason: 'cancelled' });
    // The ended session answers nothing more: closing the client settles its call.
    await e.mcp.close();
    await callE;

    // The freed slot takes a new session without evicting F, whose call still waits.
    const g = await rawSession();
    expect(await listStatus(f.sessionId)).toBe(200);
    await answer(askF);
    expect((await callF).structuredContent).toEqual({
      status: 'answered',
      answers: { env: ['Production'] },
      values: { env: ['Production'] },
    });
    expect(await listStatus(g)).toBe(200);
    await f.transport.terminateSession();
    await f.mcp.close();
  }, 30_000);

  it('a DELETE for an unknown or already ended session is 404', async () => {
    const res = await fetch(`${app.url}/mcp`, {
      method: 'DELETE',
      headers: { ...auth, 'mcp-session-id': '00000000-0000-0000-0000-000000000000' },
    });
    expect(res.status).toBe(404);
  });
});

describe('shutting down with a call in flight', () => {
  it('closes at once: the ask stays open in the store and the call gets a tool error saying so', async () => {
    // Memory mode: before the fix the waiting call spun on the stopped long polls and close never returned.
    const own = await startTestApp(testEnv({ ASKGATE_DEFAULT_TO: 'test:chat-1' }), [new RecordingChannel('test')]);
    const mcp = new Client({ name: 'shutdown-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${own.url}/mcp`)));
    const pending = mcp.callTool({ name: 'ask_user', arguments: { questions: [question], runId: 'shutdown-run' } });
    const id = await eventually(
      async () => (await client(own.url).get('/v1/runs/shutdown-run')).body.current?.id as string | undefined,
    );
    const started = Date.now();
    await own.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await own.store.get(id))?.status).toBe('pending');
    const result = await pending;
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toContain(`askgate is shutting down; ask ${id} stays open`);
    await mcp.close();
  }, 15_000);
});
