import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import type { RunningAskgate } from '../../src/main.js';

const ROOT = resolve(import.meta.dirname, '../..');
const TOKEN = 'mcp-test-token-0123456789';

let app: RunningAskgate;
let api: ReturnType<typeof client>;
const channel = new RecordingChannel('test');

beforeAll(async () => {
  // Memory mode: MCP adds nothing Redis-specific (it runs on the same gateway as /v1).
  app = await startTestApp(
    testEnv({ ASKGATE_API_TOKEN: TOKEN, ASKGATE_DEFAULT_TO: 'test:chat-1', ASKGATE_MCP_PROGRESS_MS: '100' }),
    [channel],
  );
  api = client(app.url, TOKEN);
});

afterAll(async () => {
  await app?.close();
});

const question = (extra: Record<string, unknown> = {}) => ({
  id: 'env',
  header: 'Deploy',
  question: 'Where should I deploy?',
  options: [{ label: 'Staging (Recommended)', description: 'safe' }, { label: 'Production' }],
  ...extra,
});

interface Connected {
  mcp: Client;
  /** The runId this session's asks get by default. */
  runId: () => Promise<string>;
  close(): Promise<void>;
}

async function httpClient(): Promise<Connected> {
  const mcp = new Client({ name: 'test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
  });
  await mcp.connect(transport);
  return { mcp, runId: async () => transport.sessionId!, close: () => mcp.close() };
}

async function stdioClient(): Promise<Connected> {
  const mcp = new Client({ name: 'test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/cli.ts', 'mcp'],
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      ASKGATE_URL: app.url,
      ASKGATE_API_TOKEN: TOKEN,
      ASKGATE_DEFAULT_TO: 'test:chat-1',
      ASKGATE_MCP_PROGRESS_MS: '100',
    },
    stderr: 'pipe',
  });
  await mcp.connect(transport);
  // One generated runId per process (`mcp-...`; HTTP sessions use their UUID): learn it from its first ask.
  let seen: string | undefined;
  return {
    mcp,
    runId: async () =>
      (seen ??= await eventually(
        async () => (await app.store.recent(50)).find((r) => r.runId.startsWith('mcp-'))?.runId,
      )),
    close: () => mcp.close(),
  };
}

/** The id of the pending ask of a run, once it exists. */
const pendingAsk = (runId: string) =>
  eventually(async () => {
    const r = await api.get(`/v1/runs/${runId}`);
    return r.body.current?.status === 'pending' ? (r.body.current.id as string) : undefined;
  });

