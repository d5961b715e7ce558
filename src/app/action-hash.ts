// The hash that binds a decision to the exact action: sha256 over the RFC 8785 canonical JSON of
// {action, arguments} (`canonicalize`, the reference implementation by the RFC's author), so the
// same action hashes the same wherever it is computed (askgate, the SDK, an agent in another language).
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** `sha256:<hex>` of the canonical JSON of `{action, arguments}`. */
export function actionHash(action: string, args: Readonly<Record<string, unknown>>): string {
  const canonical = canonicalize({ action, arguments: args });
  if (canonical === undefined) throw new TypeError('the action cannot be written as JSON');
  return `sha256:${createHash('sha256').update(canonical, 'utf8').digest('hex')}`;
}
