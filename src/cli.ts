#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig, loadMcpClientConfig } from './config.js';
import { EXIT, UsageError, askgateUrl, runAsk, shown } from './cli-ask.js';
import { runWait } from './cli-wait.js';
import { tuneGarbageCollector } from './gc-tuning.js';

export { EXIT, askBodyFromArgs, type AskArgs } from './cli-ask.js';

const USAGE = `askgate — let AI agents ask people structured questions over chat

Usage:
  askgate serve                    the server (configured by environment variables, see README)
  askgate mcp                      MCP server on stdio (tools ask_user, request_approval), asking through ASKGATE_URL
  askgate mcp-proxy --help         an approval gateway in front of another MCP server: its tools, resources and prompts
                                   served on stdio or Streamable HTTP, the calls of the tools you name run only after a
                                   person approves them through askgate (its own help lists the flags)
  askgate ask --run <runId> [--to <channel>:<chat>] --question "<text>" --option <label> --option <label>
              [--header <text>] [--agent <name>] [--multi] [--question ... --option ...] [--timeout <seconds>]
              [--wait] [--retry-for <seconds>] [--idempotency-key <key>] [--url <askgate url>]
              [--to ... (repeat: several targets)] [--remind <seconds>]... [--agree <n>]
              [--remind-every <seconds>: reminders as a cadence, after any --remind; at least 3600, 20 in all]
              [--hours <days>,<from>-<to>,<IANA zone> (e.g. mon-fri,09:00-18:00,Europe/Lisbon) or '<json>':
              the --to targets' working hours; a reminder due outside waits for the next opening]
              [--escalate <seconds>=<channel>:<chat>[,<channel>:<chat>]]... [--default <questionId>=<label or value>]...
              [--locale <BCP 47 tag, e.g. pt-BR>] [--time-zone <IANA zone, e.g. America/Sao_Paulo>]
              [--expires-at <ISO 8601 time>, instead of --timeout] [--async: the ask may wait up to
              ASKGATE_ASYNC_TIMEOUT_MAX_SECONDS (30 days); come back with askgate wait, not --wait]
              typed questions, instead of --option: --kind text|number|date|time|datetime|email|url
              [--min <value>] [--max <value>] [--integer] [--unit <text>] (number; --min/--max also date,
              time, datetime) [--min-length <n>] [--max-length <n>] [--pattern <RE2>] (text)
              an approval, instead of --question: --approval-action <name> --approval-arguments '<json object>'
              [--approval-summary <text>] [--approval-preview-file <path>] [--approval-schema '<json schema>']
              [--requested-by <channel>:<userId>]
              [--decision approve|reject|request_changes|edit]... [--timeout-decision approve|reject]
  askgate wait <askId> [--retry-for <seconds>] [--url <askgate url>]
                                   waits for an ask's result (one that ask without --wait created,
                                   or any other) and prints it, as ask --wait does
  askgate extend <askId> --timeout <seconds> | --until <ISO 8601 time> [--by <who>] [--url <askgate url>]
                                   moves a pending ask's deadline (at least 60 s from now) and prints the ask
  askgate list [--run <runId>] [--channel <channel>] [--agent <name>] [--limit <1-200>] [--cursor <nextCursor>] [--url <askgate url>]
                                   pending asks, oldest first, as JSON {asks, nextCursor}
  askgate audit verify <file> [--public-key <PEM or file>] | audit public-key | audit export --from <ISO> [--to <ISO>]
                                   the audit trail (docs/audit.md): check an export offline, print the key to publish
  askgate --help

Environment: ASKGATE_URL (default http://127.0.0.1:$PORT), ASKGATE_API_TOKEN, for mcp also
ASKGATE_DEFAULT_TO (e.g. telegram:123456); for serve see README.
ask --wait and wait ride out askgate restarts: refused or dropped connections and 502/503/504 are
retried (by ask with the same idempotency key, generated when not given) for --retry-for seconds
(default 60 with --wait and for wait, 0 without) and, once the ask exists, until 60 s past its deadline.
Exit codes of ask and wait: 0 answered (or created, without --wait; an approval: approved or edited),
                   5 an approval rejected or changes requested, 3 no answer, 4 still pending,
                   2 invalid arguments or request, 1 any other error (e.g. askgate unreachable);
of list: 0 listed, 2 invalid arguments or query, 1 any other error;
of extend: 0 extended, 2 invalid arguments or deadline, 1 any other error (e.g. the ask had ended).`;

