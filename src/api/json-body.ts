import { isUtf8 } from 'node:buffer';
import { AskgateError, invalid } from '../core/errors.js';

interface Node {
  value: unknown;
  key: string | number;
  parent: Node | null;
}

const pathOf = (node: Node): (string | number)[] => {
  const keys: (string | number)[] = [];
  for (let n: Node | null = node; n?.parent; n = n.parent) keys.push(n.key);
  return keys.reverse();
};

/** An own `__proto__` key, or a `constructor` holding `prototype`, and the path of the object holding it; null when there is none. */
function forbiddenKey(root: object): { key: string; path: (string | number)[] } | null {
  // Iterative: bodies may nest thousands deep. The path is built only for the one found.
  const stack: Node[] = [{ value: root, key: '', parent: null }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const value = node.value as object;
    const isArray = Array.isArray(value);
    if (!isArray) {
      if (Object.hasOwn(value, '__proto__')) return { key: '__proto__', path: pathOf(node) };
      const ctor: unknown = Object.hasOwn(value, 'constructor')
        ? (value as { constructor: unknown }).constructor
        : undefined;
      if (ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype'))
        return { key: 'constructor.prototype', path: pathOf(node) };
    }
    for (const [key, child] of Object.entries(value)) {
      if (child !== null && typeof child === 'object')
        stack.push({ value: child, key: isArray ? Number(key) : key, parent: node });
    }
  }
  return null;
}

/**
 * The deepest nesting of arrays and objects a request body may have. askgate's own bodies nest
 * about 10 deep (an A2A message holding an ask); recursive code past the parser (the SDKs' schema
 * checks, JSON.stringify) overflows the stack at a few thousand.
 */
export const MAX_JSON_DEPTH = 64;

/** True when the JSON text in `body` opens more than `max` arrays or objects inside one another (strings skipped). */
function nestsDeeperThan(body: Buffer, max: number): boolean {
  // Most bodies open far fewer than `max` brackets in all (an ask: about 20), found by indexOf
  // without the byte loop below (about 60 µs on a 60 KB body; this, about 1 µs).
  let openings = 0;
  for (const bracket of [0x5b, 0x7b]) {
    for (let i = body.indexOf(bracket); i !== -1 && openings <= max; i = body.indexOf(bracket, i + 1)) openings++;
  }
  if (openings <= max) return false;
  let depth = 0;
  let inString = false;
  // Byte by byte: every byte of a multi-byte UTF-8 character is >= 0x80, never a quote, backslash or bracket.
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * Parses a JSON request body: UTF-8 only (RFC 8259; decoding would turn invalid bytes into
 * U+FFFD and store them), at most {@link MAX_JSON_DEPTH} levels deep, and no `__proto__` or
 * `constructor.prototype` keys (prototype poisoning), each refused with a message saying so.
 * Throws a 400 {@link AskgateError}.
 */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0)
    throw new AskgateError('invalid_request', 'the body is empty but content-type is application/json');
  if (!isUtf8(body)) throw new AskgateError('invalid_request', 'body is not valid UTF-8');
  if (nestsDeeperThan(body, MAX_JSON_DEPTH))
    throw new AskgateError('invalid_request', `body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`);
  const text = body.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AskgateError('invalid_request', 'body is not valid JSON');
  }
  // Such a key is spelled out in the text or hidden in a \u escape: only then walk the value.
  if (value !== null && typeof value === 'object' && /__proto__|constructor|\\u/.test(text)) {
    const found = forbiddenKey(value);
    // The path is cut short: a body may nest thousands deep, and the message echoes it.
    if (found)
      throw invalid('invalid_request', [
        { path: found.path.slice(0, 32), message: `key "${found.key}" is not allowed` },
      ]);
  }
  return value;
}
