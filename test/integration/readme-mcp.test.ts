import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import type { RunningAskgate } from '../../src/main.js';

// The README's two `claude mcp add` lines, run as an MCP host would run them, against an askgate
// configured like the quick start's (no token, no chat platform): what they register must ask and
// get the answer. Only the port differs: 7420 becomes this test's.
const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
let app: RunningAskgate;

beforeAll(async () => {
  app = await startTestApp(testEnv());
});

afterAll(async () => {
  await app?.close();
});

/** The README's `claude mcp add --transport <transport> askgate …` line, with the test's port. */
function claudeMcpAdd(transport: 'stdio' | 'http'): string[] {
  const lines = README.replace(/\\\n\s*/g, '');
  const line = new RegExp(`^ *claude mcp add --transport ${transport} askgate (.*)$`, 'm').exec(lines);
  expect(line, transport).not.toBeNull();
  // Words as the shell splits them here: by spaces, a double-quoted one kept whole.
  const words = line![1]!.replaceAll('http://127.0.0.1:7420', app.url).match(/"[^"]*"|\S+/g)!;
  return words.map((w) => w.replace(/^"(.*)"$/, '$1'));
}

/** The transport Claude Code would open for the README's line. */
function hostTransport(kind: 'stdio' | 'http'): Transport {
  const words = claudeMcpAdd(kind);
  if (kind === 'http') {
    const headers: Record<string, string> = {};
    for (let i = 1; i < words.length; i += 2) {
      expect(words[i]).toBe('--header');
      const [name, value] = words[i + 1]!.split(/: (.*)/) as [string, string];
      headers[name] = value;
    }
    return new StreamableHTTPClientTransport(new URL(words[0]!), { requestInit: { headers } });
  }
  const dash = words.indexOf('--');
  const env: Record<string, string> = {};
  for (let i = 0; i < dash; i += 2) {
    expect(words[i]).toBe('--env');
    const [name, value] = words[i + 1]!.split(/=(.*)/) as [string, string];
    env[name] = value;
  }
  const [command, ...args] = words.slice(dash + 1) as [string, ...string[]];
  return new StdioClientTransport({
    command,
    args,
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stderr: 'pipe',
  });
}

describe("README: the MCP servers' claude mcp add lines", () => {
  it.each(['stdio', 'http'] as const)(
    '%s: ask_user asks, the API answers, the tool returns answered',
    async (kind) => {
      const mcp = new Client({ name: 'readme', version: '1.0.0' });
      await mcp.connect(hostTransport(kind));
      try {
        const runId = `readme-mcp-${kind}`;
        const question = {
          id: 'ship',
          header: 'Ship',
          question: 'Ship it?',
          options: [{ label: 'Yes' }, { label: 'No' }],
        };
        const call = mcp.callTool({ name: 'ask_user', arguments: { runId, questions: [question] } });
        const api = client(app.url);
        // A call refused before any ask exists (a chat that is not configured) ends first, with its reason.
        const asked = eventually(async () => (await api.get(`/v1/runs/${runId}`)).body.current?.id as string, 20_000);
        asked.catch(() => {}); // awaited below, unless the call ended first
        const first = await Promise.race([asked, call]);
        expect(typeof first, `ask_user returned first: ${JSON.stringify(first)}`).toBe('string');
        const id = first as string;
        expect((await api.post(`/v1/asks/${id}/answer`, { answers: { ship: ['yes'] } })).status).toBe(200);
        const result = await call;
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
        expect(result.structuredContent).toMatchObject({ status: 'answered', answers: { ship: ['Yes'] } });
      } finally {
        await mcp.close();
      }
    },
    30_000,
  );
});
