import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { ROOT, proxyClientV1, proxyEnv, upstreamWithLog } from '../helpers/mcp-proxy.js';
import type { RunningAskgate } from '../../src/main.js';

// `askgate mcp-proxy` for 2026-07-28 hosts (the real v2 client, pinned), the Tasks extension (raw
// lines: the v2 client 2.4.0 does not implement it), an upstream over Streamable HTTP, and the
// proxy itself over Streamable HTTP (--listen) to both clients.
const TOKEN = 'mcp-proxy-v2-token-0123456789';
const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
let app: RunningAskgate;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp(testEnv({ ASKGATE_API_TOKEN: TOKEN, ASKGATE_DEFAULT_TO: 'test:chat-1' }), [
    new RecordingChannel('test'),
  ]);
  api = client(app.url, TOKEN);
});
afterAll(async () => {
  await app?.close();
});

type Result = { isError?: boolean; content: unknown[]; structuredContent?: any };
const proxyArgs = (upstream: string[]) => ['--approve', 'send_email', '--wait-seconds', '1', ...upstream];
const pinned = () =>
  new Client({ name: 'v2-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });

/** Lists, passes a call through, and runs one approval (pending, then await_approval) on any host. */
async function exercise(
  host: {
    callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
    listTools(): Promise<any>;
  },
  calls: () => { tool: string; args: unknown }[],
  to: string,
) {
  const { tools } = await host.listTools();
  expect(tools.map((t: { name: string }) => t.name)).toEqual([
    'echo',
    'send_email',
    'delete_file',
    'list_files',
    'fail',
    'crash',
    'notify',
    'await_approval',
  ]);
  const echo = (await host.callTool({ name: 'echo', arguments: { text: 'hey' } })) as Result;
  expect(echo.structuredContent).toEqual({ echoed: 'hey' });
  const args = { to, subject: 'hello' };
  const pending = (await host.callTool({ name: 'send_email', arguments: args })) as Result;
  expect(pending.structuredContent).toMatchObject({ status: 'pending' });
  const askId = pending.structuredContent.askId as string;
  expect(calls().filter((c) => c.tool === 'send_email')).toEqual([]);
  await api.post(`/v1/asks/${askId}/answer`, { decision: 'approve' });
  const done = await eventually(async () => {
    const r = (await host.callTool({ name: 'await_approval', arguments: { askId } })) as Result;
    return r.structuredContent?.status === 'pending' ? undefined : r;
  });
  expect(done.structuredContent).toEqual({ sent: true, to });
  expect(calls().filter((c) => c.tool === 'send_email')).toEqual([{ tool: 'send_email', args }]);
}

describe('2026-07-28 on stdio (the v2 client)', () => {
  it('serves the upstream and gates its calls like the 2025 era', async () => {
    const upstream = upstreamWithLog();
    const host = pinned();
    await host.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', 'src/cli.ts', 'mcp-proxy', ...proxyArgs(['--upstream', upstream.command])],
        cwd: ROOT,
        env: proxyEnv(app.url, TOKEN),
        stderr: 'inherit',
      }),
    );
    try {
      await exercise(host, upstream.calls, 'v2@example.com');
      const read = await host.readResource({ uri: 'notes://readme' });
      expect(read.contents).toEqual([{ uri: 'notes://readme', text: 'read me first' }]);
    } finally {
      await host.close();
    }
  }, 30_000);
});

describe('the Tasks extension (raw 2026-07-28 lines on stdio)', () => {
  it('a gated call is a task (task id = ask id) whose result is the upstream result after approval, run once', async () => {
    const upstream = upstreamWithLog();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'mcp-proxy', ...proxyArgs(['--upstream', upstream.command])],
      {
        cwd: ROOT,
        env: proxyEnv(app.url, TOKEN),
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    const replies = new Map<number, (m: Record<string, any>) => void>();
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const message = JSON.parse(line) as { id?: number };
      if (typeof message.id === 'number') replies.get(message.id)?.(message);
    });
    let nextId = 1;
    const rpc = (method: string, params: Record<string, unknown>, tasks = true) =>
      new Promise<Record<string, any>>((done) => {
        const id = nextId++;
        replies.set(id, done);
        const _meta = {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [TASKS]: {} } } : {},
        };
        child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } })}\n`);
      });
    const args = { to: 'task@example.com', subject: 'as a task' };
    try {
      const discovered = await rpc('server/discover', {});
      expect(discovered.result.capabilities.extensions).toEqual({ [TASKS]: {} });
      const created = await rpc('tools/call', { name: 'send_email', arguments: args });
      expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
      const taskId = created.result.taskId as string;
      expect((await api.get(`/v1/asks/${taskId}`)).body.approval).toMatchObject({
        action: 'send_email',
        arguments: args,
      });
      // The same call again joins the same task.
      expect((await rpc('tools/call', { name: 'send_email', arguments: { ...args } })).result.taskId).toBe(taskId);
      expect((await rpc('tasks/get', { taskId })).result).toMatchObject({ status: 'working' });
      expect(upstream.calls()).toEqual([]);
      await api.post(`/v1/asks/${taskId}/answer`, { decision: 'approve' });
      const done = await eventually(async () => {
        const r = await rpc('tasks/get', { taskId });
        return r.result.status === 'completed' ? r.result : undefined;
      });
      expect(done.result.structuredContent).toEqual({ sent: true, to: args.to });
      expect((await rpc('tasks/get', { taskId })).result.result.structuredContent).toEqual({ sent: true, to: args.to });
      expect(upstream.calls()).toEqual([{ tool: 'send_email', args }]);

      const other = await rpc('tools/call', { name: 'send_email', arguments: { to: 'no@example.com', subject: 'x' } });
      const otherId = other.result.taskId as string;
      expect((await rpc('tasks/cancel', { taskId: otherId })).result).toBeDefined();
      expect((await api.get(`/v1/asks/${otherId}`)).body.result).toMatchObject({
        status: 'no_answer',
        reason: 'cancelled',
      });
      const cancelled = await eventually(async () => {
        const r = await rpc('tasks/get', { taskId: otherId });
        return r.result.status === 'working' ? undefined : r.result;
      });
      expect(cancelled.status).toBe('cancelled');
      expect((await rpc('tasks/get', { taskId: 'AAAAAAAAAAAAAA' })).error.code).toBe(-32602);
      // Without the extension declared: the bounded wait's pending result instead of a task.
      const plain = await rpc(
        'tools/call',
        { name: 'send_email', arguments: { to: 'p2@example.com', subject: 'x' } },
        false,
      );
      expect(plain.result.structuredContent).toMatchObject({ status: 'pending' });
      expect(upstream.calls()).toHaveLength(1);
    } finally {
      child.stdin!.end();
      await new Promise((r) => child.once('exit', r));
    }
  }, 30_000);
});

/** Starts a child and resolves with the first match of `pattern` in its output. */
function started(child: ChildProcess, pattern: RegExp, stream: 'stdout' | 'stderr'): Promise<string> {
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not started:\n${out}`)), 20_000);
    child[stream]!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
}

