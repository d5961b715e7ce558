import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startAskgate, type RunningAskgate } from '../../src/main.js';
import { MAX_JSON_DEPTH } from '../../src/api/json-body.js';
import { testEnv } from '../helpers/app.js';
import { RecordingChannel } from '../helpers/test-channel.js';

// Bad input on every JSON route is the client's error, answered as such (HTTP 400, or JSON-RPC
// -32700 / -32602), never a 500 or an "internal error", and never a warn or error log line:
// bodies nested past MAX_JSON_DEPTH, A2A v0.3 task ids of the wrong type, MCP params of the
// wrong type.

const TOKEN = 'bad-input-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const lines: string[] = [];
let app: RunningAskgate;

beforeAll(async () => {
  app = await startAskgate(loadConfig(testEnv({ ASKGATE_API_TOKEN: TOKEN, ASKGATE_DEFAULT_TO: 'test:chat-1' })), {
    channels: [new RecordingChannel('test')],
    logger: createLogger('debug', (line) => void lines.push(line)),
  });
});

afterAll(async () => {
  await app?.close();
});

/** The log lines at warn level or above written since `from`. */
const loudLines = (from: number) =>
  lines
    .slice(from)
    .map((l) => JSON.parse(l) as { level: string; msg?: string })
    .filter((l) => l.level === 'warn' || l.level === 'error' || l.level === 'fatal');

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });

/** `depth` arrays inside one another (30,000 fit in the default 64 KB body limit). */
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('bodies nested too deep', () => {
  const deep = nested(30_000);
  const initialize = (params: string) => `{"jsonrpc":"2.0","id":1,"method":"initialize","params":${params}}`;

  it('/mcp: a JSON-RPC parse error (HTTP 400) naming the bound, not a 500; the endpoint still serves', async () => {
    const from = lines.length;
    for (const body of [deep, initialize(deep), `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":${deep}}`]) {
      const res = await post('/mcp', body);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32700, message: expect.stringContaining(`more than ${MAX_JSON_DEPTH} levels deep`) },
        id: null,
      });
    }
    expect(loudLines(from)).toEqual([]);
    const mcp = new Client({ name: 'bad-input', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: auth } });
    await mcp.connect(transport);
    expect((await mcp.listTools()).tools.map((t) => t.name)).toEqual(['ask_user', 'await_answer', 'request_approval']);
    await transport.terminateSession();
    await mcp.close();
  });

  it.each([
    ['/v1/asks', `{"runId":"deep","questions":${deep}}`],
    ['/v1/asks/abcdefabcdefab/answer', `{"answers":{"q1":${deep}}}`],
    ['/v1/asks/abcdefabcdefab/cancel', deep],
  ])('%s: 400 invalid_request naming the bound', async (path, body) => {
    const from = lines.length;
    const res = await post(path, body);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toEqual({
      code: 'invalid_request',
      message: `body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
    });
    expect(loudLines(from)).toEqual([]);
  });

  it('/console/login (public, same origin): 400 naming the bound', async () => {
    const res = await post('/console/login', `{"token":${deep}}`, { origin: app.url });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain(`more than ${MAX_JSON_DEPTH} levels deep`);
  });

  it('/a2a: a JSON-RPC parse error naming the bound', async () => {
    const res = await post('/a2a', `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":${deep}}}`);
    expect((await res.json()).error).toEqual({
      code: -32700,
      message: expect.stringContaining(`more than ${MAX_JSON_DEPTH} levels deep`),
    });
  });

  it(`a body exactly ${MAX_JSON_DEPTH} levels deep, brackets inside strings not counted, is parsed as usual`, async () => {
    const inString = JSON.stringify('['.repeat(1000));
    const res = await post('/v1/asks', `{"runId":${inString},"questions":${nested(MAX_JSON_DEPTH - 1)}}`);
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).not.toContain('levels deep');
  });
});

describe('A2A v0.3 task ids of the wrong type', () => {
  const rpc = async (method: string, params: unknown) =>
    (await (await post('/a2a', JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }))).json()) as {
      error?: { code: number; message: string };
    };

  it.each([5, null, { a: 1 }, ['abcdefabcdefab'], true, undefined])(
    'id %j is invalid params (-32602) on every v0.3 task method, with nothing logged at warn or above',
    async (id) => {
      const from = lines.length;
      for (const method of [
        'tasks/get',
        'tasks/cancel',
        'tasks/resubscribe',
        'tasks/pushNotificationConfig/get',
        'tasks/pushNotificationConfig/list',
      ]) {
        const answer = await rpc(method, { id });
        expect(answer.error, method).toEqual({ code: -32602, message: 'id: must be a task id (a string)' });
      }
      expect(loudLines(from)).toEqual([]);
    },
  );

  it('params the SDK itself cannot read (a null part, a null push config) are invalid params too', async () => {
    const from = lines.length;
    const send = await rpc('SendMessage', { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [null] } });
    expect(send.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^Invalid method parameters/) });
    const set = await rpc('tasks/pushNotificationConfig/set', {
      taskId: 'abcdefabcdefab',
      pushNotificationConfig: null,
    });
    expect(set.error).toMatchObject({ code: -32602 });
    expect(loudLines(from)).toEqual([]);
  });
});

describe('MCP params of the wrong type (2025-era sessions)', () => {
  it('tools/call with a numeric name or a string as arguments is invalid params (-32602) for the SDK client, not an internal error', async () => {
    const mcp = new Client({ name: 'bad-params', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: auth } });
    await mcp.connect(transport);
    const from = lines.length;
    for (const params of [{ name: 5, arguments: {} }, { name: 'ask_user', arguments: 'questions' }, {}]) {
      const error = await mcp
        .request({ method: 'tools/call', params: params as never }, CallToolResultSchema)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32602);
      expect((error as McpError).message).toMatch(/invalid params: params\.(name|arguments)/);
    }
    // The session is unharmed.
    expect((await mcp.listTools()).tools).toHaveLength(3);
    expect(loudLines(from)).toEqual([]);
    await transport.terminateSession();
    await mcp.close();
  });
});
