import { describe, expect, it } from 'vitest';
import { askRecord, DEADLINE, T0 } from '../helpers/records.js';
import { keptForMs, recordTtlMs } from '../../src/core/retention.js';
import { draftTtlMs } from '../../src/store/form-drafts.js';
import type { AskRecord } from '../../src/core/schemas.js';

const DAY = 86_400_000;
const pending = askRecord([]);
const answered = askRecord([], { status: 'answered' } as Partial<AskRecord>);

describe('one TTL rule: an ask and what points at it live until its end plus the retention', () => {
  const rows: [string, number, number][] = [
    ['kept until the deadline plus a day, asked at creation', keptForMs(DEADLINE, T0, DAY), 900_000 + DAY],
    [
      'kept until the deadline plus a day, asked a minute before it',
      keptForMs(DEADLINE, DEADLINE - 60_000, DAY),
      60_000 + DAY,
    ],
    ['past the deadline the retention shrinks', keptForMs(DEADLINE, DEADLINE + 1000, DAY), DAY - 1000],
    [
      'a pending record lives to its deadline plus the retention',
      recordTtlMs(pending, T0 + 100_000, DAY),
      800_000 + DAY,
    ],
    ['an ended record lives the retention from its last write', recordTtlMs(answered, T0 + 100_000, DAY), DAY],
    [
      'an ended record past its deadline still gets the whole retention',
      recordTtlMs(answered, DEADLINE + 5000, DAY),
      DAY,
    ],
    ['a Telegram draft lives as its ask', draftTtlMs(DEADLINE, DAY, T0), 900_000 + DAY],
    ['a draft written at the very end still lands (1 s at least)', draftTtlMs(DEADLINE, 0, DEADLINE + 10), 1000],
  ];
  it.each(rows)('%s', (_, actual, expected) => {
    expect(actual).toBe(expected);
  });
});
