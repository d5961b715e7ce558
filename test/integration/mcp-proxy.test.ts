import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { proxyClientV1, proxyEnv, upstreamWithLog } from '../helpers/mcp-proxy.js';
import { actionHash } from '../../src/client/index.js';
import type { RunningAskgate } from '../../src/main.js';

// `askgate mcp-proxy` (issue 37): a real askgate, the fake upstream (v1 SDK server, a child process
// of the proxy), the proxy as a child process, the host the real v1 client (MCP 2025-11-25) on
// stdio; people answer through the chat fake (RecordingChannel) or the API.
const TOKEN = 'mcp-proxy-test-token-0123456789';
const channel = new RecordingChannel('test');
let app: RunningAskgate;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp(testEnv({ ASKGATE_API_TOKEN: TOKEN, ASKGATE_DEFAULT_TO: 'test:chat-1' }), [channel]);
  api = client(app.url, TOKEN);
});
afterAll(async () => {
  await app?.close();
});

type Result = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: any };
const text = (r: Result) => r.content.map((c) => c.text ?? '').join('\n');
const alice = { channel: 'test', userId: 'u1', name: 'Alice' };

/** The pending approval ask of `action` with these arguments, once askgate has it. */
const askOf = (action: string, args: Record<string, unknown>) =>
  eventually(async () => {
    const list = (await api.get('/v1/asks?limit=200')).body as { asks: { id: string; approval?: any }[] };
    return list.asks.find((a) => a.approval?.action === action && a.approval.actionHash === actionHash(action, args));
  });

