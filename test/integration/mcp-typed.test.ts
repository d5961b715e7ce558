import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { KIND_NAMES } from '../../src/core/questions/index.js';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';

// Typed questions through `ask_user` (issue 35), in both MCP eras through each era's real client:
// 2025-11-25 (v1 SDK, sessions) and 2026-07-28 (v2 SDK, stateless). The person answers in the
// chat (the recording channel's inbound sink, as a platform's reply would arrive) or an operator
// through the API; the tool result carries `values` with JSON types and `raw` beside `answers`.

const TOKEN = 'mcp-typed-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const channel = new RecordingChannel('test');
let app: RunningAskgate;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp(
    testEnv({ ASKGATE_API_TOKEN: TOKEN, ASKGATE_DEFAULT_TO: 'test:typed', ASKGATE_MCP_WAIT_SECONDS: '30' }),
    [channel],
  );
  api = client(app.url, TOKEN);
});

afterAll(async () => {
  await app?.close();
});

interface Connected {
  listTools(): Promise<{ tools: { name: string; description?: string; inputSchema: any; outputSchema?: any }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

async function v1(): Promise<Connected> {
  const mcp = new ClientV1({ name: 'typed-v1', version: '1.0.0' });
  await mcp.connect(new TransportV1(new URL(`${app.url}/mcp`), { requestInit: { headers: auth } }));
  return mcp as unknown as Connected;
}

async function v2(): Promise<Connected> {
  const mcp = new ClientV2(
    { name: 'typed-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await mcp.connect(new TransportV2(new URL(`${app.url}/mcp`), { requestInit: { headers: auth } }));
  return mcp as unknown as Connected;
}

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; content: { text: string }[] };

/** The pending ask of a run, once it exists. */
const pendingAsk = (runId: string) =>
  eventually(async () => {
    const r = await api.get(`/v1/runs/${runId}`);
    return r.body.current?.status === 'pending' ? (r.body.current as { id: string; questions: unknown[] }) : undefined;
  });

/** A chat reply from Ana (or `who`) in the direct chat the asks go to (the next message there answers the open ask). */
const reply = (text: string, locale = 'en', who = 'ana') =>
  channel.sink!.text({
    channel: 'test',
    chat: 'typed',
    privateChat: true,
    user: { channel: 'test', userId: who, name: who },
    text,
    locale,
  });

/** `askgate mcp` on stdio (asking through the HTTP API with the SDK), the v1 client. */
async function stdio(): Promise<Connected> {
  const mcp = new ClientV1({ name: 'typed-stdio', version: '1.0.0' });
  await mcp.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/cli.ts', 'mcp'],
      cwd: resolve(import.meta.dirname, '../..'),
      env: {
        PATH: process.env.PATH ?? '',
        ASKGATE_URL: app.url,
        ASKGATE_API_TOKEN: TOKEN,
        ASKGATE_DEFAULT_TO: 'test:typed',
        ASKGATE_MCP_WAIT_SECONDS: '30',
      },
      stderr: 'pipe',
    }),
  );
  return mcp as unknown as Connected;
}

