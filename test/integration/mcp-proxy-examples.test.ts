import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { ROOT, upstreamWithLog } from '../helpers/mcp-proxy.js';
import type { RunningAskgate } from '../../src/main.js';

// The `mcpServers` / `servers` entries of examples/mcp-proxy/ (Claude Code's .mcp.json, Cursor's
// .cursor/mcp.json, VS Code's .vscode/mcp.json, the `claude mcp add` line), run as the host would
// run them. Substituted, and only these: the askgate URL and token, the chat (this test's fake),
// VS Code's `${input:…}`, and the upstream command (the reference filesystem server needs the
// network to install; the fake upstream stands in, with destructive tools of its own).
const TOKEN = 'mcp-proxy-examples-token-0123456789';
const DIR = join(ROOT, 'examples/mcp-proxy');
const UPSTREAM = /^npx -y @modelcontextprotocol\/server-filesystem (\/path\/to\/project|\$\{workspaceFolder\})$/;
let app: RunningAskgate;

beforeAll(async () => {
  app = await startTestApp(testEnv({ ASKGATE_API_TOKEN: TOKEN }), [new RecordingChannel('test')]);
});
afterAll(async () => {
  await app?.close();
});

interface Entry {
  type?: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** One server entry of a config file, as JSON. */
function entryOf(file: string, key: 'mcpServers' | 'servers'): Entry {
  const config = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Record<string, Record<string, Entry>>;
  expect(Object.keys(config[key]!)).toEqual(['filesystem']);
  return config[key]!.filesystem!;
}

/** The `claude mcp add` line as Claude Code registers it: env pairs, then the command after `--`. */
function claudeMcpAdd(): Entry {
  const line = readFileSync(join(DIR, 'claude-mcp-add.sh'), 'utf8')
    .replace(/\\\n\s*/g, '')
    .trim();
  const words = line.match(/"[^"]*"|\S+/g)!.map((w) => w.replace(/^"(.*)"$/, '$1'));
  expect(words.slice(0, 6)).toEqual(['claude', 'mcp', 'add', '--transport', 'stdio', 'filesystem']);
  const dash = words.indexOf('--');
  const env: Record<string, string> = {};
  for (let i = 6; i < dash; i += 2) {
    expect(words[i]).toBe('--env');
    const [name, value] = words[i + 1]!.split(/=(.*)/) as [string, string];
    env[name] = value;
  }
  const [command, ...args] = words.slice(dash + 1) as [string, ...string[]];
  return { type: 'stdio', command, args, env };
}

const entries: [string, () => Entry][] = [
  ['Claude Code (.mcp.json)', () => entryOf('claude-code.mcp.json', 'mcpServers')],
  ['Claude Code (claude mcp add)', claudeMcpAdd],
  ['Cursor (.cursor/mcp.json)', () => entryOf('cursor.mcp.json', 'mcpServers')],
  ['VS Code (.vscode/mcp.json)', () => entryOf('vscode.mcp.json', 'servers')],
];

describe.each(entries)('examples/mcp-proxy: %s', (_name, read) => {
  it('gates the destructive tools and passes the others through', async () => {
    const entry = read();
    expect(entry.type ?? 'stdio').toBe('stdio');
    const upstream = upstreamWithLog();
    const at = entry.args.indexOf('--upstream');
    expect(entry.args[at + 1]).toMatch(UPSTREAM);
    const args = entry.args.map((a, i) => (i === at + 1 ? upstream.command : a));
    const env = Object.fromEntries(
      Object.entries(entry.env).map(([k, v]) => [
        k,
        v
          .replace('http://127.0.0.1:7420', app.url)
          .replace(/^<token>$|^\$\{input:askgate-token\}$/, TOKEN)
          .replace('telegram:123456', 'test:chat-1'),
      ]),
    );
    expect(Object.keys(env).sort()).toEqual(['ASKGATE_API_TOKEN', 'ASKGATE_DEFAULT_TO', 'ASKGATE_URL']);
    const host = new Client({ name: 'examples', version: '1.0.0' });
    await host.connect(
      new StdioClientTransport({
        command: entry.command,
        args,
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        stderr: 'inherit',
      }),
    );
    try {
      const listed = (await host.callTool({ name: 'list_files', arguments: { dir: '/srv' } })) as any;
      expect(listed.content[0].text).toBe('/srv: a.txt b.txt');
      const call = host.callTool({ name: 'delete_file', arguments: { path: '/srv/a.txt' } });
      const api = client(app.url, TOKEN);
      const id = await eventually(async () => {
        const asks = (await api.get('/v1/asks?limit=200')).body.asks as any[];
        return asks.find((a) => a.approval?.arguments?.path === '/srv/a.txt' && a.approval.action === 'delete_file')
          ?.id;
      }, 20_000);
      expect(upstream.calls().map((c) => c.tool)).toEqual(['list_files']);
      expect((await api.post(`/v1/asks/${id}/answer`, { decision: 'approve' })).status).toBe(200);
      const result = (await call) as any;
      expect(result.content[0].text).toBe('deleted /srv/a.txt');
      expect(upstream.calls().map((c) => c.tool)).toEqual(['list_files', 'delete_file']);
    } finally {
      await host.close();
    }
  }, 40_000);
});

describe('README: Approval gateway for MCP servers', () => {
  it('quotes the example files as they are (the files are what the tests above run)', async () => {
    const { readmeBlocks } = await import('../helpers/readme.js');
    const blocks = readmeBlocks('## Approval gateway for MCP servers').map((b) => b.trimEnd());
    const files = ['claude-code.mcp.json', 'claude-mcp-add.sh', 'vscode.mcp.json'].map((f) =>
      readFileSync(join(DIR, f), 'utf8').trimEnd(),
    );
    expect(blocks).toEqual(files);
  });
});
