// The audit trail's hashes and signatures: SHA-256 over RFC 8785 canonical JSON (`canonicalize`,
// the RFC author's implementation, as the action hash uses) and Ed25519 from node:crypto.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { EntryHasher } from '../core/audit/chain.js';
import type { AuditCheckpoint } from '../core/audit/verify.js';

/** RFC 8785 canonical JSON of `value`. */
export function canonical(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('the value cannot be written as JSON');
  return text;
}

/** `sha256:<hex>` of a UTF-8 string. */
export const sha256 = (text: string): string => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;

/** The hash of an audit entry without its `hash`. */
export const entryHash: EntryHasher = (unhashed) => sha256(canonical(unhashed));

/** The variable the signing key comes from (named in every error about it; its value never is). */
export const SIGNING_KEY_VARIABLE = 'ASKGATE_AUDIT_SIGNING_KEY';

/** PEM text from the environment: `\n` written as two characters (one-line env files) restored. */
const pemText = (value: string) => value.replace(/\\n/g, '\n').trim();

/**
 * The Ed25519 private key of a PKCS#8 PEM text; throws an error naming {@link SIGNING_KEY_VARIABLE}
 * and never showing the value.
 */
export function loadSigningKey(value: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pemText(value), format: 'pem' });
  } catch {
    throw new Error(`${SIGNING_KEY_VARIABLE} is not a PEM private key (PKCS#8, Ed25519); the value is not shown`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(
      `${SIGNING_KEY_VARIABLE} is a ${String(key.asymmetricKeyType)} key, not Ed25519; the value is not shown`,
    );
  return key;
}

/** The public key (SPKI PEM) of a private or public key. */
export const publicKeyPem = (key: KeyObject): string =>
  createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();

/** First 16 hex digits of the SHA-256 of the public key's SPKI DER: which key signed. */
export const keyId = (key: KeyObject): string =>
  createHash('sha256')
    .update(createPublicKey(key).export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);

/** The checkpoint with `signed`, `keyId` and `signature` set (or `signed: false` without a key). */
export function signCheckpoint(
  unsigned: Omit<AuditCheckpoint, 'signed' | 'keyId' | 'signature'>,
  key: KeyObject | undefined,
): AuditCheckpoint {
  if (!key) return { ...unsigned, signed: false };
  const body = { ...unsigned, signed: true, keyId: keyId(key) };
  const signature = sign(null, Buffer.from(canonical(body), 'utf8'), key).toString('base64');
  return { ...body, signature };
}

/** A public key from PEM text (SPKI) or a private key's PEM (its public half); throws when neither. */
export function loadPublicKey(pem: string): KeyObject {
  const text = pemText(pem);
  const key = text.includes('PRIVATE KEY') ? createPublicKey(createPrivateKey(text)) : createPublicKey(text);
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(`the public key is ${String(key.asymmetricKeyType)}, not Ed25519`);
  return key;
}

/** Whether `signature` (base64) is the key's Ed25519 signature of the checkpoint without it. */
export function checkpointSignatureValid(
  unsigned: Omit<AuditCheckpoint, 'signature'>,
  signature: string,
  key: KeyObject,
): boolean {
  try {
    return verify(null, Buffer.from(canonical(unsigned), 'utf8'), key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}