async function serve(): Promise<void> {
  tuneGarbageCollector();
  const config = loadConfig();
  for (const notice of config.notices) console.error(`askgate: ${notice}`);
  // Loaded here so that `ask`, `mcp` and `--help` start without the server's modules.
  const { startAskgate } = await import('./main.js');
  const app = await startAskgate(config);
  const mode =
    app.storeMode === 'redis'
      ? 'redis (durable)'
      : 'memory (embedded: pending asks do not survive a restart; set REDIS_URL for durability)';
  console.log(`askgate listening on ${app.url}`);
  console.log(`  store: ${mode}`);
  console.log(
    `  channels: ${app.channels.length ? app.channels.join(', ') : 'none (answer in the web console or through POST /v1/asks/:id/answer)'}`,
  );
  console.log(`  web console: ${app.url}/`);
  const stop = async (signal: string) => {
    console.log(`askgate: ${signal}, shutting down`);
    await app.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

/** The commands that call a running askgate over HTTP; each returns its exit code. */
const CLIENT_COMMANDS = {
  ask: async () => runAsk,
  wait: async () => runWait,
  list: async () => (await import('./cli-list.js')).runList,
  audit: async () => (await import('./audit/cli.js')).runAudit,
  extend: async () => (await import('./cli-extend.js')).runExtend,
} satisfies Record<string, () => Promise<(argv: string[]) => Promise<number>>>;

/** Runs the `askgate` command line (`argv` without node and the script); exits the process except for `serve`. */
export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  try {
    if (command === 'serve') return await serve();
    const client = Object.hasOwn(CLIENT_COMMANDS, command ?? '')
      ? CLIENT_COMMANDS[command as keyof typeof CLIENT_COMMANDS]
      : undefined;
    if (client && !rest.includes('--help')) {
      const code = await (await client())(rest);
      // Exit once stdout is flushed: a pipe (`| jq`) is asynchronous on some platforms.
      process.stdout.write('', () => process.exit(code));
      return;
    }
    if (command === 'mcp-proxy') return process.exit(await (await import('./mcp-proxy/run.js')).runMcpProxy(rest));
    if (command === 'mcp') {
      const { token, mcp, logLevel } = loadMcpClientConfig();
      const url = askgateUrl(undefined, process.env);
      const [{ runStdioMcpServer }, { createLogger }] = await Promise.all([
        import('./mcp/stdio.js'),
        import('./logger.js'),
      ]);
      await runStdioMcpServer({
        url,
        token,
        settings: mcp,
        logger: createLogger(logLevel).child({ component: 'mcp' }),
      });
      process.exit(0);
    }
    const help = command === undefined || client !== undefined || ['help', '--help', '-h'].includes(command);
    if (!help) console.error(`askgate: unknown command ${shown(command)}\n`);
    (help ? console.log : console.error)(USAGE);
    process.exit(help ? 0 : EXIT.usage);
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof ConfigError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      console.error(`askgate: ${(error as Error).message}\n\n${USAGE}`);
      process.exit(EXIT.usage);
    }
    console.error(`askgate: ${(error as Error).message}`);
    process.exit(EXIT.error);
  }
}

/** True when this module is the script node was started with, also through a symlink (`node dist/cli.js`, `tsx src/cli.ts`). */
function isEntryScript(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryScript()) void main(process.argv.slice(2));
