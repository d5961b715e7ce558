// The audit chain's offline check: an intact export passes, and each way of tampering with it is
// named (the first entry changed, removed, inserted or reordered; a checkpoint altered or unsigned).
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { chainEntries, EMPTY_HEAD, type AuditEntry } from '../../src/core/audit/chain.js';
import type { AuditBody } from '../../src/core/audit/entry.js';
import { verifyAuditLines, type AuditCheckpoint } from '../../src/core/audit/verify.js';
import { canonical, checkpointSignatureValid, entryHash, sha256, signCheckpoint } from '../../src/audit/crypto.js';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const T0 = Date.parse('2026-12-07T10:00:00Z');

const body = (i: number): AuditBody => ({
  id: `ask${Math.ceil(i / 2)}/${(i - 1) % 2}`,
  type: i % 2 ? 'created' : 'answered',
  at: new Date(T0 + i * 1000).toISOString(),
  ask: `ask${Math.ceil(i / 2)}`,
  run: 'run-1',
  ...(i % 2 === 0 && {
    actor: { channel: 'telegram', userId: '42', name: 'Ana' },
    detail: { values: { env: 'Staging' } },
  }),
});

/** A chain of `n` entries appended in three batches (three sequencer rounds). */
function chain(n: number): AuditEntry[] {
  let head = EMPTY_HEAD;
  const out: AuditEntry[] = [];
  for (const [from, to] of [
    [1, 3],
    [4, 7],
    [8, n],
  ] as const) {
    const placed = chainEntries(
      head,
      Array.from({ length: to - from + 1 }, (_, k) => body(from + k)),
      T0 + from * 1000,
      entryHash,
    );
    out.push(...placed.entries);
    head = placed.head;
  }
  return out;
}

function exportOf(entries: AuditEntry[], opts: { sign?: boolean } = {}): string[] {
  const first = entries[0];
  const last = entries[entries.length - 1];
  const cp = signCheckpoint(
    {
      type: 'checkpoint',
      v: 1,
      from: new Date(T0).toISOString(),
      to: new Date(T0 + 3_600_000).toISOString(),
      count: entries.length,
      anchor: first!.prev,
      lastHash: last!.hash,
      firstSeq: first!.seq,
      lastSeq: last!.seq,
      complete: true,
      madeAt: new Date(T0 + 3_600_000).toISOString(),
    },
    opts.sign === false ? undefined : privateKey,
  );
  return [...entries.map((e) => JSON.stringify(e)), JSON.stringify(cp)];
}

const verify = (lines: string[], key = publicKey, anchor?: string) =>
  verifyAuditLines(lines, {
    hashOf: entryHash,
    checkSignature: (unsigned, signature) => checkpointSignatureValid(unsigned, signature, key),
    ...(anchor !== undefined && { anchor }),
  });

const failure = (v: ReturnType<typeof verify>) => (v.ok ? null : { problem: v.problem, seq: v.seq, line: v.line });

describe('audit entries are chained', () => {
  it('each entry holds the previous hash and the SHA-256 of its RFC 8785 canonical JSON without the hash', () => {
    const entries = chain(10);
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(entries[0]!.prev).toBe(`sha256:${'0'.repeat(64)}`);
    for (const [i, e] of entries.entries()) {
      const { hash, ...rest } = e;
      expect(hash).toBe(sha256(canonical(rest)));
      if (i > 0) expect(e.prev).toBe(entries[i - 1]!.hash);
    }
    // Key order does not matter to the hash (canonical JSON).
    const e = entries[3]!;
    const { hash, ...rest } = e;
    const reversed = Object.fromEntries(Object.entries(rest).reverse()) as typeof rest;
    expect(entryHash(reversed)).toBe(hash);
  });

  it('times never go back, even when a later round runs on a replica whose clock is behind', () => {
    const first = chainEntries(EMPTY_HEAD, [body(1)], T0 + 5000, entryHash);
    const second = chainEntries(first.head, [body(2)], T0, entryHash);
    expect(second.entries[0]!.recordedAt).toBe(first.entries[0]!.recordedAt);
    expect(second.entries[0]!.seq).toBe(2);
  });
});

