/**
 * CPU the audit sequencer spends per entry, outside the request path: finding the new history
 * entries, mapping them and hashing them into the chain (a Telegram-like ask: created, delivered,
 * answered, finalized). `npx tsx bench/audit-cost.ts [rounds=5] [asks=20000]`.
 */
import { auditBodies, freshEntries } from '../src/core/audit/entry.js';
import { chainEntries, EMPTY_HEAD } from '../src/core/audit/chain.js';
import { entryHash, sha256 } from '../src/audit/crypto.js';
import type { AskRecord } from '../src/core/schemas.js';

const rounds = Number(process.argv[2] ?? 5);
const asks = Number(process.argv[3] ?? 20_000);
const at = '2026-12-07T10:00:00.000Z';
const record = {
  id: 'AbCdEfGhIjKl',
  runId: 'bench-run-1',
  version: 1,
  rev: 4,
  status: 'answered',
  questions: [{ id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] }],
  to: { channel: 'telegram', chat: '42' },
  targets: [{ channel: 'telegram', chat: '42' }],
  createdAt: at,
  expiresAt: at,
  timeoutSeconds: 900,
  result: {
    status: 'answered',
    answers: { env: ['Staging'] },
    values: { env: ['Staging'] },
    answeredBy: { channel: 'telegram', userId: '7', name: 'Ana' },
    answeredAt: at,
  },
  partial: {},
  deliveries: [],
  history: [
    { type: 'created', at, channel: 'telegram' },
    { type: 'delivered', at, channel: 'telegram', messageId: '1' },
    { type: 'answered', at, channel: 'telegram', userId: '7' },
    { type: 'finalized', at, channel: 'telegram' },
  ],
} as unknown as AskRecord;

for (let r = 0; r < rounds; r++) {
  let head = EMPTY_HEAD;
  const start = process.cpuUsage();
  let entries = 0;
  for (let i = 0; i < asks; i++) {
    const { fresh } = freshEntries(record.history, null, sha256);
    const bodies = auditBodies(record, fresh, { text: 'hash', digest: sha256 });
    const placed = chainEntries(head, bodies, Date.now(), entryHash);
    for (const e of placed.entries) JSON.stringify(e); // what the append sends
    head = placed.head;
    entries += placed.entries.length;
  }
  const used = process.cpuUsage(start);
  const us = (used.user + used.system) / entries;
  console.log(`round ${r + 1}: ${us.toFixed(1)} µs CPU per entry, ${(us * 4).toFixed(0)} µs per 4-entry ask`);
}
