import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolve } from 'node:path';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import type { Responder } from '../../src/core/schemas.js';
import { AskUserInputShape } from '../../src/mcp/tool.js';
import type { RunningAskgate } from '../../src/main.js';

// The ask policies (issue 16) through the MCP `ask_user` tool: several targets, reminders,
// escalation, a default on timeout and agreement, with the real v1 client (2025-11-25, sessions)
// and the real v2 client (2026-07-28, stateless) against /mcp, answered on the test channels.
const TOKEN = 'mcp-policies-token-0123456789';

let app: RunningAskgate;
let api: ReturnType<typeof client>;
const test = new RecordingChannel('test');
const other = new RecordingChannel('other');

beforeAll(async () => {
  app = await startTestApp(testEnv({ ASKGATE_API_TOKEN: TOKEN, ASKGATE_DEFAULT_TO: 'test:chat-1' }), [test, other]);
  api = client(app.url, TOKEN);
});

afterAll(async () => {
  await app?.close();
});

const question = {
  id: 'env',
  header: 'Deploy',
  question: 'Where should I deploy?',
  options: [{ label: 'Staging (Recommended)' }, { label: 'Production' }],
};
const person = (channel: string, userId: string, name?: string): Responder => ({
  channel,
  userId,
  ...(name ? { name } : {}),
});

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; content: unknown };
interface Connected {
  call(args: Record<string, unknown>): Promise<ToolResult>;
  tools(): Promise<{ name: string; inputSchema: any; outputSchema?: any }[]>;
  close(): Promise<void>;
}
const headers = { authorization: `Bearer ${TOKEN}` };

async function v1(): Promise<Connected> {
  const mcp = new ClientV1({ name: 'policies-v1', version: '1.0.0' });
  await mcp.connect(new TransportV1(new URL(`${app.url}/mcp`), { requestInit: { headers } }));
  return {
    call: async (args) => (await mcp.callTool({ name: 'ask_user', arguments: args })) as ToolResult,
    tools: async () => (await mcp.listTools()).tools,
    close: () => mcp.close(),
  };
}

/** `askgate mcp` (v1 SDK on stdio), asking through the HTTP API: results cross the SDK's HTTP calls. */
async function stdio(): Promise<Connected> {
  const mcp = new ClientV1({ name: 'policies-stdio', version: '1.0.0' });
  await mcp.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/cli.ts', 'mcp'],
      cwd: resolve(import.meta.dirname, '../..'),
      env: { PATH: process.env.PATH ?? '', ASKGATE_URL: app.url, ASKGATE_API_TOKEN: TOKEN },
      stderr: 'pipe',
    }),
  );
  return {
    call: async (args) => (await mcp.callTool({ name: 'ask_user', arguments: args })) as ToolResult,
    tools: async () => (await mcp.listTools()).tools,
    close: () => mcp.close(),
  };
}

