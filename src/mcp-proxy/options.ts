// `askgate mcp-proxy` flags: which upstream, which tools need a person's approval, where the
// approval goes, how long one call waits. Parsed once at start; a bad flag is a usage error (exit 2).
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Target } from '../core/schemas.js';
import { RunIdSchema } from '../core/request-schemas.js';
import { parseTargetSpec } from '../config-values.js';
import { UsageError } from '../cli-ask-policy.js';

/** How the proxy reaches the server it fronts. */
export type Upstream =
  { kind: 'stdio'; command: string; args: string[] } | { kind: 'http'; url: URL; headers: Record<string, string> };

/** Everything `askgate mcp-proxy` was told on its command line (and the environment's defaults). */
export interface ProxyOptions {
  upstream: Upstream;
  /** Tool-name globs (`*`, `?`) whose calls need an approval. */
  approve: RegExp[];
  /** Also gate every tool the upstream marks `destructiveHint: true`. */
  approveDestructive: boolean;
  /** Where approvals go (`--to`, else `ASKGATE_DEFAULT_TO`); none: the console or the API answers. */
  to?: Target | Target[];
  /** Base run id; each gated call's ask runs under `<base>.<hash of the call>`. */
  runId: string;
  /** How long an approval stays open, in seconds (askgate clamps it). */
  timeoutSeconds: number;
  /** The longest one tool call waits before it returns `pending`, in ms. */
  waitMs: number;
  /** Serve Streamable HTTP on this port too (`--listen`), on `host`. */
  listen?: { port: number; host: string };
}

/** `askgate mcp-proxy --help`. */
export const PROXY_USAGE = `askgate mcp-proxy — put a person's approval in front of an MCP server's tools

Usage:
  askgate mcp-proxy --upstream "<command and args>" | --upstream-url <url> [--upstream-header "Name: value"]...
                    --approve <tool-name glob>... | --approve-destructive
                    [--to <channel>:<chat>]... [--run-id <id>] [--timeout <seconds>] [--wait-seconds <0-55>]
                    [--listen <port> [--host <address>]]

Serves the upstream MCP server's tools, resources and prompts on stdio (2025-11-25 and 2026-07-28;
with --listen: Streamable HTTP at /mcp instead). A call of a gated tool (a name matching an
--approve glob, * and ?; or with --approve-destructive a tool MCP counts as destructive: not
readOnlyHint, destructiveHint not false) first becomes an approval ask in askgate (action = the tool,
arguments = the call's), and reaches the upstream only once a person approved it (or edited its
arguments), exactly once. A call waits at most --wait-seconds (default ASKGATE_MCP_WAIT_SECONDS),
then returns {"status": "pending", "askId"}: the host continues with the added await_approval tool;
a host declaring the Tasks extension gets a task instead.
  --upstream    the server's command line, split like a shell splits words (no expansion); it gets
                this process's environment, without ASKGATE_API_TOKEN and ASKGATE_MCP_PROXY_TOKEN
  --upstream-header  a header of every request to --upstream-url (e.g. "Authorization: Bearer …")
  --to          where approvals go (default ASKGATE_DEFAULT_TO; none: the console or the API)
  --run-id      base run id (default one per process); each call's ask runs under <run-id>.<call hash>
  --timeout     how long an approval stays open (default 900 s)
  --listen      serve Streamable HTTP on this port (0: any) on --host (default 127.0.0.1)

Environment: ASKGATE_URL, ASKGATE_API_TOKEN (the running askgate), ASKGATE_DEFAULT_TO,
ASKGATE_MCP_WAIT_SECONDS, ASKGATE_MCP_PROXY_TOKEN (with --listen: the bearer token every request
must carry; required off loopback), LOG_LEVEL (stderr).`;

/** The follow-up tool the proxy adds to the upstream's tools. */
export const AWAIT_APPROVAL_TOOL = 'await_approval';

/** A tool-name glob as an anchored RegExp: `*` any run of characters, `?` one, the rest literal. */
export function globToRegExp(glob: string): RegExp {
  const body = [...glob]
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`, 's');
}

/**
 * Splits `--upstream "<command and args>"` like a POSIX shell does words: blanks separate, single
 * quotes keep everything, double quotes keep all but `\"` and `\\`, a backslash outside quotes
 * escapes the next character. No expansion of any kind (no `$VAR`, no globs).
 */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) word += line[++i];
      else word += c;
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else word = (word ?? '') + c;
  }
  if (quote) throw new UsageError(`--upstream has an unclosed ${quote} quote`);
  if (word !== undefined) words.push(word);
  return words;
}

