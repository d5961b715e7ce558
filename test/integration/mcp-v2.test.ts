import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startTestApp, testEnv } from '../helpers/app.js';
import { DEPLOY_QUESTION, startMcpTestApp } from '../helpers/mcp-app.js';
import { client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import type { RunningAskgate } from '../../src/main.js';

// MCP 2026-07-28 (stateless: server/discover, a `_meta` envelope on every request) on the v2 SDK,
// next to 2025-11-25 (mcp.test.ts, mcp-wait.test.ts): the real v2 client, pinned to 2026-07-28,
// over Streamable HTTP at /mcp and over stdio (`askgate mcp`). The Tasks extension: mcp-tasks.test.ts.
const ROOT = resolve(import.meta.dirname, '../..');
const TOKEN = 'mcp-v2-test-token-0123456789';
const WAIT_SECONDS = 1;
const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';

let app: RunningAskgate;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  ({ app, api } = await startMcpTestApp(TOKEN, {
    ASKGATE_MCP_PROGRESS_MS: '100',
    ASKGATE_MCP_WAIT_SECONDS: String(WAIT_SECONDS),
  }));
});

afterAll(async () => {
  await app?.close();
});

const question = DEPLOY_QUESTION;
const pinned = () =>
  new Client({ name: 'v2-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });

async function httpClient(): Promise<Client> {
  const mcp = pinned();
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  return mcp;
}

async function stdioClient(): Promise<Client> {
  const mcp = pinned();
  await mcp.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/cli.ts', 'mcp'],
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        ASKGATE_URL: app.url,
        ASKGATE_API_TOKEN: TOKEN,
        ASKGATE_DEFAULT_TO: 'test:chat-1',
        ASKGATE_MCP_PROGRESS_MS: '100',
        ASKGATE_MCP_WAIT_SECONDS: String(WAIT_SECONDS),
      },
      stderr: 'pipe',
    }),
  );
  return mcp;
}

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; content: unknown };
const text = (r: ToolResult) => (r.content as { text: string }[])[0]!.text;
const record = async (id: string) =>
  (await api.get(`/v1/asks/${id}`)).body as { status: string; runId: string; expiresAt: string; result?: unknown };

