import { describe, expect, it } from 'vitest';
import { answerUrl } from '../../src/links/answer-link.js';
import { LinkRequestSchema, recipientOf } from '../../src/links/links-api.js';
import { browserLocales } from '../../src/links/page-routes.js';
import { PAGE_LOCALES, pageWords } from '../../src/links/page-words.js';
import { esc, PAGE_CSP, PAGE_STYLE, STYLE_SOURCE } from '../../src/links/page-html.js';
import { LOCALES } from '../../src/core/i18n/index.js';
import { createHash } from 'node:crypto';

describe('answer links', () => {
  it('the URL format is fixed: <public>/a/<token>, and ?option=<n> for a preselected option', () => {
    expect(answerUrl('https://a.example.com', 'abc.def')).toBe('https://a.example.com/a/abc.def');
    expect(answerUrl('https://a.example.com/base/', 'abc.def', 2)).toBe(
      'https://a.example.com/base/a/abc.def?option=2',
    );
  });

  it('a link request names its recipient as a target: one user, or the conversation; {} is anyone', () => {
    const read = (body: unknown) => recipientOf(LinkRequestSchema.parse(body));
    expect(read({})).toBe('anyone');
    expect(read({ to: { channel: 'email', chat: 'alice@example.com' } })).toEqual({
      channel: 'email',
      userId: 'alice@example.com',
    });
    expect(read({ to: { channel: 'slack', chat: 'C1', users: ['U42'] } })).toEqual({ channel: 'slack', userId: 'U42' });
    expect(LinkRequestSchema.safeParse({ to: { channel: 'slack', chat: 'C1', users: ['a', 'b'] } }).success).toBe(
      false,
    );
    expect(LinkRequestSchema.safeParse({ option: 5 }).success).toBe(false);
    expect(LinkRequestSchema.safeParse({ extra: 1 }).success).toBe(false);
  });

  it('reads Accept-Language by weight, bounded', () => {
    expect(browserLocales('fr;q=0.5, de-CH, en;q=0.8, *;q=0.1')).toEqual(['de-CH', 'en', 'fr']);
    expect(browserLocales(undefined)).toEqual([]);
    expect(browserLocales('x,'.repeat(1000)).length).toBeLessThanOrEqual(8);
  });

  it('speaks every shipped locale with the same keys, placeholders kept', () => {
    expect([...PAGE_LOCALES].sort()).toEqual([...LOCALES.keys()].sort());
    for (const tag of PAGE_LOCALES) {
      const t = pageWords(tag);
      expect(t('openUntil', { time: 'T', left: 'L' })).toMatch(/T.*L|L.*T/);
      expect(t('answeringAs', { name: 'N' })).toContain('N');
    }
    expect(pageWords('ko')('send')).toBe('Send');
  });

  it('escapes markup and quotes; the CSP allows only the page’s own style, by hash', () => {
    expect(esc(`<a href="x" onclick='y'>&`)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;');
    expect(STYLE_SOURCE).toBe(`'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`);
    expect(PAGE_CSP).toBe(
      `default-src 'none'; style-src ${STYLE_SOURCE}; img-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    );
  });
});
