import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPLOY_QUESTION, startMcpTestApp } from '../helpers/mcp-app.js';
import { client, eventually } from '../helpers/http.js';
import type { RunningAskgate } from '../../src/main.js';

// The Tasks extension (io.modelcontextprotocol/tasks) of MCP 2026-07-28, over Streamable HTTP and
// stdio. Driven with raw requests: the v2 client 2.4.0 refuses `resultType: "task"` (it does not
// implement the extension); mcp-v2.test.ts shows it sees the extension advertised.
const ROOT = resolve(import.meta.dirname, '../..');
const TOKEN = 'mcp-tasks-test-token-0123456789';
const WAIT_SECONDS = 1;
const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';

let app: RunningAskgate;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  ({ app, api } = await startMcpTestApp(TOKEN, { ASKGATE_MCP_WAIT_SECONDS: String(WAIT_SECONDS) }));
});

afterAll(async () => {
  await app?.close();
});

const question = DEPLOY_QUESTION;
const record = async (id: string) =>
  (await api.get(`/v1/asks/${id}`)).body as { status: string; runId: string; expiresAt: string; result?: unknown };
describe('the Tasks extension (raw 2026-07-28 requests to /mcp)', () => {
  let nextId = 1;
  const envelope = (tasks: boolean) => ({
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [TASKS]: {} } } : {},
  });
  /** One JSON-RPC request; resolves with its `result` or `error`. */
  const rpc = async (method: string, params: Record<string, unknown>, tasks = true) => {
    const nameHeader = method === 'tools/call' ? params.name : params.taskId;
    const res = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': method,
        ...(typeof nameHeader === 'string' ? { 'mcp-name': nameHeader } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: envelope(tasks) } }),
    });
    const body = res.headers.get('content-type')?.includes('event-stream')
      ? JSON.parse(
          (await res.text())
            .split('\n')
            .find((l) => l.startsWith('data: '))!
            .slice(6),
        )
      : await res.json();
    expect(res.headers.get('mcp-session-id')).toBeNull();
    return body as { result?: Record<string, any>; error?: { code: number; message: string; data?: unknown } };
  };
  const askUser = (args: Record<string, unknown>, tasks = true) =>
    rpc('tools/call', { name: 'ask_user', arguments: { questions: [question], ...args } }, tasks);

  it('ask_user returns a task at once (task id = ask id); tasks/get is working until the answer, then the result', async () => {
    const { result } = await askUser({ runId: `task-${Date.now()}` });
    // A task, not the bounded wait's pending result: the call did not wait.
    expect(result).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: 5000 });
    const taskId = result!.taskId as string;
    const ask = await record(taskId);
    expect(ask.status).toBe('pending');
    expect(result!.ttlMs).toBe(Date.parse(ask.expiresAt) - Date.parse(result!.createdAt));

    const working = await rpc('tasks/get', { taskId });
    expect(working.result).toMatchObject({ resultType: 'complete', taskId, status: 'working' });
    expect(working.result).not.toHaveProperty('result');

    expect((await api.post(`/v1/asks/${taskId}/answer`, { answers: { env: ['Staging (Recommended)'] } })).status).toBe(
      200,
    );
    const done = await rpc('tasks/get', { taskId });
    expect(done.result).toMatchObject({ resultType: 'complete', taskId, status: 'completed' });
    expect(done.result!.result.structuredContent).toEqual({
      status: 'answered',
      answers: { env: ['Staging (Recommended)'] },
      values: { env: ['Staging (Recommended)'] },
    });
    expect(done.result!.result.content[0].text).toContain('Deploy (env): Staging (Recommended)');
  });

  it('tasks/cancel cancels the ask; a timed-out ask completes with no_answer', async () => {
    const { result } = await askUser({ runId: `task-cancel-${Date.now()}` });
    const taskId = result!.taskId as string;
    expect((await rpc('tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' });
    expect((await record(taskId)).result).toMatchObject({ status: 'no_answer', reason: 'cancelled' });
    expect((await rpc('tasks/get', { taskId })).result).toMatchObject({ status: 'cancelled' });
    // Cancelling again is acknowledged (the ask already ended).
    expect((await rpc('tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' });

    const timed = (await askUser({ runId: `task-timeout-${Date.now()}`, timeoutSeconds: 1 })).result!.taskId as string;
    const ended = await eventually(async () => {
      const r = await rpc('tasks/get', { taskId: timed });
      return r.result?.status !== 'working' && r.result;
    });
    expect(ended).toMatchObject({ status: 'completed' });
    expect(ended.result.structuredContent).toEqual({ status: 'no_answer', reason: 'timeout' });
  });

  it('unknown and hostile task ids are -32602; invalid arguments are a tool error, not a task', async () => {
    for (const taskId of ['AAAAAAAAAAAAAA', '__proto__', 'x'.repeat(150), '<script>']) {
      expect((await rpc('tasks/get', { taskId })).error?.code).toBe(-32602);
      expect((await rpc('tasks/cancel', { taskId })).error?.code).toBe(-32602);
    }
    const bad = await rpc('tools/call', { name: 'ask_user', arguments: { questions: [], runId: 'task-bad' } });
    expect(bad.result?.resultType).not.toBe('task');
    expect(bad.result?.isError).toBe(true);
  });

  it('a task is a durable way back: its ask may wait 7 days (async); a call without tasks stays within the hour', async () => {
    const week = 7 * 86_400;
    const { result } = await askUser({ runId: `task-week-${Date.now()}`, timeoutSeconds: week });
    const ask = (await api.get(`/v1/asks/${result!.taskId}`)).body;
    expect(ask).toMatchObject({ async: true, timeoutSeconds: week });
    expect(result!.ttlMs).toBe(week * 1000);
    const bounded = await askUser({ runId: `call-week-${Date.now()}`, timeoutSeconds: week }, false);
    const askId = bounded.result!.structuredContent.askId as string;
    expect((await api.get(`/v1/asks/${askId}`)).body).toMatchObject({ timeoutSeconds: 3600 });
    expect((await api.get(`/v1/asks/${askId}`)).body).not.toHaveProperty('async');
    const at = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const until = await askUser({ runId: `task-at-${Date.now()}`, expiresAt: at });
    expect((await api.get(`/v1/asks/${until.result!.taskId}`)).body.expiresAt).toBe(at);
  });

  it('a client that does not declare the extension gets the bounded wait, and -32021 on tasks/*', async () => {
    const { result } = await askUser({ runId: `no-task-${Date.now()}` }, false);
    expect(result).toMatchObject({ resultType: 'complete', structuredContent: { status: 'pending' } });
    const askId = result!.structuredContent.askId as string;
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const refused = await rpc(method, { taskId: askId }, false);
      expect(refused.error).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
      });
    }
    expect((await record(askId)).status).toBe('pending');
  });
});

