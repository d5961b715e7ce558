import { describe, expect, it } from 'vitest';
import { HISTORY_LIMIT, transition } from '../../src/core/lifecycle.js';
import { GUARD_BLOCKED_KEPT, GuardBlockedRequestSchema } from '../../src/core/guard-blocked.js';
import type { AskRecord, HistoryEntry } from '../../src/core/schemas.js';
import { consoleView } from '../../src/console/view.js';
import { PrometheusMetrics } from '../../src/api/metrics.js';
import { CONSOLE_LOCALES } from '../../src/console/i18n/index.js';
import { askRecord, iso, T0 } from '../helpers/records.js';

const pending = (history: HistoryEntry[] = [{ type: 'created', at: iso(T0), channel: 'telegram' }]) =>
  askRecord([], { history });

const block = (record: AskRecord, tool: string, at = T0 + 1000) => {
  const result = transition(record, { type: 'guard_blocked', tool }, at);
  if (result.kind !== 'changed') throw new Error(`unchanged: ${result.outcome.code}`);
  return result;
};

describe('the guard_blocked transition', () => {
  it('appends one entry with the tool, bumps rev, reports the metric and nothing else', () => {
    const record = pending();
    const result = block(record, 'deploy');
    expect(result.record.history.at(-1)).toEqual({ type: 'guard_blocked', tool: 'deploy', at: iso(T0 + 1000) });
    expect(result.record.rev).toBe(record.rev + 1);
    expect(result.record.status).toBe('pending');
    expect(result.effects).toEqual([{ type: 'metric', metric: { name: 'guard_blocked' } }]);
    expect(result.outcome).toEqual({ code: 'updated' });
  });

  it('is refused on an ended ask (already_resolved)', () => {
    const ended = askRecord([], {
      status: 'no_answer',
      result: { status: 'no_answer', reason: 'cancelled', at: iso(T0) },
    });
    expect(transition(ended, { type: 'guard_blocked', tool: 'deploy' }, T0)).toEqual({
      kind: 'unchanged',
      outcome: { code: 'already_resolved' },
    });
  });

  it(`keeps ${GUARD_BLOCKED_KEPT} of them, dropping the oldest of its kind, never other entries`, () => {
    const others: HistoryEntry[] = [
      { type: 'created', at: iso(T0), channel: 'telegram' },
      { type: 'delivered', at: iso(T0 + 1), channel: 'telegram', messageId: '9' },
      { type: 'reminded', at: iso(T0 + 2), detail: 'n=1' },
    ];
    let record = pending(others);
    for (let i = 0; i < 500; i++) record = block(record, `t${i}`, T0 + 10 + i).record;
    const kept = record.history.filter((e) => e.type === 'guard_blocked').map((e) => e.tool);
    expect(kept).toEqual(Array.from({ length: GUARD_BLOCKED_KEPT }, (_, i) => `t${500 - GUARD_BLOCKED_KEPT + i}`));
    expect(record.history.filter((e) => e.type !== 'guard_blocked')).toEqual(others);
  });

  it('a full history still drops its oldest entry after created, as always', () => {
    const full: HistoryEntry[] = [
      { type: 'created', at: iso(T0), channel: 'telegram' },
      ...Array.from({ length: HISTORY_LIMIT - 1 }, (_, i): HistoryEntry => ({ type: 'reminded', at: iso(T0 + i) })),
    ];
    const next = block(pending(full), 'deploy').record.history;
    expect(next.length).toBe(HISTORY_LIMIT);
    expect(next[0]!.type).toBe('created');
    expect(next.at(-1)!.tool).toBe('deploy');
  });
});

describe('the request body', () => {
  it('takes a shown name (NFC, trimmed) and an optional ask id; refuses everything else', () => {
    expect(GuardBlockedRequestSchema.parse({ tool: '  cafe\u0301 ' })).toEqual({ tool: 'café' });
    expect(GuardBlockedRequestSchema.safeParse({ tool: 'x', askId: 'AbCdEfGhIjKl' }).success).toBe(true);
    for (const bad of [
      { tool: 'x'.repeat(201) },
      { tool: '\u0007' },
      { tool: 'x', extra: 1 },
      { tool: 'x', askId: '' },
    ])
      expect(GuardBlockedRequestSchema.safeParse(bad).success).toBe(false);
  });
});

describe('where a guard_blocked entry shows', () => {
  it('the console view carries the entry with its tool', () => {
    const record = block(pending(), 'send_email').record;
    expect(consoleView(record).history.at(-1)).toEqual({
      type: 'guard_blocked',
      tool: 'send_email',
      at: iso(T0 + 1000),
    });
  });

  it('every console catalogue names the event', () => {
    expect(CONSOLE_LOCALES.size).toBe(6);
    for (const [tag, words] of CONSOLE_LOCALES)
      expect([tag, typeof words['event.guard_blocked']]).toEqual([tag, 'string']);
  });

  it('/metrics counts blocks without a tool label', () => {
    const metrics = new PrometheusMetrics();
    metrics.guardBlocked();
    metrics.guardBlocked();
    const text = metrics.render();
    expect(text).toContain('# TYPE askgate_guard_blocked_total counter');
    expect(text).toMatch(/^askgate_guard_blocked_total 2$/m);
  });
});
