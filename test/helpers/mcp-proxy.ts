import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const ROOT = resolve(import.meta.dirname, '../..');

/** A fresh call log for the fake upstream (test/fakes/mcp-upstream.ts) and the command that runs it. */
export function upstreamWithLog(): { log: string; command: string; calls: () => { tool: string; args: unknown }[] } {
  const log = join(mkdtempSync(join(tmpdir(), 'mcp-proxy-')), 'calls.jsonl');
  return {
    log,
    command: `"${process.execPath}" --import tsx test/fakes/mcp-upstream.ts --log "${log}"`,
    calls: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { tool: string; args: unknown })
        : [],
  };
}

/** The environment `askgate mcp-proxy` runs with in the tests. */
export const proxyEnv = (url: string, token: string, extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? '',
  ASKGATE_URL: url,
  ASKGATE_API_TOKEN: token,
  ASKGATE_DEFAULT_TO: 'test:chat-1',
  LOG_LEVEL: 'warn',
  ...extra,
});

/** The real v1 client (MCP 2025-11-25) connected to `askgate mcp-proxy <args>` on stdio. */
export async function proxyClientV1(args: string[], env: Record<string, string>): Promise<Client> {
  const mcp = new Client({ name: 'proxy-test', version: '1.0.0' });
  await mcp.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/cli.ts', 'mcp-proxy', ...args],
      cwd: ROOT,
      env,
      stderr: 'inherit',
    }),
  );
  return mcp;
}
