import { describe, expect, it } from 'vitest';
import { askRecord } from '../helpers/records.js';
import { keptOrFresh } from '../../src/app/kept-copy.js';
import type { AskRecord } from '../../src/core/schemas.js';

const q = [{ id: 'q1', question: 'Go?', multiSelect: false, options: [{ label: 'A' }, { label: 'B' }] }];
const kept = askRecord(q, { rev: 3 });
const fresh = askRecord(q, { rev: 4 });
const goesOn = (v: string) => v.startsWith('go');

describe('keptOrFresh: a kept copy lets work go on, never turns it away', () => {
  // [case, kept copy, what a read returns, verdict on rev 3, verdict on rev 4, result, reads made]
  const rows: [string, AskRecord | null, AskRecord | null, string, string, string, number][] = [
    ['a kept copy that goes on saves the read', kept, fresh, 'go 3', 'go 4', 'go 3', 0],
    ['a kept copy that refuses is judged again on a fresh read', kept, fresh, 'refuse 3', 'go 4', 'go 4', 1],
    ['the fresh read may refuse too: its verdict stands', kept, fresh, 'refuse 3', 'refuse 4', 'refuse 4', 1],
    ['a record gone since the copy was kept', kept, null, 'refuse 3', 'go 4', 'gone', 1],
    ['no kept copy: one read, judged once', null, fresh, 'go 3', 'go 4', 'go 4', 1],
  ];
  it.each(rows)('%s', async (_, copy, read, onKept, onFresh, expected, reads) => {
    let made = 0;
    const judged: string[] = [];
    const judge = (r: AskRecord | null) => {
      const verdict = r === null ? 'gone' : r.rev === 3 ? onKept : onFresh;
      judged.push(verdict);
      return verdict;
    };
    const verdict = await keptOrFresh(copy, async () => (made++, read), judge, goesOn);
    expect([verdict, made]).toEqual([expected, reads]);
    expect(judged.length).toBe(copy ? 1 + reads : 1);
  });
});