describe('the Tasks extension over stdio (raw 2026-07-28 lines to askgate mcp)', () => {
  it('ask_user returns a task; tasks/get follows the ask; tasks/cancel cancels it', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'mcp'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        ASKGATE_URL: app.url,
        ASKGATE_API_TOKEN: TOKEN,
        ASKGATE_DEFAULT_TO: 'test:chat-1',
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const replies = new Map<number, (m: Record<string, any>) => void>();
    createInterface({ input: child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as { id?: number };
      if (typeof message.id === 'number') replies.get(message.id)?.(message);
    });
    let nextId = 1;
    const rpc = (method: string, params: Record<string, unknown>) =>
      new Promise<Record<string, any>>((done) => {
        const id = nextId++;
        replies.set(id, done);
        const _meta = {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
        };
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } })}\n`);
      });
    try {
      const discovered = await rpc('server/discover', {});
      expect(discovered.result.supportedVersions).toContain(MODERN);
      expect(discovered.result.capabilities.extensions).toEqual({ [TASKS]: {} });
      const created = await rpc('tools/call', { name: 'ask_user', arguments: { questions: [question] } });
      expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
      const taskId = created.result.taskId as string;
      expect((await record(taskId)).status).toBe('pending');
      expect((await rpc('tasks/get', { taskId })).result).toMatchObject({ status: 'working' });
      expect((await api.post(`/v1/asks/${taskId}/answer`, { answers: { env: ['Production'] } })).status).toBe(200);
      const done = await rpc('tasks/get', { taskId });
      expect(done.result).toMatchObject({ status: 'completed' });
      expect(done.result.result.structuredContent).toEqual({
        status: 'answered',
        answers: { env: ['Production'] },
        values: { env: ['Production'] },
      });

      const second = (await rpc('tools/call', { name: 'ask_user', arguments: { questions: [question] } })).result;
      expect((await rpc('tasks/cancel', { taskId: second.taskId })).result).toMatchObject({ resultType: 'complete' });
      expect((await record(second.taskId)).result).toMatchObject({ status: 'no_answer', reason: 'cancelled' });
      expect((await rpc('tasks/get', { taskId: 'AAAAAAAAAAAAAA' })).error.code).toBe(-32602);
    } finally {
      child.stdin.end();
      await new Promise((r) => child.once('exit', r));
    }
  }, 30_000);
});
