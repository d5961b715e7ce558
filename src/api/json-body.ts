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
 * Parses a JSON request body: UTF-8 only (RFC 8259; decoding would turn invalid bytes into
 * U+FFFD and store them), and no `__proto__` or `constructor.prototype` keys (prototype
 * poisoning), each refused with a message saying so. Throws a 400 {@link AskgateError}.
 */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0)
    throw new AskgateError('invalid_request', 'the body is empty but content-type is application/json');
  if (!isUtf8(body)) throw new AskgateError('invalid_request', 'body is not valid UTF-8');
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
