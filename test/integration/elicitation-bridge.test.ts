import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client, StreamableHTTPClientTransport, InMemoryTransport as ClientSide } from '@modelcontextprotocol/client';
import {
  InMemoryTransport,
  McpServer,
  SUPPORTED_PROTOCOL_VERSIONS,
  createMcpHandler,
  inputRequired,
  inputResponse,
  type CallToolResult,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import { SlackChannel } from '../../src/channels/slack/slack-channel.js';
import { createLogger } from '../../src/logger.js';
import {
  AskgateClient,
  ElicitationRefusedError,
  elicitationHandler,
  type AskView,
  type ElicitationBridgeOptions,
} from '../../src/client/index.js';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { FakeSlackApi, visibleMessage, type FakeMessage } from '../fakes/slack-api.js';
import { SlackInjector } from '../fakes/slack-events.js';

// A real v2 MCP server whose tools elicit from their client, a real v2 client whose
// `elicitation/create` handler is askgate's bridge, askgate on a private redis-server, and the
// human answering through the Slack fake (real bolt receiver, signed requests).
const SECRET = 'elicit-signing-secret';
const CHAT = 'C0E11';
const ALICE = 'U0A11CE';

let redis: TestRedis;
let fake: FakeSlackApi;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let slack: SlackInjector;
const created: AskView[] = [];
const handlers: McpHttpHandler[] = [];
const logLines: string[] = [];

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeSlackApi.start();
  fake.channels.add(CHAT);
  const logger = createLogger('info', (line) => logLines.push(line));
  const channel = new SlackChannel({ token: fake.token, signingSecret: SECRET, apiUrl: `${fake.url}/api/`, logger });
  app = await startTestApp(testEnv({ REDIS_URL: redis.url }), [channel]);
  api = client(app.url);
  slack = new SlackInjector(`${app.url}/slack/events`, SECRET, fake);
}, 30_000);

afterAll(async () => {
  await Promise.all(handlers.map((h) => h.close()));
  await app?.close();
  await fake?.close();
  await redis?.dispose();
});

const text = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
const failure = (error: unknown) => {
  const e = error as { code?: number; message?: string; data?: unknown };
  return text({ error: { code: e.code, message: e.message, data: e.data } });
};

/** The MCP server: `elicit` asks its client for the form it is given, the way each era does it. */
function mcpServer(): McpServer {
  const server = new McpServer(
    { name: 'elicit-test-server', version: '1.0.0' },
    { supportedProtocolVersions: ['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS] },
  );
  const args = z.object({ form: z.string(), timeoutMs: z.number().optional() });
  server.registerTool('elicit', { inputSchema: args }, async ({ form, timeoutMs }, ctx) => {
    const params = JSON.parse(form);
    if (ctx.mcpReq.envelope === undefined) {
      // 2025-11-25: a server→client `elicitation/create` request.
      try {
        return text(await ctx.mcpReq.elicitInput(params, timeoutMs ? { timeout: timeoutMs } : undefined));
      } catch (error) {
        return failure(error);
      }
    }
    // 2026-07-28: an input_required result; the client answers it and retries the call.
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'form');
    if (answer.kind === 'missing') return inputRequired({ inputRequests: { form: inputRequired.elicit(params) } });
    return text(answer.kind === 'elicit' ? { action: answer.action, content: answer.content } : answer);
  });
  return server;
}

type Era = 'legacy' | 'modern';

/** A v2 client on `era`: 2025-11-25 over an in-memory pair, 2026-07-28 over Streamable HTTP served in process. */
async function connect(era: Era, bridgeOptions: ElicitationBridgeOptions = {}): Promise<Client> {
  const mcp = new Client(
    { name: 'elicit-test-host', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {}, url: {} } },
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  const askgate = new AskgateClient({ url: app.url, retryForMs: 2_000 });
  const bridge = elicitationHandler(askgate, {
    to: { channel: 'slack', chat: CHAT },
    onCreated: (ask) => created.push(ask),
    ...bridgeOptions,
  });
  mcp.setRequestHandler('elicitation/create', (request, ctx) => bridge(request.params, { signal: ctx.mcpReq.signal }));
  if (era === 'legacy') {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcpServer().connect(serverSide);
    await mcp.connect(clientSide as unknown as ClientSide);
  } else {
    const handler = createMcpHandler(mcpServer, { legacy: 'reject' });
    handlers.push(handler);
    const fetchInProcess = (url: string | URL, init?: RequestInit) => handler.fetch(new Request(url, init));
    await mcp.connect(new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), { fetch: fetchInProcess }));
  }
  return mcp;
}

