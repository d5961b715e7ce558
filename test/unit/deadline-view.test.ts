import { describe, expect, it } from 'vitest';
import { askRecord, T0 } from '../helpers/records.js';
import { deadlineView } from '../../src/core/deadline-view.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { extend } from '../../src/core/extend.js';
import { storedApproval } from '../../src/core/approval/approval-schema.js';
import { LOCALES, wordsFor } from '../../src/core/i18n/index.js';
import type { Question } from '../../src/core/schemas.js';

const CHOICE = { id: 'env', question: 'Where?', multiSelect: false, options: [{ label: 'A' }, { label: 'B' }] };

describe('the deadline line: the time in the ask’s zone (UTC without one), in the ask’s locale', () => {
  // [locale, zone (undefined: none), deadline, the line]
  const rows: [string, string | undefined, string, string][] = [
    ['en', 'Europe/Lisbon', '2026-12-24T17:00:00.000Z', 'Open until Thu, Dec 24, 17:00 (Europe/Lisbon)'],
    ['en', undefined, '2026-12-24T17:00:00.000Z', 'Open until Thu, Dec 24, 17:00 (UTC)'],
    // An unknown zone is never stored (zones are validated IANA names); the words fall back to UTC.
    ['en', 'Mars/Olympus', '2026-12-24T17:00:00.000Z', 'Open until Thu, Dec 24, 17:00 (UTC)'],
    // DST: New York springs forward at 02:00 on 8 March 2026 (01:30 EST, then 03:30 EDT an hour later).
    ['en', 'America/New_York', '2026-03-08T06:30:00Z', 'Open until Sun, Mar 8, 01:30 (America/New_York)'],
    ['en', 'America/New_York', '2026-03-08T07:30:00Z', 'Open until Sun, Mar 8, 03:30 (America/New_York)'],
    // Lisbon in summer is UTC+1.
    ['en', 'Europe/Lisbon', '2026-07-01T17:00:00Z', 'Open until Wed, Jul 1, 18:00 (Europe/Lisbon)'],
    // Across midnight: the next day in Tokyo, the previous one (and year) in Los Angeles.
    ['en', 'Asia/Tokyo', '2026-12-24T15:30:00Z', 'Open until Fri, Dec 25, 00:30 (Asia/Tokyo)'],
    ['en', 'America/Los_Angeles', '2027-01-01T07:59:00Z', 'Open until Thu, Dec 31, 23:59 (America/Los_Angeles)'],
    ['pt-BR', 'America/Sao_Paulo', '2026-12-24T17:00:00Z', 'Aberta até qui., 24 de dez., 14:00 (America/Sao_Paulo)'],
    ['es', 'Europe/Madrid', '2026-12-24T17:00:00Z', 'Abierta hasta: jue, 24 dic, 18:00 (Europe/Madrid)'],
    ['fr', 'Europe/Paris', '2026-12-24T17:00:00Z', 'Ouverte jusqu’à : jeu. 24 déc., 18:00 (Europe/Paris)'],
    ['de', 'Europe/Berlin', '2026-12-24T17:00:00Z', 'Offen bis Do., 24. Dez., 18:00 (Europe/Berlin)'],
    ['ja', 'Asia/Tokyo', '2026-12-24T17:00:00Z', '12月25日(金) 02:00 (Asia/Tokyo)まで受付中'],
  ];

  it.each(rows)('%s in %s at %s: %s', (locale, zone, at, line) => {
    const d = deadlineView(at, wordsFor(locale, zone))!;
    expect(d.line).toBe(line);
    expect(`${d.before}${d.when}${d.after}`).toBe(line);
    expect(d.when.endsWith(`(${d.timeZone})`)).toBe(true);
    expect(d.unix).toBe(Date.parse(at) / 1000);
    // RFC 3339 in UTC, whole seconds: what Adaptive Cards' DATE()/TIME() accept.
    expect(d.expiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(d.expiresAt)).toBe(Date.parse(at));
  });

  it('is whole seconds (a deadline with milliseconds is floored) and undefined for a time that does not parse', () => {
    const d = deadlineView('2026-12-24T17:00:00.999Z', wordsFor('en', 'UTC'))!;
    expect([d.unix, d.expiresAt]).toEqual([1798131600, '2026-12-24T17:00:00Z']);
    expect(deadlineView('not a time', wordsFor('en', 'UTC'))).toBeUndefined();
    expect(deadlineView('', wordsFor('en', 'UTC'))).toBeUndefined();
  });

  it('the catalogue words around the time hold no markup and stay short in every locale, with the longest zone', () => {
    for (const tag of LOCALES.keys()) {
      const d = deadlineView('2026-09-30T23:59:00Z', wordsFor(tag, 'America/Argentina/ComodRivadavia'))!;
      expect(`${d.before}${d.after}`, tag).not.toMatch(/[<>&*_`|{}\n]/);
      expect(`${d.before}${d.after}`.trim(), tag).not.toBe('');
      expect(d.line.length, d.line).toBeLessThanOrEqual(90);
    }
  });
});

describe('buildPromptView: the deadline, built once for every channel', () => {
  const record = (over = {}) => askRecord([CHOICE as Question], { expiresAt: '2030-01-02T09:00:00.000Z', ...over });

  it('is the ask’s zone and locale, on questions and approvals alike; absent without expiresAt', () => {
    const view = buildPromptView(record({ locale: 'de', timeZone: 'Europe/Berlin' }));
    expect(view.deadline).toMatchObject({
      line: 'Offen bis Mi., 2. Jan., 10:00 (Europe/Berlin)',
      unix: Date.parse('2030-01-02T09:00:00Z') / 1000,
      timeZone: 'Europe/Berlin',
    });
    expect(buildPromptView(record()).deadline?.line).toBe('Open until Wed, Jan 2, 09:00 (UTC)');
    const approval = record({
      questions: [],
      approval: storedApproval({ action: 'deploy', arguments: { to: 'prod' } }, `sha256:${'ab'.repeat(32)}`),
    });
    expect(buildPromptView(approval).deadline?.line).toBe('Open until Wed, Jan 2, 09:00 (UTC)');
    const { expiresAt: _none, ...noDeadline } = record();
    expect(buildPromptView(noDeadline).deadline).toBeUndefined();
  });

  it('after an extend the view (what the refresh re-renders) shows the new time', () => {
    const before = record({ timeZone: 'Asia/Tokyo', createdAt: new Date(T0).toISOString() });
    const at = Date.parse('2030-01-20T03:00:00Z');
    const moved = extend(before, { at, by: { channel: 'api', userId: 'ops' } }, Date.parse('2030-01-02T08:00:00Z'));
    expect(moved.kind).toBe('changed');
    if (moved.kind !== 'changed') return;
    expect(buildPromptView(before).deadline?.line).toBe('Open until Wed, Jan 2, 18:00 (Asia/Tokyo)');
    expect(buildPromptView(moved.record).deadline).toMatchObject({
      line: 'Open until Sun, Jan 20, 12:00 (Asia/Tokyo)',
      unix: at / 1000,
    });
  });
});