describe.each([
  ['Streamable HTTP at /mcp', httpClient],
  ['stdio (askgate mcp)', stdioClient],
])('MCP over %s', (_name, connect) => {
  let c: Connected;
  beforeAll(async () => {
    c = await connect();
  }, 30_000);
  afterAll(async () => {
    await c?.close();
  });

  it('lists ask_user with the OpenClaw input shape and an output schema, and await_answer', async () => {
    const { tools } = await c.mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual(['ask_user', 'await_answer', 'request_approval']);
    expect(Object.keys(tools[1]!.inputSchema.properties ?? {})).toEqual(['askId']);
    const tool = tools[0]!;
    expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual([
      'agree',
      'escalate',
      'expiresAt',
      'locale',
      'onTimeout',
      'questions',
      'remindAfterSeconds',
      'remindEverySeconds',
      'runId',
      'timeZone',
      'timeoutSeconds',
      'to',
    ]);
    expect(tool.inputSchema.required).toEqual(['questions']);
    expect(tool.description).toContain('(Recommended)');
    expect(tool.description).toMatch(/secrets/);
    expect(tool.outputSchema?.properties).toHaveProperty('status');
  });

  it('calls ask_user, reports progress while waiting, and returns answered once the answer arrives through the API', async () => {
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const call = c.mcp.callTool({ name: 'ask_user', arguments: { questions: [question()] } }, undefined, {
      onprogress: (p) => void progress.push(p),
      resetTimeoutOnProgress: true,
    });
    const runId = await c.runId();
    const id = await pendingAsk(runId);
    await eventually(async () => progress.length >= 3);
    const answered = await api.post(`/v1/asks/${id}/answer`, { answers: { env: ['production'] }, by: 'ops' });
    expect(answered.status).toBe(200);
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      status: 'answered',
      answers: { env: ['Production'] },
      values: { env: ['Production'] },
    });
    expect((result.content as { type: string; text: string }[])[0]!.text).toContain('Deploy (env): Production');
    // The default target and the session runId were used.
    const record = (await api.get(`/v1/asks/${id}`)).body;
    expect(record.to).toMatchObject({ channel: 'test', chat: 'chat-1' });
    expect(record.runId).toBe(runId);
    expect(progress[0]!.message).toContain('test:chat-1');
    expect(progress.every((p) => p.total === 900)).toBe(true);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
  });

  it.each([
    [{ questions: [question({ options: [{ label: 'Only one' }] })] }, 'questions.0.options'],
    [{ questions: [question({ options: [{ label: 'Same' }, { label: 'same' }] })] }, 'questions.0.options.1.label'],
    [{ questions: [question({ id: 'Not Snake' })] }, 'questions.0.id'],
    [{ questions: [] }, 'questions'],
    [{ questions: [question()], to: 'nowhere' }, 'to'],
    [{ questions: [question()], to: 'slack:C1' }, 'to.channel'],
    [{ questions: [question()], locale: 'en_US' }, 'locale'],
    [{ questions: [question()], timeZone: 'Mars/Base' }, 'timeZone'],
  ])('invalid arguments are a tool error naming the field (%#)', async (args, field) => {
    const result = await c.mcp.callTool({ name: 'ask_user', arguments: args });
    expect(result.isError).toBe(true);
    // The SDK checks the schema first ("... at questions[0].options"); askgate's own rules follow ("questions.0.options.1.label: ...").
    expect((result.content as { text: string }[])[0]!.text.replace(/\[(\d+)\]/g, '.$1')).toContain(field);
  });

  it('cancelling the tool call cancels the ask', async () => {
    const abort = new AbortController();
    const call = c.mcp.callTool({ name: 'ask_user', arguments: { questions: [question()] } }, undefined, {
      signal: abort.signal,
    });
    const id = await pendingAsk(await c.runId());
    abort.abort();
    await expect(call).rejects.toThrow();
    const ended = await eventually(async () => {
      const r = await api.get(`/v1/asks/${id}`);
      return r.body.status !== 'pending' && r.body;
    });
    expect(ended.result).toMatchObject({ status: 'no_answer', reason: 'cancelled' });
  });

  it('a timeout returns no_answer/timeout; the ask kept its locale and time zone', async () => {
    const runId = `timeout-${Date.now()}`;
    const result = await c.mcp.callTool({
      name: 'ask_user',
      arguments: { questions: [question()], timeoutSeconds: 1, runId, locale: 'pt-BR', timeZone: 'America/Sao_Paulo' },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ status: 'no_answer', reason: 'timeout' });
    expect((result.content as { text: string }[])[0]!.text).toMatch(/best judgment/);
    const run = (await api.get(`/v1/runs/${runId}`)).body;
    expect(run.current).toMatchObject({ locale: 'pt-BR', timeZone: 'America/Sao_Paulo' });
  });
});

describe.each([
  ['closing the stdio client', stdioClient, (c: Connected) => c.close()],
  [
    'DELETE /mcp (ending the HTTP session)',
    httpClient,
    async (c: Connected) => (c.mcp.transport as StreamableHTTPClientTransport).terminateSession(),
  ],
])('%s', (_name, connect, end) => {
  it('cancels the asks still waiting', async () => {
    const c = await connect();
    const runId = `end-${Date.now()}`;
    const call = c.mcp
      .callTool({ name: 'ask_user', arguments: { questions: [question()], runId } })
      .catch((e: unknown) => e);
    const id = await pendingAsk(runId);
    await end(c);
    const ended = await eventually(async () => {
      const r = await api.get(`/v1/asks/${id}`);
      return r.body.status !== 'pending' && r.body;
    });
    expect(ended.result).toMatchObject({ status: 'no_answer', reason: 'cancelled' });
    await c.close();
    await call;
  });
});

describe('the /mcp route', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const post = (headers: Record<string, string>) =>
    fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(initialize),
    });

  it('needs the same bearer token as /v1', async () => {
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: 'Bearer wrong-token-wrong-token' })).status).toBe(401);
    const ok = await post({ authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
    await ok.body?.cancel();
  });

  it('refuses browser requests from another origin and unknown sessions', async () => {
    expect((await post({ authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' })).status).toBe(403);
    const unknown = await fetch(`${app.url}/mcp`, {
      method: 'GET',
      headers: { authorization: `Bearer ${TOKEN}`, 'mcp-session-id': 'nope', accept: 'text/event-stream' },
    });
    expect(unknown.status).toBe(404);
  });

  it('the event routes need the token too', async () => {
    expect((await fetch(`${app.url}/v1/asks/AAAAAAAAAAAAAA/events`)).status).toBe(401);
  });
});