describe.each([
  ['waits within the call', '5'],
  ['returns pending, then await_approval', '1'],
])('mcp-proxy on stdio, 2025-11-25 (%s)', (_name, waitSeconds) => {
  const upstream = upstreamWithLog();
  let host: Client;
  const call = (name: string, args: Record<string, unknown>) =>
    host.callTool({ name, arguments: args }) as Promise<Result>;
  /** Calls and, if pending, follows with await_approval until it ends. */
  const settle = async (first: Result): Promise<Result> => {
    let r = first;
    while (r.structuredContent?.status === 'pending' && !r.isError)
      r = (await call('await_approval', { askId: r.structuredContent.askId })) as Result;
    return r;
  };
  beforeAll(async () => {
    host = await proxyClientV1(
      [
        '--upstream',
        upstream.command,
        '--approve',
        'send_email',
        '--approve',
        'delete_*',
        '--wait-seconds',
        waitSeconds,
      ],
      proxyEnv(app.url, TOKEN, { FAKE_UPSTREAM_VAR: 'seen' }),
    );
  }, 30_000);
  afterAll(async () => {
    await host?.close();
  });

  it('lists the upstream tools, the gated ones noted and without outputSchema, plus await_approval', async () => {
    const { tools } = await host.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'echo',
      'send_email',
      'delete_file',
      'list_files',
      'fail',
      'crash',
      'notify',
      'await_approval',
    ]);
    const echo = tools[0]!;
    expect(echo.description).toBe('Echoes the text back.');
    expect(echo.outputSchema?.properties).toHaveProperty('echoed');
    const email = tools[1]!;
    expect(email.description).toMatch(
      /^Sends an email\.\nSecond line of the description\.\n\n\(Each call is approved by a person/,
    );
    expect(email.outputSchema).toBeUndefined();
    expect(email.inputSchema.required).toEqual(['to', 'subject']);
  });

  it('passes a non-gated call through unchanged, with no ask', async () => {
    const before = (await api.get('/v1/asks?limit=200')).body.asks.length;
    const r = await call('echo', { text: 'hi' });
    expect(r).toEqual({ content: [{ type: 'text', text: 'hi' }], structuredContent: { echoed: 'hi' } });
    expect((await api.get('/v1/asks?limit=200')).body.asks.length).toBe(before);
    const failed = await call('fail', {});
    expect(failed).toEqual({ content: [{ type: 'text', text: 'it failed' }], isError: true });
  });

  it("passes the upstream's notifications through: a call's progress, a tool list change, a log message", async () => {
    const changed = new Promise<void>((resolve) =>
      host.setNotificationHandler(ToolListChangedNotificationSchema, async () => resolve()),
    );
    const logged = new Promise<unknown>((resolve) =>
      host.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => resolve(n.params)),
    );
    const progress: unknown[] = [];
    const r = await host.callTool({ name: 'notify', arguments: {} }, undefined, {
      onprogress: (p) => void progress.push(p),
    });
    expect(r.content).toEqual([{ type: 'text', text: 'notified' }]);
    await changed;
    expect(await logged).toEqual({ level: 'info', logger: 'fake', data: 'notified the host' });
    expect(progress).toEqual([{ progress: 1, total: 2, message: 'half way' }]);
  });

  it('passes resources, prompts and completions through', async () => {
    expect((await host.listResources()).resources.map((r) => r.uri)).toEqual(['notes://readme']);
    expect((await host.readResource({ uri: 'notes://readme' })).contents).toEqual([
      { uri: 'notes://readme', text: 'read me first' },
    ]);
    expect((await host.readResource({ uri: 'notes://todo' })).contents[0]).toMatchObject({ text: 'note todo' });
    // The upstream gets the host's environment for it, never askgate's token.
    expect((await host.readResource({ uri: 'notes://env' })).contents[0]).toMatchObject({
      text: 'FAKE_UPSTREAM_VAR=seen; ASKGATE_API_TOKEN absent',
    });
    expect((await host.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'notes://{name}',
    ]);
    expect((await host.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet']);
    const prompt = await host.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Say hello to Ada.' });
    const completed = await host.complete({
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'name', value: 'A' },
    });
    expect(completed.completion.values).toEqual(['Ada', 'Alan']);
  });

  it('approve (a tap in the chat): the upstream is called once with the original arguments', async () => {
    const args = { to: `a${waitSeconds}@example.com`, subject: 'Q3 report' };
    const pending = call('send_email', args);
    const ask = await askOf('send_email', args);
    expect(ask.approval).toMatchObject({
      arguments: args,
      summary: 'Sends an email.',
      decisions: ['approve', 'reject', 'request_changes', 'edit'],
    });
    const delivered = await eventually(async () => channel.delivered.find((d) => d.askId === ask.id));
    expect(upstream.calls().filter((c) => c.tool === 'send_email')).toEqual([]);
    await channel.sink!.button({
      channel: 'test',
      chat: 'chat-1',
      token: delivered.view.buttons![0]!.token,
      user: alice,
    });
    const result = await settle(await pending);
    expect(result).toEqual({
      content: [{ type: 'text', text: `sent to ${args.to}` }],
      structuredContent: { sent: true, to: args.to },
    });
    expect(upstream.calls().filter((c) => c.tool === 'send_email')).toEqual([{ tool: 'send_email', args }]);
  });

  it('edit: the upstream runs the edited arguments; an edit against the inputSchema is refused at answer time', async () => {
    const args = { to: `b${waitSeconds}@example.com`, subject: 'draft' };
    const pending = call('send_email', args);
    const ask = await askOf('send_email', args);
    const bad = await api.post(`/v1/asks/${ask.id}/answer`, {
      decision: 'edit',
      arguments: { to: 'b@example.com', subject: 'x'.repeat(101) },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/schema/);
    const edited = { to: `b${waitSeconds}@example.com`, subject: 'final', body: 'see attached' };
    expect((await api.post(`/v1/asks/${ask.id}/answer`, { decision: 'edit', arguments: edited })).status).toBe(200);
    const result = await settle(await pending);
    expect(result.structuredContent).toEqual({ sent: true, to: edited.to });
    expect(upstream.calls().filter((c) => (c.args as any).to === edited.to)).toEqual([
      { tool: 'send_email', args: edited },
    ]);
  });

  it('reject (a reply in the chat) and request_changes: a tool error with the reason; the upstream is not called', async () => {
    const args = { path: `/tmp/r${waitSeconds}` };
    const pending = call('delete_file', args);
    await askOf('delete_file', args);
    await channel.sink!.text({
      channel: 'test',
      chat: 'chat-1',
      privateChat: true,
      user: alice,
      text: 'reject: keep it for the audit',
    });
    const rejected = await settle(await pending);
    expect(rejected.isError).toBe(true);
    expect(text(rejected)).toMatch(
      /rejected this call of delete_file; it was not run\. The person said: "keep it for the audit"/,
    );
    expect(rejected.structuredContent).toMatchObject({ decision: 'reject', reason: 'keep it for the audit' });

    const other = { path: `/tmp/c${waitSeconds}` };
    const changes = call('delete_file', other);
    const ask = await askOf('delete_file', other);
    await api.post(`/v1/asks/${ask.id}/answer`, { decision: 'request_changes', reason: 'only the logs folder' });
    const result = await settle(await changes);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/asked for changes.*"only the logs folder"/s);
    expect(upstream.calls().filter((c) => c.tool === 'delete_file')).toEqual([]);
  });

  it('arguments the tool would refuse (against its inputSchema) are an error before any ask', async () => {
    const before = (await api.get('/v1/asks?limit=200')).body.asks.length;
    const r = await call('send_email', { to: 'x@example.com', subject: 'y'.repeat(101) });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^Invalid arguments for send_email \(subject must NOT have more than 100 characters\)/);
    const missing = await call('send_email', { to: 'x@example.com' });
    expect(text(missing)).toMatch(/must have required property 'subject'/);
    expect((await api.get('/v1/asks?limit=200')).body.asks.length).toBe(before);
  });

  it('a re-send of the same call joins the same approval: one ask, one upstream call', async () => {
    const args = { to: `c${waitSeconds}@example.com`, subject: 'once' };
    const first = call('send_email', args);
    const ask = await askOf('send_email', args);
    const second = call('send_email', { subject: 'once', to: args.to }); // same arguments, other key order
    await new Promise((r) => setTimeout(r, 300));
    const asks = (await api.get('/v1/asks?limit=200')).body.asks.filter(
      (a: any) => a.approval?.arguments?.to === args.to,
    );
    expect(asks.map((a: any) => a.id)).toEqual([ask.id]);
    await api.post(`/v1/asks/${ask.id}/answer`, { decision: 'approve' });
    const [a, b] = await Promise.all([settle(await first), settle(await second)]);
    expect(a.structuredContent).toEqual({ sent: true, to: args.to });
    expect(b.structuredContent).toEqual({ sent: true, to: args.to });
    expect(upstream.calls().filter((c) => (c.args as any).to === args.to)).toHaveLength(1);
    // After the result was returned, the same call again is a new approval.
    const again = call('send_email', args);
    const next = await eventually(async () => {
      const found = await askOf('send_email', args);
      return found.id !== ask.id ? found : undefined;
    });
    expect((await api.post(`/v1/asks/${next.id}/answer`, { decision: 'reject', reason: 'sent already' })).status).toBe(
      200,
    );
    expect((await settle(await again)).isError).toBe(true);
    expect(upstream.calls().filter((c) => (c.args as any).to === args.to)).toHaveLength(1);
  });
});