describe('verifying an export', () => {
  it('passes an intact signed export and says whether the signature was checked', () => {
    const lines = exportOf(chain(10));
    expect(verify(lines)).toMatchObject({ ok: true, count: 10, signature: 'valid' });
    expect(verifyAuditLines(lines, { hashOf: entryHash })).toMatchObject({ ok: true, signature: 'not_checked' });
    expect(verifyAuditLines(exportOf(chain(10), { sign: false }), { hashOf: entryHash })).toMatchObject({
      ok: true,
      signature: 'unsigned',
    });
  });

  it('names an entry edited in place', () => {
    const lines = exportOf(chain(10));
    lines[3] = lines[3]!.replace('Staging', 'Production');
    expect(failure(verify(lines))).toEqual({ problem: 'changed', seq: 4, line: 4 });
    expect((verify(lines) as { message: string }).message).toMatch(/entry 4 \(ask2\/1, line 4\) was changed/);
  });

  it('names an entry edited with its hash recomputed (the next entry recorded the old hash)', () => {
    const entries = chain(10);
    const { hash: _h, ...rest } = entries[3]!;
    const forged = { ...rest, detail: { values: { env: 'Production' } } };
    entries[3] = { ...forged, hash: entryHash(forged) };
    expect(failure(verify(exportOf(entries)))).toEqual({ problem: 'changed', seq: 4, line: 4 });
  });

  it('names an entry removed, in the middle and at the end', () => {
    const lines = exportOf(chain(10));
    expect(failure(verify([...lines.slice(0, 6), ...lines.slice(7)]))).toEqual({ problem: 'removed', seq: 7, line: 7 });
    const cut = [...lines.slice(0, 9), lines[10]!];
    expect(failure(verify(cut))).toMatchObject({ problem: 'removed', seq: 10 });
  });

  it('names two entries swapped', () => {
    const lines = exportOf(chain(10));
    [lines[3], lines[4]] = [lines[4]!, lines[3]!];
    expect(failure(verify(lines))).toEqual({ problem: 'reordered', seq: 5, line: 4 });
  });

  it('names an entry inserted, even one that links to its predecessor and hashes right', () => {
    const entries = chain(10);
    const { hash: _h, ...rest } = entries[5]!;
    const fake = { ...rest, id: 'forged/0', detail: { values: { env: 'Production' } } };
    const lines = exportOf(entries);
    lines.splice(5, 0, JSON.stringify({ ...fake, hash: entryHash(fake) }));
    expect(failure(verify(lines))).toEqual({ problem: 'inserted', seq: 6, line: 6 });
    expect((verify(lines) as { message: string }).message).toContain('forged/0');
  });

  it('fails an altered checkpoint, an unsigned one when a key is given, another key, a missing one', () => {
    const lines = exportOf(chain(10));
    const cp = JSON.parse(lines[10]!) as AuditCheckpoint;
    const altered = [...lines.slice(0, 10), JSON.stringify({ ...cp, to: '2030-01-01T00:00:00.000Z' })];
    expect(failure(verify(altered))).toMatchObject({ problem: 'signature', line: 11 });
    expect(failure(verify(exportOf(chain(10), { sign: false })))).toMatchObject({ problem: 'signature' });
    expect(failure(verify(lines, other.publicKey))).toMatchObject({ problem: 'signature' });
    expect(failure(verify(lines.slice(0, 10)))).toMatchObject({ problem: 'checkpoint' });
    expect(failure(verify(['{not json', ...lines]))).toMatchObject({ problem: 'malformed', line: 1 });
  });

  it('checks a range that starts after trimmed entries against the anchor an auditor kept', () => {
    const entries = chain(10);
    const earlier = exportOf(entries.slice(0, 4));
    const kept = JSON.parse(earlier[4]!) as AuditCheckpoint;
    const rest = exportOf(entries.slice(4));
    expect(verify(rest, publicKey, kept.lastHash)).toMatchObject({ ok: true, count: 6 });
    expect(failure(verify(exportOf(entries.slice(5)), publicKey, kept.lastHash))).toMatchObject({ problem: 'anchor' });
  });
});
