import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

// The answer page (issue 38) signs its links with ASKGATE_LINK_SECRET: with ASKGATE_PUBLIC_URL set a
// missing or short secret stops askgate at startup; the message names the variable, never the value.
const URL_SET = { ASKGATE_PUBLIC_URL: 'https://askgate.example.com/' };
const SECRET = 'k'.repeat(31) + 'Z';

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('loadConfig accepted the configuration');
}

describe('ASKGATE_LINK_SECRET', () => {
  it('off by default: neither variable set, no links and no error', () => {
    const config = loadConfig({});
    expect(config.publicUrl).toBeUndefined();
    expect(config.linkSecret).toBeUndefined();
  });

  it('with ASKGATE_PUBLIC_URL and a 32-character secret: both kept (the URL without its trailing slash)', () => {
    const config = loadConfig({ ...URL_SET, ASKGATE_LINK_SECRET: `  ${SECRET}  ` });
    expect(config.publicUrl).toBe('https://askgate.example.com');
    expect(config.linkSecret).toBe(SECRET);
  });

  it('ASKGATE_PUBLIC_URL without a secret: a startup error naming the variable', () => {
    const message = refusal(URL_SET);
    expect(message).toContain('ASKGATE_LINK_SECRET');
    expect(message).toContain('ASKGATE_PUBLIC_URL');
  });

  it('a secret that is empty counts as missing', () => {
    expect(refusal({ ...URL_SET, ASKGATE_LINK_SECRET: '   ' })).toContain('ASKGATE_LINK_SECRET must be set');
  });

  for (const [what, value, message] of [
    ['31 characters', 'short-secret-0123456789abcdefgh', /at least 32 characters/],
    ['a space inside', 'correct horse battery staple 0123456789', /space or a control character/],
    ['a non-ASCII letter', 'cörrect-horse-battery-staple-0123456789', /non-ASCII/],
  ] as const) {
    it(`a secret with ${what} is refused and not shown`, () => {
      const text = refusal({ ...URL_SET, ASKGATE_LINK_SECRET: value });
      expect(text).toContain('ASKGATE_LINK_SECRET');
      expect(text).toMatch(message);
      expect(text).not.toContain(value);
      expect(text).not.toContain('horse');
      expect(text).not.toContain('short-secret');
    });
  }

  it('a secret without ASKGATE_PUBLIC_URL is checked but not used', () => {
    expect(loadConfig({ ASKGATE_LINK_SECRET: SECRET }).linkSecret).toBeUndefined();
    expect(refusal({ ASKGATE_LINK_SECRET: 'too-short' })).toMatch(/ASKGATE_LINK_SECRET: must be at least 32/);
  });
});