/** Calls `elicit` with a form; resolves to what the server got back (an ElicitResult or an error). */
async function elicit(mcp: Client, form: object, timeoutMs?: number): Promise<any> {
  const result = (await mcp.callTool({
    name: 'elicit',
    arguments: { form: JSON.stringify(form), ...(timeoutMs ? { timeoutMs } : {}) },
  })) as CallToolResult;
  return JSON.parse((result.content[0] as { text: string }).text);
}

/** The Slack message of the next ask the bridge creates. */
async function nextMessage(before: number): Promise<{ ask: AskView; message: FakeMessage }> {
  const ask = await eventually(async () => created[before]);
  const ref = await eventually(async () => (await api.get(`/v1/asks/${ask.id}`)).body.deliveries[0]?.message);
  return { ask, message: fake.message(ref.chat, ref.messageId)! };
}

const press = (message: FakeMessage, label: string) => {
  const button = visibleMessage(message).buttons.find((b) => b.label === label);
  if (!button) throw new Error(`no button ${label}`);
  return slack.postInteractive(slack.blockAction(message, button.data, ALICE));
};
const reply = (message: FakeMessage, body: string) =>
  slack.postEvent(slack.messageEvent({ channel: message.channel, user: ALICE, text: body, threadTs: message.ts }));

const form = (properties: Record<string, unknown>, message = 'Deploy settings') => ({
  mode: 'form',
  message,
  requestedSchema: { type: 'object', properties, required: Object.keys(properties) },
});
const env = {
  type: 'string',
  title: 'Target',
  description: 'Where should I deploy?',
  oneOf: [
    { const: 'stg-eu-1', title: 'Staging' },
    { const: 'prod-eu-1', title: 'Production' },
  ],
};
const checks = {
  type: 'array',
  title: 'Checks',
  items: {
    anyOf: [
      { const: 'lint', title: 'Lint' },
      { const: 'unit', title: 'Unit tests' },
      { const: 'e2e', title: 'End to end' },
    ],
  },
};
const confirm = { type: 'boolean', title: 'Confirm', description: 'Run the migration too?' };

