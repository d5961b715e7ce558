/**
 * The audit trail's keys (src/store/audit-chain.ts): the chain, its head, the asks' cursors and
 * when each was touched live without a TTL by design, trimmed by ASKGATE_AUDIT_RETENTION_DAYS
 * (docs/audit.md), and the sequencer's short lease; the sequencer rewrites them in the background,
 * after the requests that made the history it follows. Tests of "every key has a TTL", of key
 * lifetimes and of "nothing changed" leave them out.
 */
export const isAuditKey = (key: string): boolean => /\{[^}]*:audit\}:(chain|head|cursors|touched|lease)$/.test(key);

/**
 * Settings for a test that counts the record reads of a request path (by wrapping `store.get`):
 * without the audit sequencer, whose reads of the asks it follows (after the fact, in whichever
 * process holds its lease) would be counted too.
 */
export const NO_AUDIT = { ASKGATE_AUDIT: 'off' } as const;
