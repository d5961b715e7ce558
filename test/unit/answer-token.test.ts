import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formGuard, formGuardMatches, mintAnswerToken, readAnswerToken } from '../../src/links/answer-token.js';

const SECRET = 'link-secret-0123456789-0123456789-abcdef';
const now = new Date('2026-12-07T18:00:00Z');
const link = {
  askId: 'Ab3dEf6hIj9kLm',
  recipient: { channel: 'email', userId: 'alice@example.com' },
  expiresAt: new Date('2026-12-07T19:00:00Z'),
};

describe('answer link tokens', () => {
  it('round-trips the ask, the recipient and the expiry', () => {
    const token = mintAnswerToken(link, SECRET);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(readAnswerToken(token, SECRET, now)).toEqual(link);
    const anyone = mintAnswerToken({ ...link, recipient: 'anyone' }, SECRET);
    expect(readAnswerToken(anyone, SECRET, now)?.recipient).toBe('anyone');
    // A user id holding a colon (Slack team:user, a Teams id) stays whole.
    const colon = mintAnswerToken({ ...link, recipient: { channel: 'slack', userId: 'T1:U2' } }, SECRET);
    expect(readAnswerToken(colon, SECRET, now)?.recipient).toEqual({ channel: 'slack', userId: 'T1:U2' });
  });

  it('refuses a token after its expiry, signed with another secret, moved or altered', () => {
    const token = mintAnswerToken(link, SECRET);
    const [payload, signature] = token.split('.') as [string, string];
    const other = mintAnswerToken({ ...link, askId: 'Zz3dEf6hIj9kLm' }, SECRET);
    const cases: [string, string, Date][] = [
      ['expired', token, new Date('2026-12-07T19:00:00Z')],
      ['another secret', mintAnswerToken(link, `${SECRET}-other`), now],
      ['payload of another ask with this signature', `${other.split('.')[0]}.${signature}`, now],
      [
        'a flipped signature character',
        `${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`,
        now,
      ],
      ['no signature', payload, now],
      ['empty', '', now],
      ['not base64url', `${payload}!.${signature}`, now],
      ['huge', `${'a'.repeat(5000)}.${signature}`, now],
    ];
    for (const [name, bad, at] of cases) expect([name, readAnswerToken(bad, SECRET, at)]).toEqual([name, null]);
  });

  it('refuses a validly signed payload of the wrong shape', () => {
    // Signed as the module signs (the same HMAC and purpose), so only the shape is wrong.
    const signed = (fields: unknown) => {
      const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
      return `${payload}.${createHmac('sha256', SECRET).update(`askgate-link:${payload}`).digest('base64url')}`;
    };
    expect(readAnswerToken(signed([1, link.askId, '*', 9_999_999_999]), SECRET, now)).not.toBeNull();
    for (const fields of [
      [2, link.askId, '*', 9_999_999_999],
      [1, 42, '*', 9_999_999_999],
      [1, link.askId, 'no-colon', 9_999_999_999],
      [1, link.askId, ':x', 9_999_999_999],
      [1, link.askId, '*', 9_999_999_999.5],
      [1, link.askId, '*', '9999999999'],
      [1, link.askId, '*'],
      { askId: link.askId },
    ])
      expect([fields, readAnswerToken(signed(fields), SECRET, now)]).toEqual([fields, null]);
  });

  it("the form's anti-forgery value is tied to the token", () => {
    const token = mintAnswerToken(link, SECRET);
    const guard = formGuard(token, SECRET);
    expect(formGuardMatches(token, guard, SECRET)).toBe(true);
    expect(formGuardMatches(mintAnswerToken({ ...link, recipient: 'anyone' }, SECRET), guard, SECRET)).toBe(false);
    expect(formGuardMatches(token, undefined, SECRET)).toBe(false);
    expect(formGuardMatches(token, guard.slice(1), SECRET)).toBe(false);
  });
});