describe.each([
  ['Streamable HTTP at /mcp', httpClient],
  ['stdio (askgate mcp)', stdioClient],
])('the v2 client pinned to 2026-07-28 over %s', (name, connect) => {
  let mcp: Client;
  beforeAll(async () => {
    mcp = await connect();
  }, 30_000);
  afterAll(async () => {
    await mcp?.close();
  });
  const call = (tool: string, args: Record<string, unknown>, signal?: AbortSignal) =>
    mcp.callTool({ name: tool, arguments: args }, signal ? { signal } : undefined) as Promise<ToolResult>;

  it('connects with server/discover: 2026-07-28, the tools, and the Tasks extension advertised', async () => {
    expect(mcp.getProtocolEra()).toBe('modern');
    expect(mcp.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(mcp.getServerCapabilities()?.extensions).toEqual({ [TASKS]: {} });
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual(['ask_user', 'await_answer', 'request_approval']);
    expect(tools[0]!.inputSchema.required).toEqual(['questions']);
    expect(tools[0]!.outputSchema?.properties).toHaveProperty('status');
  });

  it('ask_user returns pending within the wait; an answer after several pending rounds is delivered', async () => {
    const started = Date.now();
    const first = await call('ask_user', { questions: [question] });
    expect(Date.now() - started).toBeLessThan(WAIT_SECONDS * 1000 + 1500);
    const askId = first.structuredContent!.askId as string;
    const open = await record(askId);
    expect(first.structuredContent).toEqual({ status: 'pending', askId, expiresAt: open.expiresAt });
    expect(open.status).toBe('pending');
    // No session: the default runId is the call's own (HTTP) or the process's (stdio).
    expect(open.runId).toMatch(/^mcp-/);
    const second = await call('ask_user', { questions: [question] });
    const other = await record(second.structuredContent!.askId as string);
    if (name.startsWith('stdio')) expect(other.runId).toBe(open.runId);
    else expect(other.runId).not.toBe(open.runId);
    if (name.startsWith('stdio')) expect((await record(askId)).result).toMatchObject({ reason: 'superseded' });
    else expect((await record(askId)).status).toBe('pending');
    const asked = name.startsWith('stdio') ? (second.structuredContent!.askId as string) : askId;

    for (let round = 0; round < 2; round++)
      expect((await call('await_answer', { askId: asked })).structuredContent?.status).toBe('pending');
    const last = call('await_answer', { askId: asked });
    await sleep(300);
    expect((await api.post(`/v1/asks/${asked}/answer`, { answers: { env: ['Production'] } })).status).toBe(200);
    const answered = await last;
    expect(answered.isError).toBeFalsy();
    expect(answered.structuredContent).toEqual({
      status: 'answered',
      answers: { env: ['Production'] },
      values: { env: ['Production'] },
    });
    expect(text(answered)).toContain('Deploy (env): Production');
  }, 20_000);

  it('reports progress while the call waits (an event stream on HTTP)', async () => {
    const progress: { progress: number; message?: string }[] = [];
    const result = (await mcp.callTool(
      { name: 'ask_user', arguments: { questions: [question], runId: `v2-progress-${name.length}` } },
      { onprogress: (p) => void progress.push(p) },
    )) as ToolResult;
    expect(result.structuredContent?.status).toBe('pending');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[0]!.message).toContain('test:chat-1');
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
    expect((await api.post(`/v1/asks/${result.structuredContent!.askId}/cancel`, {})).status).toBe(200);
  });

  it('cancelling a waiting call cancels its ask', async () => {
    const runId = `v2-cancel-${name.length}-${Date.now()}`;
    const abort = new AbortController();
    const waiting = call('ask_user', { questions: [question], runId }, abort.signal);
    const id = await eventually(
      async () => (await api.get(`/v1/runs/${runId}`)).body.current?.id as string | undefined,
    );
    abort.abort();
    await expect(waiting).rejects.toThrow();
    const ended = await eventually(async () => {
      const r = await record(id);
      return r.status !== 'pending' && r;
    });
    expect(ended.result).toMatchObject({ status: 'no_answer', reason: 'cancelled' });
  });

  it('invalid arguments and hostile ids are tool errors naming the field', async () => {
    const bad = await call('ask_user', {
      questions: [{ ...question, options: [{ label: 'Same' }, { label: 'same' }] }],
    });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('questions.0.options.1.label');
    const badLocale = await call('ask_user', { questions: [question], locale: 'en_US' });
    expect(badLocale.isError).toBe(true);
    expect(text(badLocale)).toMatch(/locale: must be a BCP 47 language tag/);
    const hostile = await call('await_answer', { askId: '../../__proto__' });
    expect(hostile.isError).toBe(true);
    expect(text(hostile)).toMatch(/askId/);
    const unknown = await call('await_answer', { askId: 'AAAAAAAAAAAAAA' });
    expect(text(unknown)).toMatch(/no ask with id "AAAAAAAAAAAAAA"/);
  });
});

describe('/mcp serves both eras at once', () => {
  it('a 2026-07-28 request naming an unknown revision is refused by the v2 SDK, and creates no session', async () => {
    const res = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2099-01-01',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2099-01-01',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const body = (await res.json()) as { error?: { code: number } };
    expect(body.error?.code).toBe(-32022);
    expect(res.headers.get('mcp-session-id')).toBeNull();
  });

  it('shutting down with a 2026-07-28 call in flight: the ask stays open and the call gets a tool error saying so', async () => {
    const own = await startTestApp(testEnv({ ASKGATE_DEFAULT_TO: 'test:chat-1' }), [new RecordingChannel('test')]);
    const mcp = pinned();
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${own.url}/mcp`)));
    const pending = mcp.callTool({ name: 'ask_user', arguments: { questions: [question], runId: 'v2-shutdown' } });
    const id = await eventually(
      async () => (await client(own.url).get('/v1/runs/v2-shutdown')).body.current?.id as string | undefined,
    );
    await own.close();
    expect((await own.store.get(id))?.status).toBe('pending');
    const result = (await pending) as ToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(`askgate is shutting down; ask ${id} stays open`);
    await mcp.close();
  }, 15_000);
});