describe.each([
  ['2025-11-25 (v1 SDK client)', v1],
  ['2026-07-28 (v2 SDK client)', v2],
  ['stdio: askgate mcp', stdio],
])('ask_user with typed questions, %s', (era, connect) => {
  let mcp: Connected;
  const run = (name: string) => `typed-${name}-${era.slice(0, 5).replace(/\W/g, '')}`;
  beforeAll(async () => {
    mcp = await connect();
  }, 30_000);
  afterAll(async () => {
    await mcp?.close();
  });

  it('the input schema offers every kind and its constraints; the description says when a typed question fits', async () => {
    const { tools } = await mcp.listTools();
    const tool = tools.find((t) => t.name === 'ask_user')!;
    const item = tool.inputSchema.properties.questions.items;
    expect(item.properties.kind.enum).toEqual(KIND_NAMES);
    for (const field of ['minLength', 'maxLength', 'pattern', 'min', 'max', 'integer', 'unit', 'options'])
      expect(item.properties).toHaveProperty(field);
    expect(tool.description).toMatch(
      /a number, a date, a time, an address, a link or free text, do not invent options/,
    );
    expect(tool.outputSchema.properties).toHaveProperty('values');
    expect(tool.outputSchema.properties).toHaveProperty('raw');
  });

  it('a number answered in the chat in Portuguese notation: values has a JSON number, raw what was typed', async () => {
    const runId = run('number');
    const call = mcp.callTool({
      name: 'ask_user',
      arguments: {
        runId,
        locale: 'pt-BR',
        questions: [
          { id: 'size', header: 'Disco', question: 'Quantos GB?', kind: 'number', min: 1, max: 100, unit: 'GB' },
        ],
      },
    }) as Promise<ToolResult>;
    const ask = await pendingAsk(runId);
    expect(ask.questions).toEqual([
      { id: 'size', header: 'Disco', question: 'Quantos GB?', kind: 'number', min: 1, max: 100, unit: 'GB' },
    ]);
    // Out of range: refused in the person's language, the ask stays open.
    expect(await reply('500', 'pt-BR')).toMatchObject({ kind: 'invalid' });
    expect((await api.get(`/v1/asks/${ask.id}`)).body.status).toBe('pending');
    expect(await reply('2,5 GB', 'pt-BR')).toMatchObject({ kind: 'recorded' });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      status: 'answered',
      answers: { size: ['2.5'] },
      values: { size: 2.5 },
      raw: { size: '2,5 GB' },
    });
    expect(result.content[0]!.text).toContain('- Disco (size): 2.5 (the user wrote "2,5 GB")');
  }, 20_000);

  it('date, email and a choice answered through the API with values: typed values back, labels for the choice', async () => {
    const runId = run('api');
    const call = mcp.callTool({
      name: 'ask_user',
      arguments: {
        runId,
        questions: [
          { id: 'day', question: 'Which day?', kind: 'date', min: '2026-12-01', max: '2026-12-31' },
          { id: 'mail', question: 'Send the report to?', kind: 'email' },
          { id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] },
        ],
      },
    }) as Promise<ToolResult>;
    const ask = await pendingAsk(runId);
    const wrong = await api.post(`/v1/asks/${ask.id}/answer`, {
      values: { day: '2027-01-05', mail: 'x@y.z', env: ['Staging'] },
    });
    expect(wrong.status).toBe(400);
    const answered = await api.post(`/v1/asks/${ask.id}/answer`, {
      values: { day: '2026-12-08', mail: 'Ops@Example.COM', env: ['production'] },
    });
    expect(answered.status).toBe(200);
    const result = await call;
    expect(result.structuredContent).toEqual({
      status: 'answered',
      answers: { day: ['2026-12-08'], mail: ['Ops@example.com'], env: ['Production'] },
      values: { day: '2026-12-08', mail: 'Ops@example.com', env: ['Production'] },
      raw: { mail: 'Ops@Example.COM' },
    });
  }, 20_000);

  it('agree: 2 on a number: "2,5" (pt-BR) and "2.5" (en) agree; responses keep what each wrote', async () => {
    const runId = run('agree');
    const call = mcp.callTool({
      name: 'ask_user',
      arguments: { runId, agree: 2, questions: [{ id: 'ratio', question: 'Ratio?', kind: 'number' }] },
    }) as Promise<ToolResult>;
    await pendingAsk(runId);
    expect(await reply('2,5', 'pt-BR', 'bia')).toMatchObject({ kind: 'recorded' });
    expect(await reply('2.5', 'en', 'carl')).toMatchObject({ kind: 'recorded' });
    const result = await call;
    expect(result.isError, result.content[0]!.text).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'answered', values: { ratio: 2.5 } });
    const responses = result.structuredContent!.responses as { answers: unknown; raw?: unknown }[];
    expect(responses.map((r) => [r.answers, r.raw])).toEqual([
      [{ ratio: ['2.5'] }, { ratio: '2,5' }],
      [{ ratio: ['2.5'] }, undefined],
    ]);
  }, 20_000);

  it('a typed default on timeout: no_answer with defaults and their values', async () => {
    const result = (await mcp.callTool({
      name: 'ask_user',
      arguments: {
        runId: run('default'),
        timeoutSeconds: 1,
        questions: [{ id: 'replicas', question: 'How many replicas?', kind: 'number', min: 1, max: 10, integer: true }],
        onTimeout: { default: { replicas: 3 } },
      },
    })) as ToolResult;
    expect(result.structuredContent).toEqual({
      status: 'no_answer',
      reason: 'timeout',
      defaults: { replicas: ['3'] },
      values: { replicas: 3 },
    });
    expect(result.content[0]!.text).toContain('- replicas (replicas): 3');
  }, 20_000);

  it.each([
    [
      { question: 'How many?', kind: 'number', options: [{ label: '1' }, { label: '2' }] },
      'questions.0.options: does not apply to a number question',
    ],
    [{ question: 'Which day?', kind: 'date', min: '08/12/2026' }, 'questions.0.min: must be a date YYYY-MM-DD'],
    [{ question: 'Code?', kind: 'text', pattern: '(?=x)' }, 'questions.0.pattern'],
    [{ question: 'Where?', kind: 'choice' }, 'questions.0.options'],
  ])('a bad typed question is a tool error naming the field (%#)', async (question, message) => {
    const result = (await mcp.callTool({ name: 'ask_user', arguments: { questions: [question] } })) as ToolResult;
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain(message);
  });
});
