import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import type { RunningAskgate } from '../../src/main.js';
import { startMcpTestApp } from '../helpers/mcp-app.js';
import { client, eventually } from '../helpers/http.js';

// `ask_user` takes questions as POST /v1/asks does: `id` and `header` may be left out, and an id
// left out is q1, q2, … by position (AskRequestSchema's default). Both eras: 2025-11-25 (v1 SDK,
// sessions) and 2026-07-28 (v2 SDK, stateless), through each era's real client.

const TOKEN = 'mcp-defaults-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
let app: RunningAskgate;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  ({ app, api } = await startMcpTestApp(TOKEN, { ASKGATE_MCP_WAIT_SECONDS: '30' }));
});

afterAll(async () => {
  await app?.close();
});

/** Two questions, neither with an id nor a header. */
const bare = [
  { question: 'Where should I deploy?', options: [{ label: 'Staging' }, { label: 'Production' }] },
  { question: 'Run the migrations?', options: [{ label: 'Yes' }, { label: 'No' }] },
];

interface Connected {
  listTools(): Promise<{ tools: { name: string; inputSchema: unknown }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

async function v1(): Promise<Connected> {
  const mcp = new ClientV1({ name: 'defaults-v1', version: '1.0.0' });
  await mcp.connect(new TransportV1(new URL(`${app.url}/mcp`), { requestInit: { headers: auth } }));
  return mcp as unknown as Connected;
}

async function v2(): Promise<Connected> {
  const mcp = new ClientV2(
    { name: 'defaults-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await mcp.connect(new TransportV2(new URL(`${app.url}/mcp`), { requestInit: { headers: auth } }));
  return mcp as unknown as Connected;
}

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; content: { text: string }[] };

describe.each([
  ['2025-11-25 (v1 SDK client)', v1],
  ['2026-07-28 (v2 SDK client)', v2],
])('ask_user without question ids and headers, %s', (era, connect) => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connect();
  });
  afterAll(async () => {
    await mcp?.close();
  });

  it('the input schema the client sees requires only the question text per question (a choice needs options: askgate says so)', async () => {
    const { tools } = await mcp.listTools();
    const input = tools.find((t) => t.name === 'ask_user')!.inputSchema as {
      properties: { questions: { items: { required: string[]; properties: Record<string, unknown> } } };
    };
    const item = input.properties.questions.items;
    expect(item.required).toEqual(['question']);
    expect(item.properties).toHaveProperty('id');
    expect(item.properties).toHaveProperty('header');
  });

  it('asks with ids q1, q2 and no headers, and the answer comes back under those ids', async () => {
    const runId = `defaults-${era.slice(0, 4)}`;
    const call = mcp.callTool({ name: 'ask_user', arguments: { questions: bare, runId } }) as Promise<ToolResult>;
    const ask = await eventually(async () => {
      const r = await api.get(`/v1/runs/${runId}`);
      return r.body.current?.status === 'pending' ? r.body.current : undefined;
    });
    expect(ask.questions.map((q: { id: string; header?: string }) => [q.id, q.header])).toEqual([
      ['q1', undefined],
      ['q2', undefined],
    ]);
    const answered = await api.post(`/v1/asks/${ask.id}/answer`, { answers: { q1: ['Production'], q2: ['No'] } });
    expect(answered.status).toBe(200);
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      status: 'answered',
      answers: { q1: ['Production'], q2: ['No'] },
      values: { q1: ['Production'], q2: ['No'] },
    });
    expect(result.content[0]!.text).toContain('- q1 (q1): Production');
    expect(result.content[0]!.text).toContain('- q2 (q2): No');
  }, 20_000);

  it('ids given for some questions only: the others are named by their position, as on POST /v1/asks', async () => {
    const runId = `defaults-mixed-${era.slice(0, 4)}`;
    const call = mcp.callTool({
      name: 'ask_user',
      arguments: { questions: [bare[0], { ...bare[1], id: 'migrate', header: 'Migrate' }], runId },
    }) as Promise<ToolResult>;
    const ask = await eventually(async () => (await api.get(`/v1/runs/${runId}`)).body.current);
    expect(ask.questions.map((q: { id: string; header?: string }) => [q.id, q.header])).toEqual([
      ['q1', undefined],
      ['migrate', 'Migrate'],
    ]);
    await api.post(`/v1/asks/${ask.id}/answer`, { answers: { q1: ['Staging'], migrate: ['Yes'] } });
    expect((await call).structuredContent).toEqual({
      status: 'answered',
      answers: { q1: ['Staging'], migrate: ['Yes'] },
      values: { q1: ['Staging'], migrate: ['Yes'] },
    });
  }, 20_000);
});