describe.each<Era>(['legacy', 'modern'])('the elicitation bridge (%s era)', (era) => {
  let mcp: Client;
  beforeAll(async () => {
    mcp = await connect(era);
  });
  afterAll(async () => {
    await mcp?.close();
  });

  it('negotiates the era asked for', () => {
    expect(mcp.getNegotiatedProtocolVersion?.() ?? 'legacy').toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
  });

  it('a titled single-select: the human taps a button, the server gets the const value', async () => {
    const before = created.length;
    const result = elicit(mcp, form({ env }));
    const { ask, message } = await nextMessage(before);
    const shown = visibleMessage(message);
    expect(shown.text).toContain('Deploy settings');
    expect(shown.text).toContain('Where should I deploy?');
    expect(shown.buttons.map((b) => b.label).slice(0, 2)).toEqual(['Staging', 'Production']);
    expect(ask.questions).toMatchObject([{ id: 'env', header: 'Target', multiSelect: false }]);
    expect((await press(message, 'Production')).status).toBe(200);
    expect(await result).toEqual({ action: 'accept', content: { env: 'prod-eu-1' } });
  });

  it('a multi-select and a boolean in one form, answered in one thread reply', async () => {
    const before = created.length;
    const result = elicit(mcp, form({ checks, confirm }, 'Before the release'));
    const { message } = await nextMessage(before);
    expect((await reply(message, '1, 3\nno')).status).toBe(200);
    expect(await result).toEqual({ action: 'accept', content: { checks: ['lint', 'e2e'], confirm: false } });
  });

  it('a boolean alone: Yes / No buttons, answered true', async () => {
    const before = created.length;
    const result = elicit(mcp, form({ confirm }));
    const { message } = await nextMessage(before);
    expect(
      visibleMessage(message)
        .buttons.map((b) => b.label)
        .slice(0, 2),
    ).toEqual(['Yes', 'No']);
    await press(message, 'Yes');
    expect(await result).toEqual({ action: 'accept', content: { confirm: true } });
  });

  it('typed fields: a number, a date and free text answered in one thread reply; accept carries a JSON number', async () => {
    const before = created.length;
    const result = elicit(
      mcp,
      form(
        {
          replicas: { type: 'integer', title: 'Replicas', description: 'How many replicas?', minimum: 1, maximum: 10 },
          day: { type: 'string', format: 'date', title: 'Day', description: 'Which day?' },
          note: { type: 'string', title: 'Note', description: 'Anything to add?', maxLength: 200 },
        },
        'Release plan',
      ),
    );
    const { ask, message } = await nextMessage(before);
    expect(ask.questions).toEqual([
      {
        id: 'replicas',
        header: 'Replicas',
        question: 'Release plan\n\nHow many replicas?',
        kind: 'number',
        min: 1,
        max: 10,
        integer: true,
      },
      { id: 'day', header: 'Day', question: 'Which day?', kind: 'date' },
      { id: 'note', header: 'Note', question: 'Anything to add?', kind: 'text', maxLength: 200 },
    ]);
    expect((await reply(message, '3\n2026-12-08\nShip it after the freeze')).status).toBe(200);
    expect(await result).toEqual({
      action: 'accept',
      content: { replicas: 3, day: '2026-12-08', note: 'Ship it after the freeze' },
    });
  });

  it('date-time, uri and number fields: values the server SDK’s check of the requested schema accepts (2025-11-25 runs it)', async () => {
    const before = created.length;
    const result = elicit(
      mcp,
      form(
        {
          when: { type: 'string', format: 'date-time', title: 'When' },
          link: { type: 'string', format: 'uri', title: 'Link' },
          size: { type: 'number', title: 'Size', minimum: 0 },
        },
        'Schedule the rollout',
      ),
    );
    const { ask, message } = await nextMessage(before);
    expect(ask.questions.map((q) => (q as { kind?: string }).kind)).toEqual(['datetime', 'url', 'number']);
    await reply(message, '2026-12-08 14:30\nhttps://Example.com/pr/1\n2.5');
    expect(await result).toEqual({
      action: 'accept',
      content: { when: '2026-12-08T14:30:00+00:00', link: 'https://example.com/pr/1', size: 2.5 },
    });
  });

  it('an answer a typed field refuses keeps the ask open with what was expected; the next one is accepted', async () => {
    const before = created.length;
    const result = elicit(
      mcp,
      form({ mail: { type: 'string', format: 'email', title: 'Email' } }, 'Who gets the report?'),
    );
    const { ask, message } = await nextMessage(before);
    const posted = fake.callsOf('chat.postMessage').length;
    expect((await reply(message, 'ops at example dot com')).status).toBe(200);
    const hint = await eventually(async () => fake.callsOf('chat.postMessage').slice(posted).at(0));
    expect(JSON.stringify(hint.params)).toMatch(/email address.*Nothing has been done yet/);
    expect((await api.get(`/v1/asks/${ask.id}`)).body.status).toBe('pending');
    await reply(message, 'Ops@Example.COM');
    expect(await result).toEqual({ action: 'accept', content: { mail: 'Ops@example.com' } });
  });

  it('Skip declines', async () => {
    const before = created.length;
    const result = elicit(mcp, form({ env }));
    const { message } = await nextMessage(before);
    await press(message, 'Skip');
    expect(await result).toEqual({ action: 'decline' });
  });

  it('an answer in the human’s own words cancels: an enum cannot carry it', async () => {
    const before = created.length;
    const result = elicit(mcp, form({ env }));
    const { message } = await nextMessage(before);
    await reply(message, 'canary first, please');
    expect(await result).toEqual({ action: 'cancel' });
  });

  it('hostile titles (Slack markup, mentions) are shown literally and never reach Slack raw', async () => {
    const before = created.length;
    const hostile = {
      type: 'string',
      title: '<!channel> **bold**',
      description: 'Ping <@U999> & <!here>?',
      oneOf: [
        { const: 'a', title: '<!channel>' },
        { const: 'b', title: '<http://evil.test|click>' },
        { const: 'c', title: '@everyone &amp;' },
      ],
    };
    const result = elicit(mcp, form({ evil: hostile }, '<script>alert(1)</script>'));
    const { message } = await nextMessage(before);
    const shown = visibleMessage(message);
    expect(shown.buttons.map((b) => b.label).slice(0, 3)).toEqual([
      '<!channel>',
      '<http://evil.test|click>',
      '@everyone &amp;',
    ]);
    expect(shown.text).toContain('<script>alert(1)</script>');
    expect(shown.text).toContain('Ping <@U999> & <!here>?');
    const sent = JSON.stringify(fake.callsOf('chat.postMessage').at(-1)!.params);
    for (const raw of ['<!channel>', '<!here>', '<@U999>', '<http://evil.test|click>', '<script>'])
      expect(sent).not.toContain(raw);
    await press(message, '<http://evil.test|click>');
    expect(await result).toEqual({ action: 'accept', content: { evil: 'b' } });
  });

  it('nobody answers before the timeout: cancel', async () => {
    const quick = await connect(era, { timeoutSeconds: 1, waitSeconds: 1 });
    try {
      const before = created.length;
      const result = elicit(quick, form({ env }));
      const { ask } = await nextMessage(before);
      expect(await result).toEqual({ action: 'cancel' });
      expect((await api.get(`/v1/asks/${ask.id}`)).body.result).toMatchObject({
        status: 'no_answer',
        reason: 'timeout',
      });
    } finally {
      await quick.close();
    }
  });

  it.each([
    [
      'an email address held to 40 characters',
      form({ mail: { type: 'string', title: 'Email', format: 'email', maxLength: 40 } }),
      'unsupported_constraint',
      /limits the length of an email address \(0 to 40\); askgate reads it by its format/,
    ],
    [
      'more text than askgate takes',
      form({ essay: { type: 'string', minLength: 5000 } }),
      'unsupported_constraint',
      /needs at least 5000 characters/,
    ],
    [
      'more than 3 fields',
      form({ a: confirm, b: confirm, c: confirm, d: confirm }),
      'too_many_fields',
      /4 fields; askgate asks at most 3/,
    ],
    [
      '5 choices',
      form({ x: { type: 'string', enum: ['a', 'b', 'c', 'd', 'e'] } }),
      'choice_count',
      /5 choices; askgate asks with 2 to 4/,
    ],
    ['1 choice', form({ x: { type: 'string', enum: ['only'] } }), 'choice_count', /1 choices/],
  ])('%s is refused with its reason, and nothing is asked', async (_name, params, reason, message) => {
    const before = created.length;
    const sent = fake.callsOf('chat.postMessage').length;
    if (era === 'legacy') {
      // The refusal is the JSON-RPC error of the server's elicitation/create request.
      const answer = await elicit(mcp, params);
      expect(answer.error.code).toBe(-32602);
      expect(answer.error.message).toMatch(message);
      expect(answer.error.data).toMatchObject({ reason });
    } else {
      // On 2026-07-28 the client fulfils the input request itself: the refusal fails the host's call.
      const refused = await elicit(mcp, params).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ElicitationRefusedError);
      expect(refused).toMatchObject({ code: -32602, reason, message: expect.stringMatching(message) });
    }
    expect(created.length).toBe(before);
    expect(fake.callsOf('chat.postMessage').length).toBe(sent);
  });
});

