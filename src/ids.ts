import { randomBytes } from 'node:crypto';

/** Bytes drawn from the system's CSPRNG at a time by {@link randomBytesPooled}. */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;

/**
 * `n` cryptographically random bytes, served from a pool refilled 4 KB at a time: one call into
 * the CSPRNG per hundred ids instead of one per id (it showed at ~1 % of askgate's CPU per ask).
 * No byte is served twice; read the result before the next call (it is a view of the pool).
 */
export function randomBytesPooled(n: number): Buffer {
  if (used + n > pool.length) {
    pool = randomBytes(Math.max(POOL_BYTES, n));
    used = 0;
  }
  used += n;
  return pool.subarray(used - n, used);
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A random base62 id of `length` characters (14 by default: about 83 bits), by rejection sampling. */
export function newAskId(length = 14): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytesPooled(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}
