// Reading a typed email address or link: practical, strict rules; nothing is repaired or guessed.
import { FORMAT, read, type Parsed } from './types.js';

const EDGES = /^[\s\p{Cf}]+|[\s\p{Cf}]+$/gu;
/** Control characters, invisible format characters (bidi overrides, zero-width), any space. */
const HIDDEN = /[\p{Cc}\p{Cf}\s]/u;

/** Longest address (RFC 5321's path limit) and local part. */
const EMAIL_MAX = 254;
const LOCAL_MAX = 64;
/** The characters of an `input type=email` local part (WHATWG), ASCII only. */
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
/** A domain label as typed: letters (any script) and digits, hyphens inside. */
const LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}\p{M}-]*[\p{L}\p{N}\p{M}])?$/u;
/** The same label once IDNA made it ASCII. */
const ASCII_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Reads an email address: ends trimmed, NFKC (a full-width "＠" is "@"), an optional "mailto:"
 * dropped; then the WHATWG `input type=email` rule made practical: an ASCII local part of at most
 * 64 characters without leading, trailing or doubled dots (no quoted local parts, no display names,
 * no comments), and a domain of at least two labels whose last is not all digits (no IP literals,
 * no "localhost"); internationalized domains are accepted as written. At most 254 characters. The
 * value keeps the local part as typed and lower-cases the domain. Always `literal`.
 */
export function parseEmail(text: string): Parsed<string> {
  let s = text.replace(EDGES, '').normalize('NFKC');
  if (/^mailto:/i.test(s)) s = s.slice('mailto:'.length);
  if (s.length > EMAIL_MAX || HIDDEN.test(s)) return FORMAT;
  const at = s.lastIndexOf('@');
  const [local, domain] = [s.slice(0, at), s.slice(at + 1).toLowerCase()];
  if (at < 0 || local.length > LOCAL_MAX || !LOCAL.test(local) || !isMailDomain(domain)) return FORMAT;
  return read(`${local}@${domain}`, true);
}

function isMailDomain(domain: string): boolean {
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels.at(-1)!)) return false;
  let ascii: string;
  try {
    ascii = new URL(`http://${domain}/`).hostname;
  } catch {
    return false;
  }
  return ascii.length <= 253 && ascii.split('.').every((l) => ASCII_LABEL.test(l));
}

/** Longest link, as typed and as normalized. */
const URL_MAX = 2000;
const AUTHORITY = /^https?:\/\/([^/?#]*)/i;

/**
 * Reads a link: an absolute http or https URL written with its scheme and "//" ("example.com/x" and
 * "www.example.com" are refused: nothing is guessed), with a host, without credentials
 * ("https://user:pass@host" is refused, an "@" anywhere before the path too), without spaces,
 * control or invisible characters or backslashes anywhere, at most 2000 characters. The value is
 * `new URL(text).href` (scheme and host lower-cased, an internationalized host in its xn-- form).
 * Always `literal`.
 */
export function parseUrl(text: string): Parsed<string> {
  const s = text.replace(EDGES, '');
  if (s.length > URL_MAX || HIDDEN.test(s) || s.includes('\\')) return FORMAT;
  const authority = AUTHORITY.exec(s);
  if (!authority || authority[1]!.includes('@')) return FORMAT;
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return FORMAT;
  }
  const web = url.protocol === 'http:' || url.protocol === 'https:';
  if (!web || url.hostname === '' || url.username !== '' || url.password !== '' || url.href.length > URL_MAX)
    return FORMAT;
  return read(url.href, true);
}
