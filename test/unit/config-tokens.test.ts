import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadMcpClientConfig } from '../../src/config.js';

// Tokens askgate sends in an HTTP header or URL, or compares with one a platform sent: a space or a
// non-ASCII character means the token can never authenticate, so askgate refuses it at startup.
const SETTINGS: Record<string, Record<string, string>> = {
  ASKGATE_API_TOKEN: {},
  TELEGRAM_BOT_TOKEN: {},
  SLACK_BOT_TOKEN: { SLACK_SIGNING_SECRET: 'abcdef0123456789abcdef0123456789' },
  SLACK_SIGNING_SECRET: { SLACK_BOT_TOKEN: 'xoxb-1-2-abc' },
  SLACK_APP_TOKEN: { SLACK_BOT_TOKEN: 'xoxb-1-2-abc' },
  DISCORD_BOT_TOKEN: {},
};

const BAD: [string, string, RegExp][] = [
  ['a space inside', 'correct horse battery staple', /space or a control character/],
  ['a tab inside', 'correct-horse\tbattery-staple', /space or a control character/],
  ['a no-break space inside', 'correct-horse\u00a0battery-staple', /space or a control character/],
  ['a non-ASCII letter', 'cörrect-horse-battery-staple', /non-ASCII/],
  ['a full-width letter', 'ｃorrect-horse-battery-staple', /non-ASCII/],
  ['an emoji', 'correct-horse-battery-staple-🔑', /non-ASCII/],
  ['a zero-width space', 'correct-horse\u200bbattery-staple', /space or a control character|non-ASCII/],
];

describe('token settings: refused at startup when they can never authenticate', () => {
  for (const [name, others] of Object.entries(SETTINGS)) {
    for (const [what, value, message] of BAD) {
      it(`${name} with ${what}`, () => {
        let error: unknown;
        try {
          loadConfig({ ...others, [name]: value });
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(ConfigError);
        const text = (error as Error).message;
        expect(text).toContain(name);
        expect(text).toMatch(message);
        expect(text).not.toContain(value);
        expect(text).not.toContain('horse');
      });
    }
    it(`${name}: printable ASCII with punctuation is accepted (trimmed)`, () => {
      expect(() => loadConfig({ ...others, [name]: '  Ab0-._~+/=:!#$%&*?@^`|xyz12345  ' })).not.toThrow();
    });
  }

  it('askgate mcp (the client settings) refuses such an ASKGATE_API_TOKEN too', () => {
    expect(() => loadMcpClientConfig({ ASKGATE_API_TOKEN: 'correct horse battery staple' })).toThrow(
      /ASKGATE_API_TOKEN: contains a space/,
    );
    expect(loadMcpClientConfig({ ASKGATE_API_TOKEN: 'correct-horse' }).token).toBe('correct-horse');
  });

  it('ASKGATE_WEBHOOK_SECRET is an HMAC key shared with the receiver: any text works, so it stays allowed', () => {
    expect(loadConfig({ ASKGATE_WEBHOOK_SECRET: 'correct horse battery stäple' }).webhook.secret).toBe(
      'correct horse battery stäple',
    );
  });
});
