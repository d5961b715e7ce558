// A real MCP server (v1 SDK, stdio) for the mcp-proxy tests and bench: run as a child process,
// `node --import tsx test/fakes/mcp-upstream.ts [--log <file>]`. Every tool call is appended to
// the log file as one JSON line {tool, args}, so a test counts what actually reached the upstream.
// With `--http <port>` it serves Streamable HTTP (stateless) instead and prints its URL on stdout.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const { values } = parseArgs({
  options: { log: { type: 'string' }, http: { type: 'string' }, token: { type: 'string' } },
});
const logCall = (tool: string, args: unknown) => {
  if (values.log) appendFileSync(values.log, `${JSON.stringify({ tool, args })}\n`);
};

function build(): McpServer {
  const server = new McpServer({ name: 'fake-upstream', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool(
    'echo',
    {
      description: 'Echoes the text back.',
      inputSchema: { text: z.string() },
      outputSchema: { echoed: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => {
      logCall('echo', { text });
      return { content: [{ type: 'text', text }], structuredContent: { echoed: text } };
    },
  );
  server.registerTool(
    'send_email',
    {
      description: 'Sends an email.\nSecond line of the description.',
      inputSchema: { to: z.email(), subject: z.string().max(100), body: z.string().optional() },
      outputSchema: { sent: z.boolean(), to: z.string() },
      annotations: { destructiveHint: true, openWorldHint: true },
    },
    async (args) => {
      logCall('send_email', args);
      return {
        content: [{ type: 'text', text: `sent to ${args.to}` }],
        structuredContent: { sent: true, to: args.to },
      };
    },
  );
  server.registerTool(
    'delete_file',
    { description: 'Deletes a file.', inputSchema: { path: z.string() }, annotations: { destructiveHint: true } },
    async (args) => {
      logCall('delete_file', args);
      return { content: [{ type: 'text', text: `deleted ${args.path}` }] };
    },
  );
  server.registerTool(
    'list_files',
    { description: 'Lists files.', inputSchema: { dir: z.string() }, annotations: { readOnlyHint: true } },
    async (args) => {
      logCall('list_files', args);
      return { content: [{ type: 'text', text: `${args.dir}: a.txt b.txt` }] };
    },
  );
  server.registerTool('fail', { description: 'Always fails.', inputSchema: {} }, async () => {
    logCall('fail', {});
    return { content: [{ type: 'text', text: 'it failed' }], isError: true };
  });
  server.registerTool('crash', { description: 'Exits the server process.', inputSchema: {} }, async () => {
    logCall('crash', {});
    setImmediate(() => process.exit(3));
    return new Promise(() => undefined);
  });
  server.registerTool(
    'notify',
    {
      description: 'Reports progress, announces that its tool list changed and logs a message.',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    async (_args, extra) => {
      logCall('notify', {});
      const token = extra._meta?.progressToken;
      if (token !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: 1, total: 2, message: 'half way' },
        });
      server.sendToolListChanged();
      await server.sendLoggingMessage({ level: 'info', logger: 'fake', data: 'notified the host' });
      // The v1 SDK server (1.32) may write a result before a notification its handler awaited:
      // give the notifications a moment, so that a client sees them before the result.
      await new Promise((r) => setTimeout(r, 50));
      return { content: [{ type: 'text', text: 'notified' }] };
    },
  );
  server.registerResource('readme', 'notes://readme', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, text: 'read me first' }],
  }));
  server.registerResource(
    'note',
    new ResourceTemplate('notes://{name}', { list: undefined }),
    { mimeType: 'text/plain' },
    async (uri, { name }) => ({
      contents: [
        {
          uri: uri.href,
          // notes://env: what of the host's environment reached this server (the proxy passes it on).
          text:
            name === 'env'
              ? `FAKE_UPSTREAM_VAR=${process.env.FAKE_UPSTREAM_VAR ?? ''}; ASKGATE_API_TOKEN ${process.env.ASKGATE_API_TOKEN ? 'present' : 'absent'}`
              : `note ${String(name)}`,
        },
      ],
    }),
  );
  const names = ['Ada', 'Alan', 'Grace'];
  const name = completable(z.string(), (value) => names.filter((n) => n.startsWith(value)));
  server.registerPrompt('greet', { argsSchema: { name } }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }],
  }));
  return server;
}

if (values.http !== undefined) {
  const http = createServer(async (req, res) => {
    if (values.token && req.headers.authorization !== `Bearer ${values.token}`) return void res.writeHead(401).end();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  http.listen(Number(values.http), '127.0.0.1', () => {
    console.log(`fake upstream on http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
  });
} else {
  await build().connect(new StdioServerTransport());
}
