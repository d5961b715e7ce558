#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, loadMcpClientConfig } from './config.js';
import { startAskgate } from './main.js';

/** Exit codes of `askgate ask`, documented in the README. */
export const EXIT = { answered: 0, error: 1, usage: 2, noAnswer: 3, pending: 4 } as const;

const USAGE = `askgate — let AI agents ask people structured questions over chat

Usage:
  askgate serve
  askgate mcp                      MCP server on stdio (tool ask_user), asking through ASKGATE_URL
  askgate ask --run <runId> [--to <channel>:<chat>] --question "<text>" --option <label> --option <label>
              [--header <text>] [--multi] [--question ... --option ...] [--timeout <seconds>]
              [--wait] [--idempotency-key <key>] [--url <askgate url>]

Environment: ASKGATE_URL (default http://127.0.0.1:$PORT), ASKGATE_API_TOKEN, for mcp also
ASKGATE_DEFAULT_TO (e.g. telegram:123456); for serve see README.
Exit codes of ask: 0 answered (or created, without --wait), 3 no answer, 4 still pending,
                   2 invalid arguments or request, 1 any other error.`;

async function serve(): Promise<void> {
  const config = loadConfig();
  for (const notice of config.notices) console.error(`askgate: ${notice}`);
  const app = await startAskgate(config);
  const mode = app.storeMode === 'redis' ? 'redis (durable)' : 'memory (embedded: pending asks do not survive a restart; set REDIS_URL for durability)';
  console.log(`askgate listening on ${app.url}`);
  console.log(`  store: ${mode}`);
  console.log(`  channels: ${app.channels.length ? app.channels.join(', ') : 'none (answer in the web console or through POST /v1/asks/:id/answer)'}`);
  console.log(`  web console: ${app.url}/`);
  const stop = async (signal: string) => {
    console.log(`askgate: ${signal}, shutting down`);
    await app.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

interface DraftQuestion {
  question: string;
  header?: string;
  options: { label: string }[];
  multiSelect?: boolean;
}

/** Builds the ask body from ordered CLI tokens: each --option belongs to the latest --question. */
export function askBodyFromArgs(argv: string[]): { body: Record<string, unknown>; wait: boolean; url?: string; key?: string } {
  const { values, tokens } = parseArgs({
    args: argv,
    tokens: true,
    strict: true,
    options: {
      run: { type: 'string' },
      to: { type: 'string' },
      question: { type: 'string', multiple: true },
      option: { type: 'string', multiple: true },
      header: { type: 'string', multiple: true },
      multi: { type: 'boolean', multiple: true },
      timeout: { type: 'string' },
      wait: { type: 'boolean' },
      url: { type: 'string' },
      'idempotency-key': { type: 'string' },
    },
  });
  const questions: DraftQuestion[] = [];
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (token.name === 'question') questions.push({ question: token.value!, options: [] });
    else if (['option', 'header', 'multi'].includes(token.name)) {
      const current = questions.at(-1);
      if (!current) throw new UsageError(`--${token.name} must follow a --question`);
      if (token.name === 'option') current.options.push({ label: token.value! });
      if (token.name === 'header') current.header = token.value!;
      if (token.name === 'multi') current.multiSelect = true;
    }
  }
  if (!values.run) throw new UsageError('--run is required');
  const body: Record<string, unknown> = { runId: values.run, questions };
  if (values.to) {
    const at = values.to.indexOf(':');
    if (at <= 0) throw new UsageError('--to must look like <channel>:<chat>, e.g. telegram:123456');
    body.to = { channel: values.to.slice(0, at), chat: values.to.slice(at + 1) };
  }
  if (values.timeout !== undefined) body.timeoutSeconds = Number(values.timeout);
  return { body, wait: values.wait ?? false, url: values.url, key: values['idempotency-key'] };
}

class UsageError extends Error {}

async function ask(argv: string[]): Promise<number> {
  const { body, wait, url, key } = askBodyFromArgs(argv);
  const base = (url ?? process.env.ASKGATE_URL ?? `http://127.0.0.1:${process.env.PORT ?? 7420}`).replace(/\/$/, '');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (process.env.ASKGATE_API_TOKEN) headers.authorization = `Bearer ${process.env.ASKGATE_API_TOKEN}`;
  if (key) headers['idempotency-key'] = key;
  let response = await fetch(`${base}/v1/asks`, { method: 'POST', headers, body: JSON.stringify(body) });
  let record = (await response.json()) as { id?: string; status?: string; result?: { status: string }; error?: unknown };
  while (response.ok && wait && record.status === 'pending') {
    response = await fetch(`${base}/v1/asks/${record.id}?wait=60`, { headers });
    record = (await response.json()) as typeof record;
  }
  if (!response.ok) {
    console.error(JSON.stringify(record, null, 2));
    return response.status === 400 ? EXIT.usage : EXIT.error;
  }
  console.log(JSON.stringify(wait ? record.result : record, null, 2));
  if (!wait) return EXIT.answered;
  return record.result?.status === 'answered' ? EXIT.answered : record.status === 'pending' ? EXIT.pending : EXIT.noAnswer;
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  try {
    if (command === 'serve') return await serve();
    if (command === 'ask') process.exit(await ask(rest));
    if (command === 'mcp') {
      const { url, token, mcp } = loadMcpClientConfig();
      const { runStdioMcpServer } = await import('./mcp/stdio.js');
      await runStdioMcpServer({ url, token, settings: mcp });
      process.exit(0);
    }
    console.log(USAGE);
    process.exit(command === undefined || command === 'help' || command === '--help' ? 0 : EXIT.usage);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`askgate: ${(error as Error).message}\n\n${USAGE}`);
      process.exit(EXIT.usage);
    }
    console.error(`askgate: ${(error as Error).message}`);
    process.exit(EXIT.error);
  }
}

if (process.argv[1] && /cli\.(ts|js)$/.test(process.argv[1])) void main(process.argv.slice(2));