describe('the elicitation bridge and the server’s request (2025-11-25)', () => {
  it('URL-mode elicitation is refused', async () => {
    const mcp = await connect('legacy');
    try {
      const answer = await elicit(mcp, {
        mode: 'url',
        message: 'Sign in',
        elicitationId: 'e-1',
        url: 'https://login.example.test/x',
      });
      expect(answer.error).toMatchObject({ code: -32602, data: { reason: 'url_mode' } });
      expect(answer.error.message).toMatch(/URL-mode/);
    } finally {
      await mcp.close();
    }
  });

  it('the server giving up on its request (request timeout → notifications/cancelled) cancels the ask', async () => {
    const mcp = await connect('legacy');
    try {
      const before = created.length;
      const answer = elicit(mcp, form({ env }), 1_500);
      const { ask } = await nextMessage(before);
      expect((await answer).error).toBeDefined();
      const ended = await eventually(async () => {
        const record = (await api.get(`/v1/asks/${ask.id}`)).body;
        return record.status !== 'pending' && record;
      });
      expect(ended.result).toMatchObject({ status: 'no_answer', reason: 'cancelled' });
    } finally {
      await mcp.close();
    }
  });
});

it('never logs the Slack token or what the human typed', () => {
  const log = logLines.join('');
  for (const secret of [fake.token, SECRET, 'canary first, please']) expect(log).not.toContain(secret);
});