async function v2(): Promise<Connected> {
  const mcp = new ClientV2(
    { name: 'policies-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await mcp.connect(new TransportV2(new URL(`${app.url}/mcp`), { requestInit: { headers } }));
  return {
    call: async (args) => (await mcp.callTool({ name: 'ask_user', arguments: args })) as ToolResult,
    tools: async () => (await mcp.listTools()).tools as any,
    close: () => mcp.close(),
  };
}

const text = (r: ToolResult) => (r.content as { text: string }[])[0]!.text;

/** The pending ask of a run once every one of its `count` deliveries was sent. */
const sentAsk = (runId: string, count: number) =>
  eventually(async () => {
    const r = await api.get(`/v1/runs/${runId}`);
    const ask = r.body.current;
    return ask?.status === 'pending' &&
      ask.deliveries.length === count &&
      ask.deliveries.every((d: any) => d.status === 'sent')
      ? (ask as { id: string; deliveries: { channel: string; chat: string }[] })
      : undefined;
  });

/** Taps option `i` of the message delivered for `askId` in `chat` on `channel`, as `user`. */
const tap = (channel: RecordingChannel, askId: string, chat: string, i: number, user: Responder) => {
  const delivered = channel.delivered.find((d) => d.askId === askId && d.target.chat === chat)!;
  return channel.sink!.button({ channel: channel.name, token: delivered.view.buttons![i]!.token, user, chat });
};

describe.each([
  ['v1 SDK (2025-11-25)', v1],
  ['v2 SDK (2026-07-28)', v2],
  ['stdio (askgate mcp, v1 SDK)', stdio],
])('ask_user policies over %s', (sdk, connect) => {
  let c: Connected;
  let runs = 0;
  const run = (name: string) => `mcp-pol-${name}-${sdk.slice(0, 2)}-${++runs}`;
  beforeAll(async () => {
    c = await connect();
  }, 30_000);
  afterAll(async () => {
    await c?.close();
  });

  it('lists the policy fields, each described, and defaults/responses in the output schema', async () => {
    const tool = (await c.tools()).find((t) => t.name === 'ask_user')!;
    const props = tool.inputSchema.properties;
    for (const field of ['to', 'remindAfterSeconds', 'escalate', 'onTimeout', 'agree'])
      expect(props[field]?.description, field).toMatch(/\w{4,}/);
    expect(props.to.description).toMatch(/up to 5/);
    expect(props.agree.description).toMatch(/2–10/);
    expect(tool.inputSchema.required).toEqual(['questions']);
    expect(tool.outputSchema.properties).toHaveProperty('defaults');
    expect(tool.outputSchema.properties).toHaveProperty('responses');
  });

  it('asks two chats on two channels with agree 2: answered once two people gave the same answer', async () => {
    const runId = run('agree');
    const call = c.call({
      questions: [question],
      runId,
      to: ['test:agree-a', { channel: 'other', chat: 'agree-b' }],
      agree: 2,
    });
    const ask = await sentAsk(runId, 2);
    expect(ask.deliveries.map((d) => `${d.channel}:${d.chat}`)).toEqual(['test:agree-a', 'other:agree-b']);
    // Alice changes her mind; Mallory disagrees; Bob's matching answer completes the agreement.
    expect((await tap(test, ask.id, 'agree-a', 0, person('test', 'alice', 'Alice'))).kind).toBe('recorded');
    expect((await tap(test, ask.id, 'agree-a', 1, person('test', 'alice', 'Alice'))).kind).toBe('recorded');
    expect((await tap(test, ask.id, 'agree-a', 0, person('test', 'mallory'))).kind).toBe('recorded');
    expect((await api.get(`/v1/asks/${ask.id}`)).body.status).toBe('pending');
    await tap(other, ask.id, 'agree-b', 1, person('other', 'bob'));
    const result = await call;
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent as any;
    expect(out).toMatchObject({
      status: 'answered',
      answers: { env: ['Production'] },
      values: { env: ['Production'] },
    });
    expect(out.responses.map((r: any) => [r.answeredBy.channel, r.answeredBy.userId, r.answers.env])).toEqual([
      ['test', 'alice', ['Production']],
      ['test', 'mallory', ['Staging (Recommended)']],
      ['other', 'bob', ['Production']],
    ]);
    expect(text(result)).toContain('Deploy (env): Production');
    expect(text(result)).toContain('3 people answered');
  });

  it('a timeout with onTimeout.default is no_answer/timeout carrying the defaults, never an answer', async () => {
    const result = await c.call({
      questions: [question],
      runId: run('default'),
      to: 'test:default-a',
      timeoutSeconds: 1,
      onTimeout: { default: { env: ['staging (recommended)'] } },
    });
    expect(result.isError, text(result)).toBeFalsy();
    expect(result.structuredContent).toEqual({
      status: 'no_answer',
      reason: 'timeout',
      defaults: { env: ['Staging (Recommended)'] }, // canonical label
      values: { env: ['Staging (Recommended)'] },
    });
    expect(text(result)).toContain('Deploy (env): Staging (Recommended)');
    expect(text(result)).not.toMatch(/best judgment/);
  });

  it('stores reminders and escalation steps as the API would', async () => {
    const runId = run('steps');
    const call = c.call({
      questions: [question],
      runId,
      to: 'test:steps-a',
      timeoutSeconds: 600,
      remindAfterSeconds: [120, 300],
      escalate: [{ afterSeconds: 400, to: ['other:steps-b', { channel: 'test', chat: 'steps-c', users: ['u1'] }] }],
    });
    const ask = await sentAsk(runId, 1);
    const record = (await api.get(`/v1/asks/${ask.id}`)).body;
    expect(record.policy).toEqual({
      remindAfterSeconds: [120, 300],
      escalate: [
        {
          afterSeconds: 400,
          to: [
            { channel: 'other', chat: 'steps-b' },
            { channel: 'test', chat: 'steps-c', users: ['u1'] },
          ],
        },
      ],
    });
    await tap(test, ask.id, 'steps-a', 0, person('test', 'carol'));
    expect((await call).structuredContent).toEqual({
      status: 'answered',
      answers: { env: ['Staging (Recommended)'] },
      values: { env: ['Staging (Recommended)'] },
    });
  });

  it.each([
    [{ to: 'test:x', onTimeout: { default: { env: ['Prod'] } } }, 'onTimeout.default.env.0'],
    [{ to: 'test:x', onTimeout: { default: { nope: ['Production'] } } }, 'onTimeout.default.nope'],
    [
      { to: 'test:x', onTimeout: { default: { env: ['Staging (Recommended)', 'Production'] } } },
      'onTimeout.default.env',
    ],
    [{ to: ['test:x', 'test:x'] }, 'to.1'],
    [{ to: ['test:x', 'nocolon'] }, 'to.1'],
    [{ to: [] }, 'to'],
    [{ to: ['test:1', 'test:2', 'test:3', 'test:4', 'test:5', 'test:6'] }, 'to'],
    [{ to: 'test:x', timeoutSeconds: 60, remindAfterSeconds: [30, 60] }, 'remindAfterSeconds.1'],
    [{ to: 'test:x', remindAfterSeconds: [300, 200] }, 'remindAfterSeconds.1'],
    [{ to: 'test:x', remindAfterSeconds: [1.5] }, 'remindAfterSeconds.0'],
    [{ to: 'test:x', timeoutSeconds: 60, escalate: [{ afterSeconds: 90, to: 'other:y' }] }, 'escalate.0.afterSeconds'],
    [{ to: 'test:x', escalate: [{ afterSeconds: 90, to: 'bad target' }] }, 'escalate.0.to'],
    [{ to: { channel: 'test', chat: 'x', users: ['u1'] }, agree: 2 }, 'agree'],
    [{ to: 'test:x', agree: 11 }, 'agree'],
    [{ to: 'test:x', agree: 2.5 }, 'agree'],
  ])('a bad policy is a tool error naming the field (%#)', async (args, field) => {
    const result = await c.call({ questions: [question], runId: run('bad'), ...args });
    expect(result.isError).toBe(true);
    // The SDK checks the tool's schema first ("... at to[1]"); askgate's own rules follow ("to.1: ...").
    expect(text(result).replace(/\[(\d+)\]/g, '.$1')).toContain(field);
  });

  it('refuses a "__proto__" key in onTimeout.default (never silently dropped)', async () => {
    const args = JSON.parse(
      `{"questions": [${JSON.stringify(question)}], "to": "test:x", "onTimeout": {"default": {"__proto__": ["Production"]}}}`,
    );
    // Over HTTP askgate's JSON body guard refuses the request itself (400); on stdio the tool's own schema does.
    if (sdk.startsWith('stdio')) {
      const result = await c.call(args);
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/__proto__/);
    } else await expect(c.call(args)).rejects.toThrow(/__proto__/);
    const parsed = z.object(AskUserInputShape).safeParse(args);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path.join('.')).toBe('onTimeout.default.__proto__');
  });
});
