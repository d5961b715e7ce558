import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { proxyClientV1, proxyEnv, upstreamWithLog } from '../helpers/mcp-proxy.js';
import type { RunningAskgate } from '../../src/main.js';

// `askgate mcp-proxy`'s bounded waits and bad paths (2025-11-25, v1 client on stdio): a pending
// result and await_approval, nobody deciding, a host cancelling, --approve-destructive, and an
// upstream that crashes (an error for the host, never an approval).
const TOKEN = 'mcp-proxy-waits-token-0123456789';
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

type Result = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: any };
const text = (r: Result) => r.content.map((c) => c.text ?? '').join('\n');
const record = async (id: string) => (await api.get(`/v1/asks/${id}`)).body as { status: string; result?: any };

describe('mcp-proxy: pending results, timeouts, cancels (wait 1 s)', () => {
  const upstream = upstreamWithLog();
  let host: Client;
  const call = (name: string, args: Record<string, unknown>, signal?: AbortSignal) =>
    host.callTool({ name, arguments: args }, undefined, signal ? { signal } : undefined) as Promise<Result>;
  beforeAll(async () => {
    host = await proxyClientV1(
      ['--upstream', upstream.command, '--approve', 'send_*', '--wait-seconds', '1', '--run-id', 'proxy-waits'],
      proxyEnv(app.url, TOKEN),
    );
  }, 30_000);
  afterAll(async () => {
    await host?.close();
  });

  it('returns pending with the ask id; a re-send joins it; await_approval returns the upstream result once approved', async () => {
    const args = { to: 'p@example.com', subject: 'later' };
    const first = await call('send_email', args);
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ status: 'pending', askId: expect.any(String) });
    const askId = first.structuredContent.askId as string;
    expect(text(first)).toContain(`Call await_approval with {"askId": "${askId}"}`);
    const ask = (await api.get(`/v1/asks/${askId}`)).body;
    // One run per call (the base run id and the call's hash): parallel approvals never supersede each other.
    expect(ask.runId).toMatch(/^proxy-waits\.[0-9a-f]{16}$/);
    const again = await call('send_email', { ...args });
    expect(again.structuredContent).toMatchObject({ status: 'pending', askId });
    const waiting = await call('await_approval', { askId });
    expect(waiting.structuredContent).toMatchObject({ status: 'pending', askId });
    expect(upstream.calls()).toEqual([]);
    await api.post(`/v1/asks/${askId}/answer`, { decision: 'approve' });
    const done = await eventually(async () => {
      const r = await call('await_approval', { askId });
      return r.structuredContent?.status === 'pending' ? undefined : r;
    });
    expect(done.structuredContent).toEqual({ sent: true, to: args.to });
    // A late follow-up gets the same result, without a second upstream call.
    expect((await call('await_approval', { askId })).structuredContent).toEqual({ sent: true, to: args.to });
    expect(upstream.calls()).toEqual([{ tool: 'send_email', args }]);
  });

  it('parallel approvals of different calls are separate asks that do not supersede each other', async () => {
    const [a, b] = await Promise.all([
      call('send_email', { to: 'x1@example.com', subject: 's' }),
      call('send_email', { to: 'x2@example.com', subject: 's' }),
    ]);
    const [idA, idB] = [a.structuredContent.askId, b.structuredContent.askId];
    expect(idA).not.toBe(idB);
    expect((await record(idA)).status).toBe('pending');
    expect((await record(idB)).status).toBe('pending');
    await api.post(`/v1/asks/${idB}/answer`, { decision: 'approve' });
    await api.post(`/v1/asks/${idA}/answer`, { decision: 'reject', reason: 'wrong person' });
    const rb = await eventually(async () => {
      const r = await call('await_approval', { askId: idB });
      return r.structuredContent?.status === 'pending' ? undefined : r;
    });
    expect(rb.structuredContent).toEqual({ sent: true, to: 'x2@example.com' });
    const ra = await call('await_approval', { askId: idA });
    expect(ra.isError).toBe(true);
    expect(upstream.calls().map((c) => (c.args as any).to)).not.toContain('x1@example.com');
  });

  it('nobody decides before the timeout: a tool error, the upstream never called', async () => {
    const short = await proxyClientV1(
      ['--upstream', upstream.command, '--approve', 'send_email', '--wait-seconds', '5', '--timeout', '1'],
      proxyEnv(app.url, TOKEN),
    );
    try {
      const r = await call('list_files', { dir: '/' });
      expect(r.isError).toBeFalsy();
      const result = (await short.callTool({
        name: 'send_email',
        arguments: { to: 't@example.com', subject: 'too late' },
      })) as Result;
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^Nobody approved this call of send_email \(timeout\); it was not run/);
      expect(result.structuredContent).toEqual({ status: 'no_answer', reason: 'timeout' });
      expect(upstream.calls().filter((c) => (c.args as any).to === 't@example.com')).toEqual([]);
    } finally {
      await short.close();
    }
  });

  it('the host leaving withdraws the questions nobody decided yet', async () => {
    const leaving = await proxyClientV1(
      ['--upstream', upstream.command, '--approve', 'send_email', '--wait-seconds', '1'],
      proxyEnv(app.url, TOKEN),
    );
    const r = (await leaving.callTool({
      name: 'send_email',
      arguments: { to: 'left@example.com', subject: 's' },
    })) as Result;
    const askId = r.structuredContent.askId as string;
    expect((await record(askId)).status).toBe('pending');
    await leaving.close();
    await eventually(async () => (await record(askId)).result?.reason === 'cancelled');
    expect(upstream.calls().filter((c) => (c.args as any).to === 'left@example.com')).toEqual([]);
  });

  it('await_approval with an id this proxy does not know is a tool error', async () => {
    const r = await call('await_approval', { askId: 'AAAAAAAAAAAAAA' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/No pending approval with askId "AAAAAAAAAAAAAA" in this proxy/);
  });

  it('a host cancelling its waiting call withdraws the question: approving it later runs nothing', async () => {
    const long = await proxyClientV1(
      ['--upstream', upstream.command, '--approve', 'send_email', '--wait-seconds', '30'],
      proxyEnv(app.url, TOKEN),
    );
    try {
      const abort = new AbortController();
      const args = { to: 'cancel@example.com', subject: 'never' };
      const waiting = long.callTool({ name: 'send_email', arguments: args }, undefined, { signal: abort.signal });
      const id = await eventually(async () => {
        const list = (await api.get('/v1/asks?limit=200')).body.asks as any[];
        return list.find((a) => a.approval?.arguments?.to === args.to)?.id as string | undefined;
      });
      abort.abort();
      await expect(waiting).rejects.toThrow();
      await eventually(async () => (await record(id)).result?.reason === 'cancelled');
      expect((await api.post(`/v1/asks/${id}/answer`, { decision: 'approve' })).status).toBe(409);
      await new Promise((r) => setTimeout(r, 300));
      expect(upstream.calls().filter((c) => (c.args as any).to === args.to)).toEqual([]);
    } finally {
      await long.close();
    }
  });
});

