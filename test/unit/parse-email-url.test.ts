import { describe, expect, it } from 'vitest';
import { parseEmail, parseUrl } from '../../src/core/questions/parse/index.js';

const LONG_LABEL = 'a'.repeat(63);

describe('parseEmail', () => {
  it.each([
    ['user@example.com', 'user@example.com'],
    ['  user@example.com\n', 'user@example.com'],
    ['John.Doe@EXAMPLE.COM', 'John.Doe@example.com'], // the local part as typed, the domain lower-cased
    ['mailto:a@b.co', 'a@b.co'],
    ['MAILTO:Team@Example.org', 'Team@example.org'],
    ["o'brien+tag@mail.example.org", "o'brien+tag@mail.example.org"],
    ['a_b-c@sub.example.co.uk', 'a_b-c@sub.example.co.uk'],
    ["#!$%&'*+-/=?^_`{}|~@example.com", "#!$%&'*+-/=?^_`{}|~@example.com"],
    ['user@bücher.de', 'user@bücher.de'], // an internationalized domain as written
    ['user@BÜCHER.DE', 'user@bücher.de'],
    ['user@例え.jp', 'user@例え.jp'],
    ['user@xn--bcher-kva.de', 'user@xn--bcher-kva.de'],
    ['ｕｓｅｒ＠ｅｘａｍｐｌｅ．ｃｏｍ', 'user@example.com'], // full width
    ['1@2.io', '1@2.io'],
    [`${'a'.repeat(64)}@example.com`, `${'a'.repeat(64)}@example.com`],
    [`u@${LONG_LABEL}.com`, `u@${LONG_LABEL}.com`],
  ])('%j reads as %j', (text, value) => {
    expect(parseEmail(text)).toEqual({ ok: true, value, literal: true });
  });

  it.each([
    [''],
    ['plainaddress'],
    ['@example.com'],
    ['user@'],
    ['user@localhost'], // no dot: no domain anyone can mail
    ['user@1.2.3.4'], // no IP literals
    ['user@[1.2.3.4]'],
    ['John <john@example.com>'], // no display names
    ['<john@example.com>'],
    ['"john"@example.com'], // no quoted local parts
    ['a..b@example.com'],
    ['.a@example.com'],
    ['a.@example.com'],
    ['user@-example.com'],
    ['user@example-.com'],
    ['user@example..com'],
    ['user@ex_ample.com'],
    ['us er@example.com'],
    ['user@exa mple.com'],
    ['user\u0000@example.com'],
    ['user@exam\u200bple.com'], // a zero-width space
    ['user@example.com\u202e'.concat('moc.live')], // a bidi override
    ['user@@example.com'],
    ['mailto:user@example.com?subject=hi'],
    ['javascript:alert(1)@example.com'],
    ['usér@example.com'], // the local part is ASCII
    [`${'a'.repeat(65)}@example.com`], // local part over 64
    [`u@${'a'.repeat(64)}.com`], // a label over 63
    [`u@${Array(60).fill('abcd').join('.')}.com`], // over 254 in all
    [`${'a'.repeat(300)}@example.com`],
  ])('%j is no address', (text) => {
    expect(parseEmail(text)).toEqual({ ok: false, reason: 'format' });
  });
});

describe('parseUrl', () => {
  it.each([
    ['https://example.com', 'https://example.com/'],
    ['http://example.com/path?q=1#frag', 'http://example.com/path?q=1#frag'],
    ['HTTPS://EXAMPLE.COM/A', 'https://example.com/A'],
    ['https://example.com:8443/x', 'https://example.com:8443/x'],
    ['https://example.com:443/x', 'https://example.com/x'],
    ['https://bücher.de/', 'https://xn--bcher-kva.de/'],
    ['https://例え.jp/', 'https://xn--r8jz45g.jp/'],
    ['https://example.com/ü', 'https://example.com/%C3%BC'],
    ['https://example.com/a%20b', 'https://example.com/a%20b'],
    ['https://localhost:3000/', 'https://localhost:3000/'],
    ['https://192.168.0.1/', 'https://192.168.0.1/'],
    ['https://[::1]/', 'https://[::1]/'],
    ['  https://example.com/x  ', 'https://example.com/x'],
    ['https://example.com/a/../b', 'https://example.com/b'],
    ['https://example.com/?q=a@b', 'https://example.com/?q=a@b'], // an "@" after the host is fine
    [`https://example.com/${'a'.repeat(1900)}`, `https://example.com/${'a'.repeat(1900)}`],
  ])('%j reads as %j', (text, value) => {
    expect(parseUrl(text)).toEqual({ ok: true, value, literal: true });
  });

  it.each([
    [''],
    ['example.com/x'], // no scheme: refused, nothing guessed
    ['www.example.com'],
    ['//example.com/x'],
    ['javascript:alert(1)'],
    ['JavaScript:alert(document.cookie)'],
    ['java\nscript:alert(1)'],
    ['data:text/html,<script>alert(1)</script>'],
    ['ftp://example.com/file'],
    ['file:///etc/passwd'],
    ['mailto:a@b.com'],
    ['https://user:pass@example.com/'], // credentials
    ['https://user@example.com/'],
    ['https://@example.com/'],
    ['https://example.com@evil.com/'],
    ['http:example.com'],
    ['https:/example.com'],
    ['https:\\\\example.com'],
    ['https://example.com\\@evil.com'],
    ['https://'],
    ['https:// example.com'],
    ['https://exa mple.com'],
    ['https://example.com/a b'],
    ['https://exa\tmple.com/'],
    ['https://example.com\n/x'],
    ['https://example.com/\u0000'],
    ['https://example.com/\u202egnp.exe'],
    ['https://exam\u200bple.com/'],
    ['https://example.com:99999/'],
    ['http://javascript:alert(1)'],
    [`https://example.com/${'a'.repeat(2000)}`],
  ])('%j is no link', (text) => {
    expect(parseUrl(text)).toEqual({ ok: false, reason: 'format' });
  });
});
