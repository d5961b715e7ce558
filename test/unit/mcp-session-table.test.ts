import { describe, expect, it } from 'vitest';
import { McpSessionTable, callerOf, type TableSession } from '../../src/api/mcp-sessions.js';

describe('callerOf: who opens an MCP session', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::FFFF:10.0.0.7', '10.0.0.7'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8:1:2:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:bbbb:cccc:dddd:eeee', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002::', '2001:db8:1:2::/64'],
    ['2001:db8::9', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    [undefined, 'unknown'],
  ])('%s -> %s', (address, caller) => {
    expect(callerOf(address)).toBe(caller);
  });
});

describe('McpSessionTable: admission per caller and in total', () => {
  type S = TableSession & { name: string };
  const session = (name: string, caller: string, calls = 0): S => ({ name, caller, calls, streams: 0, lastSeen: 0 });
  /** A table holding `open` (oldest first), and the names of the sessions it ends. */
  const table = (limits: { max: number; perCaller: number }, open: S[]) => {
    const ended: string[] = [];
    const t = new McpSessionTable<S>(limits, (s) => void ended.push(s.name));
    for (const s of open) t.add(s.name, s);
    return { t, ended };
  };

  // Sessions as `<name>` (idle) or `<name>*` (a call in flight); the caller is the name's first letter.
  const open = (...names: string[]) => names.map((n) => session(n.replace('*', ''), n[0]!, n.endsWith('*') ? 1 : 0));
  const wide = { max: 4, perCaller: 2 };
  const narrow = { max: 2, perCaller: 1 };
  it.each([
    // [what, limits, open sessions (least recently used first), caller, refusal, ended]
    ['room in both bounds', wide, open('a1*'), 'a', null, []],
    ['the caller at its bound, all busy: 429', wide, open('a1*', 'a2*'), 'a', 'caller', []],
    ['another caller is not held by it', wide, open('a1*', 'a2*'), 'b', null, []],
    [
      'at its bound a caller evicts its own idle one, not an older other',
      wide,
      open('b1', 'a1', 'a2*'),
      'a',
      null,
      ['a1'],
    ],
    ['full in total, all busy: 503', narrow, open('a1*', 'b1*'), 'c', 'total', []],
    ['full in total: the least recently used idle one goes', narrow, open('a1*', 'b1'), 'c', null, ['b1']],
    [
      'a caller bound equal to the total is none (503, not 429)',
      { max: 2, perCaller: 2 },
      open('a1*', 'a2*'),
      'a',
      'total',
      [],
    ],
  ] as const)('%s', (_what, limits, open, caller, refusal, ended) => {
    const t = table(limits, [...open]);
    expect(t.t.admit(caller)).toBe(refusal);
    expect(t.ended).toEqual(ended);
  });

  it('an initialize in progress counts against its caller until it is over', () => {
    const { t } = table({ max: 10, perCaller: 2 }, [session('a1', 'a', 1)]);
    expect(t.admit('a')).toBeNull();
    expect(t.admit('a')).toBe('caller');
    t.opened('a');
    expect(t.admit('a')).toBeNull();
  });
});
