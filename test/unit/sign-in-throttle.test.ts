import { describe, expect, it } from 'vitest';
import { afterFailedSignIn, SIGN_IN_RULE, signInWaitMs, type SignInFailures } from '../../src/core/sign-in-throttle.js';
import { clientKey as signInKey } from '../../src/core/client-address.js';
import { SIGN_IN_ADDRESSES, SignInThrottle } from '../../src/console/sign-in-throttle.js';
import { silentLogger } from '../helpers/logs.js';

const T = 1_000_000;

describe('console sign-in throttle rule', () => {
  it.each<[string, SignInFailures | undefined, number, number]>([
    ['no failures', undefined, T, 0],
    ['4 failures', { count: 4, lastAt: T }, T, 0],
    ['5 failures, at once', { count: 5, lastAt: T }, T, 1_000],
    ['5 failures, 400 ms later', { count: 5, lastAt: T }, T + 400, 600],
    ['5 failures, 1 s later', { count: 5, lastAt: T }, T + 1_000, 0],
    ['6 failures', { count: 6, lastAt: T }, T, 2_000],
    ['10 failures', { count: 10, lastAt: T }, T, 32_000],
    ['14 failures: at the 5 min cap', { count: 14, lastAt: T }, T, 300_000],
    ['1,000 failures: still the cap', { count: 1_000, lastAt: T }, T, 300_000],
    ['1,000 failures, 15 min later: forgotten', { count: 1_000, lastAt: T }, T + 900_000, 0],
  ])('%s', (_name, failures, now, wait) => {
    expect(signInWaitMs(failures, now)).toBe(wait);
  });

  it('counts failures, and starts over once the last one is old enough', () => {
    let f = afterFailedSignIn(undefined, T);
    for (let i = 1; i < 7; i++) f = afterFailedSignIn(f, T + i);
    expect(f).toEqual({ count: 7, lastAt: T + 6 });
    expect(afterFailedSignIn(f, T + 6 + SIGN_IN_RULE.forgetAfterMs)).toEqual({
      count: 1,
      lastAt: T + 6 + SIGN_IN_RULE.forgetAfterMs,
    });
  });

  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['::FFFF:203.0.113.9', '203.0.113.9'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::99', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff::', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8::1::2', '2001:db8::1::2'],
    ['not an address', 'not an address'],
  ])('keys %s as %s', (address, key) => {
    expect(signInKey(address)).toBe(key);
  });
});

describe('SignInThrottle', () => {
  it('remembers a bounded number of addresses: a flood of new ones forgets the oldest', () => {
    const throttle = new SignInThrottle({ now: () => T }, silentLogger);
    for (let i = 0; i < 5; i++) throttle.failed('198.51.100.7');
    expect(throttle.retryAfterSeconds('198.51.100.7')).toBe(1);
    expect(throttle.retryAfterSeconds('::ffff:198.51.100.7')).toBe(1); // the same address
    for (let i = 0; i < 2 * SIGN_IN_ADDRESSES; i++)
      throttle.failed(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    expect(throttle.remembered).toBe(SIGN_IN_ADDRESSES);
    expect(throttle.retryAfterSeconds('198.51.100.7')).toBe(0);
  });
});
