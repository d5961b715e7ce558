import { describe, expect, it } from 'vitest';
import {
  defaultMaxConnections,
  openFileLimit,
  PROBE_LANE,
  requestTimeoutOptions,
} from '../../src/api/connection-limits.js';
import { ConfigError, loadConfig } from '../../src/config.js';

const limits = (soft: string, hard = soft) =>
  [
    'Limit                     Soft Limit           Hard Limit           Units     ',
    'Max processes             63432                63432                processes ',
    `Max open files            ${soft.padEnd(20)} ${hard.padEnd(20)} files     `,
    'Max locked memory         8388608              8388608              bytes     ',
  ].join('\n');

describe('the default connection limit stays below the open-file limit', () => {
  it.each([
    ['1024', 1024],
    ['20000', 20_000],
    ['unlimited', Number.POSITIVE_INFINITY],
  ])('reads the soft limit %s from /proc/self/limits', (soft, expected) => {
    expect(openFileLimit(() => limits(soft, '1048576'))).toBe(expected);
  });

  it('is undefined where the file is missing or has no such line', () => {
    expect(
      openFileLimit(() => {
        throw new Error('ENOENT');
      }),
    ).toBeUndefined();
    expect(openFileLimit(() => 'Limit Soft Hard\n')).toBeUndefined();
  });

  it.each([
    [1024, 768],
    [20_000, 19_744],
    [1_048_576, 65_536],
    [Number.POSITIVE_INFINITY, 65_536],
    [256, PROBE_LANE],
    [undefined, 1000],
  ])('open files %s: %s connections', (openFiles, expected) => {
    expect(defaultMaxConnections(openFiles)).toBe(expected);
  });

  it('reads this process limit on Linux', () => {
    if (process.platform === 'linux') expect(openFileLimit()).toBeGreaterThan(0);
  });
});

describe('the request timeout', () => {
  it('bounds headers and body alike and is checked every second at most', () => {
    expect(requestTimeoutOptions(30_000)).toEqual({
      requestTimeout: 30_000,
      http: { requestTimeout: 30_000, headersTimeout: 30_000, connectionsCheckingInterval: 1000 },
    });
    expect(requestTimeoutOptions(500).http.connectionsCheckingInterval).toBe(500);
  });

  it('is 30 s by default, set in whole seconds; the connection limit is unset (from the open-file limit) or a number', () => {
    expect(loadConfig({}).http).toEqual({ requestTimeoutMs: 30_000, maxConnections: undefined });
    expect(loadConfig({ ASKGATE_REQUEST_TIMEOUT_SECONDS: '2', ASKGATE_MAX_CONNECTIONS: '500' }).http).toEqual({
      requestTimeoutMs: 2000,
      maxConnections: 500,
    });
    for (const bad of [
      { ASKGATE_REQUEST_TIMEOUT_SECONDS: '0' },
      { ASKGATE_MAX_CONNECTIONS: '0' },
      { ASKGATE_MAX_CONNECTIONS: 'x' },
    ])
      expect(() => loadConfig(bad)).toThrow(ConfigError);
  });
});
