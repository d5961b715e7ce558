import { describe, expect, it, vi } from 'vitest';
import { globToRegExp, parseProxyArgs, splitCommand } from '../../src/mcp-proxy/options.js';
import { isGated, runMcpProxy } from '../../src/mcp-proxy/run.js';
import { UsageError } from '../../src/cli-ask-policy.js';

const base = ['--upstream', 'node server.js', '--approve', 'send_*'];
const parse = (argv: string[]) => parseProxyArgs(argv, { waitSeconds: 50 });

describe('mcp-proxy flags', () => {
  it('splits --upstream like a shell splits words, without expanding anything', () => {
    expect(splitCommand(`npx -y @scope/server "/my dir" 'it''s' a\\ b "q\\"x" $HOME *`)).toEqual([
      'npx',
      '-y',
      '@scope/server',
      '/my dir',
      'its',
      'a b',
      'q"x',
      '$HOME',
      '*',
    ]);
    expect(splitCommand(`"" x`)).toEqual(['', 'x']);
    expect(() => splitCommand(`node "server.js`)).toThrow(UsageError);
  });

  it('reads tool-name globs: * any run, ? one character, everything else literal', () => {
    const glob = globToRegExp('delete_*');
    expect(['delete_file', 'delete_'].every((n) => glob.test(n))).toBe(true);
    expect(glob.test('undelete_file')).toBe(false);
    expect(globToRegExp('a.b?').test('a.bc')).toBe(true);
    expect(globToRegExp('a.b?').test('axbc')).toBe(false);
    expect(globToRegExp('(x)+').test('(x)+')).toBe(true);
  });

  it('parses a stdio or HTTP upstream, targets, run id, waits and --listen', () => {
    const opts = parse([...base, '--to', 'telegram:1', '--to', 'slack:C1', '--run-id', 'ci-7', '--wait-seconds', '0']);
    expect(opts.upstream).toEqual({ kind: 'stdio', command: 'node', args: ['server.js'] });
    expect(opts.to).toEqual([
      { channel: 'telegram', chat: '1' },
      { channel: 'slack', chat: 'C1' },
    ]);
    expect(opts).toMatchObject({ runId: 'ci-7', waitMs: 0, timeoutSeconds: 900 });
    expect(parse(base).runId).toMatch(/^mcp-proxy-[A-Za-z0-9]{12}$/);
    const http = parse([
      '--upstream-url',
      'https://mcp.example/mcp',
      '--upstream-header',
      'Authorization: Bearer abc def',
      '--upstream-header',
      'X-Team:ops',
      '--approve-destructive',
      '--listen',
      '0',
    ]);
    expect(http.upstream).toEqual({
      kind: 'http',
      url: new URL('https://mcp.example/mcp'),
      headers: { Authorization: 'Bearer abc def', 'X-Team': 'ops' },
    });
    expect(http.listen).toEqual({ port: 0, host: '127.0.0.1' });
    expect(parseProxyArgs(base, { waitSeconds: 7, to: { channel: 'test', chat: 'c' } })).toMatchObject({
      waitMs: 7000,
      to: { channel: 'test', chat: 'c' },
    });
  });

  it.each([
    [[], /exactly one of --upstream/],
    [['--upstream', 'a', '--upstream-url', 'http://x/mcp', '--approve', 'x'], /exactly one of --upstream/],
    [['--upstream', 'node s.js'], /name the tools to approve/],
    [['--upstream', '  ', '--approve', 'x'], /names no command/],
    [['--upstream-url', 'ftp://x', '--approve', 'x'], /http:\/\/ or https:\/\//],
    [['--upstream-url', 'not a url', '--approve', 'x'], /not a URL/],
    [[...base, '--wait-seconds', '56'], /--wait-seconds must be a number from 0 to 55/],
    [[...base, '--timeout', '0'], /--timeout/],
    [[...base, '--run-id', 'a b'], /--run-id/],
    [[...base, '--run-id', 'x'.repeat(101)], /--run-id/],
    [[...base, '--to', 'nowhere'], /--to/],
    [[...base, '--listen', '70000'], /--listen takes a port/],
    [[...base, '--host', '0.0.0.0'], /--host goes with --listen/],
    [[...base, '--upstream-header', 'A: b'], /--upstream-header goes with --upstream-url/],
    [['--upstream-url', 'http://x/mcp', '--approve', 'x', '--upstream-header', 'no colon'], /Name: value/],
    [['--upstream-url', 'http://x/mcp', '--approve', 'x', '--upstream-header', 'Bad Name: v'], /Name: value/],
  ])('refuses %j', (argv, message) => {
    expect(() => parse(argv as string[])).toThrow(message);
  });

  it('--help prints its own usage and exits 0', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      expect(await runMcpProxy(['--help'], {})).toBe(0);
      expect(String(log.mock.calls[0]?.[0])).toMatch(
        /^askgate mcp-proxy — .*\n\nUsage:\n  askgate mcp-proxy --upstream/s,
      );
    } finally {
      log.mockRestore();
    }
  });

  it('refuses an unknown flag', () => {
    expect(() => parse([...base, '--aprove', 'x'])).toThrow(/Unknown option '--aprove'/);
  });

  it('listens off loopback only with ASKGATE_MCP_PROXY_TOKEN (checked before anything starts)', async () => {
    const off = [...base, '--listen', '0', '--host', '0.0.0.0'];
    await expect(runMcpProxy(off, {})).rejects.toThrow(/--host off loopback needs ASKGATE_MCP_PROXY_TOKEN/);
    await expect(runMcpProxy(off, { ASKGATE_MCP_PROXY_TOKEN: 'short' })).rejects.toThrow(/at least 16/);
  });
});

describe('which tools are gated', () => {
  const tool = (name: string, annotations?: Record<string, boolean>) => ({
    name,
    inputSchema: { type: 'object' as const },
    ...(annotations ? { annotations } : {}),
  });
  const byName = { approve: [globToRegExp('send_*')], approveDestructive: false };
  const destructive = { approve: [], approveDestructive: true };

  it('by name glob', () => {
    expect(isGated(byName, tool('send_email'))).toBe(true);
    expect(isGated(byName, tool('read_mail', { destructiveHint: true }))).toBe(false);
  });

  it('by MCP annotations: destructiveHint defaults to true and counts only when the tool is not read-only', () => {
    expect(isGated(destructive, tool('rm', { destructiveHint: true }))).toBe(true);
    expect(isGated(destructive, tool('unannotated'))).toBe(true);
    expect(isGated(destructive, tool('mkdir', { readOnlyHint: false, destructiveHint: false }))).toBe(false);
    expect(isGated(destructive, tool('ls', { readOnlyHint: true }))).toBe(false);
    expect(isGated(destructive, tool('odd', { readOnlyHint: true, destructiveHint: true }))).toBe(false);
  });
});