const seconds = (flag: string, raw: string | undefined, fallback: number, min: number, max: number): number => {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max)
    throw new UsageError(`--${flag} must be a number from ${min} to ${max}`);
  return n;
};

/** Parses `askgate mcp-proxy`'s flags; `defaults` come from the environment (`ASKGATE_DEFAULT_TO`, `ASKGATE_MCP_WAIT_SECONDS`). */
export function parseProxyArgs(argv: string[], defaults: { to?: Target; waitSeconds: number }): ProxyOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      upstream: { type: 'string' },
      'upstream-url': { type: 'string' },
      'upstream-header': { type: 'string', multiple: true },
      approve: { type: 'string', multiple: true },
      'approve-destructive': { type: 'boolean' },
      to: { type: 'string', multiple: true },
      'run-id': { type: 'string' },
      timeout: { type: 'string' },
      'wait-seconds': { type: 'string' },
      listen: { type: 'string' },
      host: { type: 'string' },
    },
  });
  if ((values.upstream === undefined) === (values['upstream-url'] === undefined))
    throw new UsageError('give exactly one of --upstream "<command and args>" or --upstream-url <url>');
  let upstream: Upstream;
  if (values.upstream !== undefined) {
    const [command, ...args] = splitCommand(values.upstream);
    if (!command) throw new UsageError('--upstream names no command');
    upstream = { kind: 'stdio', command, args };
  } else {
    let url: URL;
    try {
      url = new URL(values['upstream-url']!);
    } catch {
      throw new UsageError('--upstream-url is not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new UsageError('--upstream-url must be an http:// or https:// URL');
    const headers: Record<string, string> = {};
    for (const line of values['upstream-header'] ?? []) {
      const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(line);
      if (!match || /[\r\n]/.test(match[2]!)) throw new UsageError('--upstream-header takes "Name: value"');
      headers[match[1]!] = match[2]!.trim();
    }
    upstream = { kind: 'http', url, headers };
  }
  if (values['upstream-header'] && values.upstream !== undefined)
    throw new UsageError('--upstream-header goes with --upstream-url');
  const approve = (values.approve ?? []).map((glob) => {
    if (glob === '' || glob.length > 200) throw new UsageError('--approve takes a tool-name glob of 1–200 characters');
    return globToRegExp(glob);
  });
  if (approve.length === 0 && !values['approve-destructive'])
    throw new UsageError('name the tools to approve: --approve <glob> (repeatable) and/or --approve-destructive');
  let to: Target | Target[] | undefined = defaults.to;
  if (values.to) {
    if (values.to.length > 5) throw new UsageError('--to is given more than 5 times');
    try {
      const targets = values.to.map(parseTargetSpec);
      to = targets.length === 1 ? targets[0] : targets;
    } catch (error) {
      throw new UsageError(`--to: ${(error as Error).message}`);
    }
  }
  const runId =
    values['run-id'] ??
    `mcp-proxy-${randomBytes(9)
      .toString('base64url')
      .replace(/[^A-Za-z0-9]/g, 'x')}`;
  // Room for the call's own suffix (`.` and 16 hex digits) under the 128-character limit.
  if (!RunIdSchema.safeParse(runId).success || runId.length > 100)
    throw new UsageError('--run-id must be 1–100 characters of A-Z a-z 0-9 _ . -');
  let listen: ProxyOptions['listen'];
  if (values.listen !== undefined) {
    const port = Number(values.listen);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--listen takes a port (0–65535)');
    listen = { port, host: values.host ?? '127.0.0.1' };
  } else if (values.host !== undefined) throw new UsageError('--host goes with --listen');
  return {
    upstream,
    approve,
    approveDestructive: values['approve-destructive'] ?? false,
    ...(to ? { to } : {}),
    runId,
    timeoutSeconds: seconds('timeout', values.timeout, 900, 1, 86_400),
    waitMs: seconds('wait-seconds', values['wait-seconds'], defaults.waitSeconds, 0, 55) * 1000,
    ...(listen ? { listen } : {}),
  };
}
