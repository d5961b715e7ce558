import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { startMcpTestApp } from '../helpers/mcp-app.js';
import { client, eventually } from '../helpers/http.js';
import { actionHash, assertApproved, type AskResult } from '../../src/client/index.js';
import type { RunningAskgate } from '../../src/main.js';

// The `request_approval` tool (issue 36) with the real v1 client (2025-11-25, sessions; on /mcp and
// through `askgate mcp` on stdio) and the real v2 client (2026-07-28): the decision comes back with
// the arguments to run and both hashes; a decision still pending continues with `await_answer`; the
// Tasks extension returns a task. Decisions are made through the API (the chats are issue 36's
// channel work); `assertApproved` accepts what the tool returned.
const ROOT = resolve(import.meta.dirname, '../..');
const TOKEN = 'mcp-approvals-token-0123456789';
const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';

/** `waiting`: the default bounded wait (decisions land within the call); `brief`: 1 s, so calls return pending. */
let waiting: { app: RunningAskgate; api: ReturnType<typeof client> };
let brief: { app: RunningAskgate; api: ReturnType<typeof client> };

beforeAll(async () => {
  waiting = await startMcpTestApp(TOKEN, {});
  brief = await startMcpTestApp(TOKEN, { ASKGATE_MCP_WAIT_SECONDS: '1' });
});

afterAll(async () => {
  await waiting?.app.close();
  await brief?.app.close();
});

const email = {
  action: 'send_email',
  arguments: { to: 'finance@example.com', subject: 'Q3 report', attach: ['q3.pdf'] },
  summary: 'Send the Q3 report to finance',
  decisions: ['approve', 'reject', 'request_changes', 'edit'],
  argumentsSchema: { type: 'object', required: ['to', 'subject'] },
};
const proposed = actionHash(email.action, email.arguments);

type ToolResult = { isError?: boolean; structuredContent?: Record<string, any>; content: { text: string }[] };
interface Connected {
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  tools(): Promise<{ name: string; description?: string; inputSchema: any; outputSchema?: any }[]>;
  close(): Promise<void>;
}
const headers = { authorization: `Bearer ${TOKEN}` };

async function v1(url: string): Promise<Connected> {
  const mcp = new ClientV1({ name: 'approvals-v1', version: '1.0.0' });
  await mcp.connect(new TransportV1(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return {
    call: async (name, args) => (await mcp.callTool({ name, arguments: args })) as ToolResult,
    tools: async () => (await mcp.listTools()).tools,
    close: () => mcp.close(),
  };
}

async function stdio(url: string): Promise<Connected> {
  const mcp = new ClientV1({ name: 'approvals-stdio', version: '1.0.0' });
  await mcp.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/cli.ts', 'mcp'],
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ASKGATE_URL: url, ASKGATE_API_TOKEN: TOKEN, ASKGATE_MCP_WAIT_SECONDS: '1' },
      stderr: 'pipe',
    }),
  );
  return {
    call: async (name, args) => (await mcp.callTool({ name, arguments: args })) as ToolResult,
    tools: async () => (await mcp.listTools()).tools,
    close: () => mcp.close(),
  };
}

