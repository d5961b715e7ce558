import { describe, expect, it } from 'vitest';
import { callerOf } from '../../src/api/mcp-sessions.js';

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