describe('over Streamable HTTP', () => {
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children) {
      child.kill('SIGTERM');
      if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
    }
  });

  it('an upstream over Streamable HTTP (--upstream-url) is served and gated the same', async () => {
    const upstream = upstreamWithLog();
    const server = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/fakes/mcp-upstream.ts', '--http', '0', '--log', upstream.log, '--token', 'up-secret'],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    children.push(server);
    const url = await started(server, /fake upstream on (\S+)/, 'stdout');
    const host = await proxyClientV1(
      proxyArgs(['--upstream-url', url, '--upstream-header', 'Authorization: Bearer up-secret']),
      proxyEnv(app.url, TOKEN),
    );
    try {
      await exercise(host, upstream.calls, 'http-up@example.com');
      // The HTTP upstream goes down: an error for the host, for a gated call too (nobody is asked).
      server.kill('SIGKILL');
      await new Promise((r) => server.once('exit', r));
      const before = (await api.get('/v1/asks?limit=200')).body.asks.length;
      await expect(host.callTool({ name: 'echo', arguments: { text: 'x' } })).rejects.toThrow(/upstream MCP server/);
      await expect(
        host.callTool({ name: 'send_email', arguments: { to: 'down@example.com', subject: 's' } }),
      ).rejects.toThrow(/upstream MCP server/);
      expect((await api.get('/v1/asks?limit=200')).body.asks.length).toBe(before);
    } finally {
      await host.close();
    }
  }, 30_000);

  it('--listen serves the proxy at /mcp to the v1 (2025-11-25) and v2 (2026-07-28) clients', async () => {
    const upstream = upstreamWithLog();
    const proxy = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'mcp-proxy', ...proxyArgs(['--upstream', upstream.command, '--listen', '0'])],
      { cwd: ROOT, env: proxyEnv(app.url, TOKEN), stdio: ['ignore', 'inherit', 'pipe'] },
    );
    children.push(proxy);
    const url = await started(proxy, /askgate mcp-proxy listening on (\S+)/, 'stderr');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const v1 = new ClientV1({ name: 'v1-host', version: '1.0.0' });
    await v1.connect(new HttpV1(new URL(url)));
    try {
      await exercise(v1, upstream.calls, 'listen-v1@example.com');
    } finally {
      await v1.close();
    }
    const v2 = pinned();
    await v2.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      await exercise(
        v2,
        () => upstream.calls().filter((c) => (c.args as any).to !== 'listen-v1@example.com'),
        'listen-v2@example.com',
      );
    } finally {
      await v2.close();
    }
    // A request naming another Host (DNS rebinding) is refused on the loopback listener.
    const foreign = await new Promise<number>((resolve, reject) => {
      const req = request(
        url,
        { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.once('error', reject);
      req.end('{}');
    });
    expect(foreign).toBe(403);
  }, 40_000);

  it('with ASKGATE_MCP_PROXY_TOKEN every request needs it as a bearer token', async () => {
    const upstream = upstreamWithLog();
    const token = 'proxy-listen-token-0123456789';
    const proxy = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'mcp-proxy', ...proxyArgs(['--upstream', upstream.command, '--listen', '0'])],
      {
        cwd: ROOT,
        env: proxyEnv(app.url, TOKEN, { ASKGATE_MCP_PROXY_TOKEN: token }),
        stdio: ['ignore', 'inherit', 'pipe'],
      },
    );
    children.push(proxy);
    const url = await started(proxy, /askgate mcp-proxy listening on (\S+)/, 'stderr');
    const anonymous = new ClientV1({ name: 'anonymous', version: '1.0.0' });
    await expect(anonymous.connect(new HttpV1(new URL(url)))).rejects.toThrow(/Error POSTing to endpoint/);
    const wrong = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer nope' }, body: '{}' });
    expect(wrong.status).toBe(401);
    const host = new ClientV1({ name: 'with-token', version: '1.0.0' });
    await host.connect(new HttpV1(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      const echo = (await host.callTool({ name: 'echo', arguments: { text: 'ok' } })) as Result;
      expect(echo.structuredContent).toEqual({ echoed: 'ok' });
    } finally {
      await host.close();
    }
  }, 30_000);
});