async function v2(url: string): Promise<Connected> {
  const mcp = new ClientV2(
    { name: 'approvals-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  await mcp.connect(new TransportV2(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return {
    call: async (name, args) => (await mcp.callTool({ name, arguments: args })) as ToolResult,
    tools: async () => (await mcp.listTools()).tools as any,
    close: () => mcp.close(),
  };
}

/** The pending ask of a run once askgate holds it. */
const pendingAsk = (api: ReturnType<typeof client>, runId: string) =>
  eventually(async () => {
    const ask = (await api.get(`/v1/runs/${runId}`)).body.current;
    return ask?.status === 'pending' ? (ask as { id: string; approval: { actionHash: string } }) : undefined;
  });

describe.each([
  ['v1 SDK (2025-11-25)', v1],
  ['v2 SDK (2026-07-28)', v2],
])('request_approval over %s', (sdk, connect) => {
  let c: Connected;
  let slow: Connected;
  let runs = 0;
  const run = () => `mcp-approval-${sdk.slice(0, 2)}-${++runs}`;
  beforeAll(async () => {
    c = await connect(waiting.app.url);
    slow = await connect(brief.app.url);
  }, 30_000);
  afterAll(async () => {
    await c?.close();
    await slow?.close();
  });

  it('is listed with its fields described and the decision in the output schema', async () => {
    const tools = await c.tools();
    expect(tools.map((t) => t.name)).toEqual(['ask_user', 'await_answer', 'request_approval']);
    const tool = tools.find((t) => t.name === 'request_approval')!;
    expect(tool.description).toContain('effectiveHash');
    for (const field of ['action', 'arguments', 'summary', 'preview', 'decisions', 'argumentsSchema', 'to', 'runId'])
      expect(tool.inputSchema.properties[field]?.description, field).toMatch(/\w{4,}/);
    expect(tool.inputSchema.required).toEqual(['action', 'arguments']);
    for (const field of ['decision', 'reason', 'arguments', 'actionHash', 'effectiveHash'])
      expect(tool.outputSchema.properties).toHaveProperty(field);
  });

  it('approve: the decision, the arguments and both hashes come back within the call', async () => {
    const runId = run();
    const call = c.call('request_approval', { ...email, runId });
    const ask = await pendingAsk(waiting.api, runId);
    expect(ask.approval.actionHash).toBe(proposed);
    await waiting.api.post(`/v1/asks/${ask.id}/answer`, { decision: 'approve', by: 'alice' });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      status: 'answered',
      answers: {},
      decision: 'approve',
      arguments: email.arguments,
      actionHash: proposed,
      effectiveHash: proposed,
    });
    expect(result.content[0]!.text).toMatch(
      /^Approved: run the action with exactly the arguments you proposed\. \(#[0-9a-f]{8}\)$/,
    );
    const released = assertApproved(result.structuredContent as AskResult, email.action, email.arguments);
    expect(released).toEqual(email.arguments);
  });

  it('reject and edit: the reason reaches the model; an edit hands back the arguments to run', async () => {
    const rejectRun = run();
    const rejecting = c.call('request_approval', { ...email, runId: rejectRun });
    const first = await pendingAsk(waiting.api, rejectRun);
    await waiting.api.post(`/v1/asks/${first.id}/answer`, { decision: 'reject', reason: 'not before the audit' });
    const rejected = await rejecting;
    expect(rejected.structuredContent).toMatchObject({ decision: 'reject', reason: 'not before the audit' });
    expect(rejected.content[0]!.text).toContain('Rejected: do not run the action.');
    expect(rejected.content[0]!.text).toContain('"not before the audit"');

    const editRun = run();
    const editing = c.call('request_approval', { ...email, runId: editRun });
    const second = await pendingAsk(waiting.api, editRun);
    const edited = { ...email.arguments, to: 'cfo@example.com' };
    await waiting.api.post(`/v1/asks/${second.id}/answer`, { decision: 'edit', arguments: edited });
    const result = await editing;
    expect(result.structuredContent).toMatchObject({
      decision: 'edit',
      arguments: edited,
      actionHash: proposed,
      effectiveHash: actionHash(email.action, edited),
    });
    expect(result.content[0]!.text).toContain(`Arguments to run: ${JSON.stringify(edited)}`);
  });

  it('pending: await_answer continues an approval and returns its decision', async () => {
    const runId = run();
    const first = await slow.call('request_approval', { ...email, runId });
    expect(first.structuredContent).toMatchObject({ status: 'pending' });
    const askId = first.structuredContent!.askId as string;
    await brief.api.post(`/v1/asks/${askId}/answer`, { decision: 'request_changes', reason: 'attach the CSV too' });
    const result = await slow.call('await_answer', { askId });
    expect(result.structuredContent).toMatchObject({
      status: 'answered',
      decision: 'request_changes',
      reason: 'attach the CSV too',
    });
    expect(result.content[0]!.text).toContain('Changes requested: do not run the action');
  });

  it('an invalid approval is a tool error naming the field', async () => {
    const result = await c.call('request_approval', { ...email, decisions: ['reject'], runId: run() });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(
      /^Invalid request_approval arguments: approval\.decisions: must offer approve/,
    );
  });
});

describe('request_approval through askgate mcp (stdio, v1 SDK, over the HTTP API)', () => {
  it('returns pending, and await_answer the decision; a timeout is no_answer with the stated decision', async () => {
    const c = await stdio(brief.app.url);
    try {
      const runId = `mcp-approval-stdio-${Date.now()}`;
      const first = await c.call('request_approval', { ...email, runId });
      const askId = first.structuredContent!.askId as string;
      expect(first.structuredContent).toMatchObject({ status: 'pending', askId });
      await brief.api.post(`/v1/asks/${askId}/answer`, { decision: 'approve', by: 'bob' });
      const result = await c.call('await_answer', { askId });
      expect(result.structuredContent).toMatchObject({ decision: 'approve', effectiveHash: proposed });

      const timed = await c.call('request_approval', {
        ...email,
        runId: `${runId}-t`,
        timeoutSeconds: 1,
        onTimeout: { decision: 'reject' },
      });
      // The ask times out within the call or a later await_answer, whichever is waiting then.
      const ended = await eventually(async () => {
        if (timed.structuredContent!.status !== 'pending') return timed;
        const r = await c.call('await_answer', { askId: timed.structuredContent!.askId });
        return r.structuredContent!.status === 'no_answer' ? r : undefined;
      });
      expect(ended.structuredContent).toEqual({ status: 'no_answer', reason: 'timeout', decision: 'reject' });
      expect(ended.content[0]!.text).toContain('Do not run the action: nobody approved it.');
    } finally {
      await c.close();
    }
  }, 30_000);
});

describe('request_approval with the Tasks extension (raw 2026-07-28 requests)', () => {
  let nextId = 1;
  const rpc = async (method: string, params: Record<string, unknown>) => {
    const nameHeader = method === 'tools/call' ? params.name : params.taskId;
    const res = await fetch(`${waiting.app.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': method,
        ...(typeof nameHeader === 'string' ? { 'mcp-name': nameHeader } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: nextId++,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
          },
        },
      }),
    });
    const text = await res.text();
    const data = text.includes('data: ')
      ? text
          .split('\n')
          .find((l) => l.startsWith('data: '))!
          .slice(6)
      : text;
    return JSON.parse(data) as { result?: Record<string, any>; error?: { code: number } };
  };

  it('returns a task at once; tasks/get completes with the decision', async () => {
    const { result } = await rpc('tools/call', {
      name: 'request_approval',
      arguments: { ...email, runId: `mcp-approval-task-${Date.now()}` },
    });
    expect(result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = result!.taskId as string;
    expect((await rpc('tasks/get', { taskId })).result).toMatchObject({ status: 'working' });
    await waiting.api.post(`/v1/asks/${taskId}/answer`, { decision: 'approve' });
    const done = await rpc('tasks/get', { taskId });
    expect(done.result).toMatchObject({ status: 'completed', statusMessage: 'The user answered' });
    expect(done.result!.result.structuredContent).toMatchObject({
      status: 'answered',
      decision: 'approve',
      arguments: email.arguments,
      effectiveHash: proposed,
    });
  });
});