describe('mcp-proxy --approve-destructive and a crashing upstream', () => {
  const upstream = upstreamWithLog();
  let host: Client;
  beforeAll(async () => {
    host = await proxyClientV1(
      ['--upstream', upstream.command, '--approve-destructive', '--wait-seconds', '1'],
      proxyEnv(app.url, TOKEN),
    );
  }, 30_000);
  afterAll(async () => {
    await host?.close();
  });

  it('gates the tools that may be destructive as MCP defines it (unannotated ones too), not the read-only ones', async () => {
    const { tools } = await host.listTools();
    const gated = tools.filter((t) => t.description?.includes('approved by a person')).map((t) => t.name);
    expect(gated).toEqual(['send_email', 'delete_file', 'fail', 'crash']);
    const listed = (await host.callTool({ name: 'list_files', arguments: { dir: '/srv' } })) as Result;
    expect(text(listed)).toBe('/srv: a.txt b.txt');
    const pending = (await host.callTool({ name: 'delete_file', arguments: { path: '/x' } })) as Result;
    expect(pending.structuredContent).toMatchObject({ status: 'pending' });
  });

  it('an upstream that crashes is an error for the host; later calls are errors too, and no approval is asked', async () => {
    const pending = (await host.callTool({ name: 'crash', arguments: {} })) as Result;
    await api.post(`/v1/asks/${pending.structuredContent.askId}/answer`, { decision: 'approve' });
    const crashed = await eventually(async () => {
      const r = (await host.callTool({
        name: 'await_approval',
        arguments: { askId: pending.structuredContent.askId },
      })) as Result;
      return r.structuredContent?.status === 'pending' ? undefined : r;
    });
    expect(crashed.isError).toBe(true);
    expect(text(crashed)).toMatch(/^A person approved crash, but the upstream MCP server failed/);
    const before = (await api.get('/v1/asks?limit=200')).body.asks.length;
    await expect(
      host.callTool({ name: 'send_email', arguments: { to: 'y@example.com', subject: 's' } }),
    ).rejects.toThrow(/upstream MCP server/);
    await expect(host.callTool({ name: 'list_files', arguments: { dir: '/' } })).rejects.toThrow(/upstream MCP server/);
    expect((await api.get('/v1/asks?limit=200')).body.asks.length).toBe(before);
    expect(upstream.calls().map((c) => c.tool)).toEqual(['list_files', 'crash']);
  });
});

describe('mcp-proxy with askgate out of reach', () => {
  it.each([
    ['refusing connections', false],
    ['accepting but never answering', true],
  ])(
    'askgate %s: a gated call is an error and never runs; others pass through',
    async (_name, hang) => {
      const upstream = upstreamWithLog();
      const held: Socket[] = [];
      const server = createServer((socket) => void held.push(socket));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const { port } = server.address() as AddressInfo;
      if (!hang) await new Promise((r) => server.close(r));
      const host = await proxyClientV1(
        ['--upstream', upstream.command, '--approve', 'send_email', '--wait-seconds', '1'],
        proxyEnv(`http://127.0.0.1:${port}`, TOKEN),
      );
      try {
        const started = Date.now();
        const r = (await host.callTool({
          name: 'send_email',
          arguments: { to: 'z@example.com', subject: 's' },
        })) as Result;
        expect(r.isError).toBe(true);
        expect(text(r)).toMatch(/askgate (could not ask for|did not take the) approval of send_email.*not run/s);
        expect(Date.now() - started).toBeLessThan(15_000);
        expect(text((await host.callTool({ name: 'list_files', arguments: { dir: '/' } })) as Result)).toBe(
          '/: a.txt b.txt',
        );
        expect(upstream.calls().map((c) => c.tool)).toEqual(['list_files']);
      } finally {
        await host.close();
        for (const socket of held) socket.destroy();
        if (hang) await new Promise((r) => server.close(r));
      }
    },
    30_000,
  );
});
