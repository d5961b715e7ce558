// The audit trail's settings, declared here and spread into config.ts's environment schema.
import { z } from 'zod';
import { int, optionalString } from '../config-values.js';
import { loadSigningKey, SIGNING_KEY_VARIABLE } from './crypto.js';

/** Days of audit entries kept in Redis by default (export and archive what must be kept longer). */
export const DEFAULT_AUDIT_RETENTION_DAYS = 30;

/** The audit variables of the environment schema (config.ts spreads them in). */
export const AUDIT_ENV = {
  ASKGATE_AUDIT: z.enum(['on', 'off']).default('on'),
  ASKGATE_AUDIT_TEXT: z.enum(['hash', 'keep']).default('hash'),
  [SIGNING_KEY_VARIABLE]: optionalString.refine(
    (v) => {
      if (v === undefined) return true;
      try {
        loadSigningKey(v);
        return true;
      } catch {
        return false;
      }
    },
    // The message never holds the value (a private key).
    'is not an Ed25519 private key in PKCS#8 PEM (the value is not shown)',
  ),
  ASKGATE_AUDIT_RETENTION_DAYS: int(DEFAULT_AUDIT_RETENTION_DAYS, 1, 36_500),
};

/** The audit trail's settings. */
export interface AuditConfig {
  /** `ASKGATE_AUDIT`: `off` keeps no trail (no sequencer, no `GET /v1/audit`). */
  enabled: boolean;
  /** `ASKGATE_AUDIT_TEXT`: free text kept as written (`keep`) or as its SHA-256 (`hash`, the default). */
  text: 'hash' | 'keep';
  /** `ASKGATE_AUDIT_SIGNING_KEY`: the PEM text (checked at load); never logged. */
  signingKey?: string;
  /** `ASKGATE_AUDIT_RETENTION_DAYS`, in ms. */
  retentionMs: number;
}

/** The {@link AuditConfig} of the parsed environment. */
export function auditConfig(e: {
  ASKGATE_AUDIT: 'on' | 'off';
  ASKGATE_AUDIT_TEXT: 'hash' | 'keep';
  ASKGATE_AUDIT_SIGNING_KEY?: string | undefined;
  ASKGATE_AUDIT_RETENTION_DAYS: number;
}): AuditConfig {
  return {
    enabled: e.ASKGATE_AUDIT === 'on',
    text: e.ASKGATE_AUDIT_TEXT,
    ...(e.ASKGATE_AUDIT_SIGNING_KEY && { signingKey: e.ASKGATE_AUDIT_SIGNING_KEY }),
    retentionMs: e.ASKGATE_AUDIT_RETENTION_DAYS * 86_400_000,
  };
}
