import { describe, expect, it } from 'vitest';
import { AskFollower, RunFollower, type Frame, type FrameSink } from '../../src/api/stream-followers.js';
import type { AskRecord, HistoryEntry } from '../../src/core/schemas.js';

const at = (s: number) => `2030-01-01T14:00:${String(s).padStart(2, '0')}.000Z`;
const entry = (type: string, s: number) => ({ type, at: at(s) }) as HistoryEntry;

/** An ask of run `r` (no delivery, no webhook: done as soon as it is not pending). */
function ask(id: string, version: number, rev: number, history: HistoryEntry[], status = 'pending'): AskRecord {
  return { id, runId: 'r', version, rev, status, history, deliveries: [] } as unknown as AskRecord;
}

/** A sink that records what was written and whether the stream ended. */
function sink() {
  const out = { sent: [] as string[], ended: false };
  const s: FrameSink = {
    write: (frames: Frame[]) => out.sent.push(...frames.map((f) => `${f.id} ${f.data.type}`)),
    end: () => void (out.ended = true),
  };
  return { out, s };
}

const created = entry('created', 0);
const delivered = entry('delivered', 1);
const answered = entry('answered', 2);

describe('stream followers: each entry once, in order, whatever order overlapping reads return in', () => {
  it('an older read arriving after a newer one sends nothing (a cursor alone would send `delivered` again)', () => {
    const f = new AskFollower(undefined);
    const { out, s } = sink();
    f.open(s, f.first(ask('a', 1, 0, [created])));
    f.receive(ask('a', 1, 2, [created, delivered, answered], 'answered'));
    f.receive(ask('a', 1, 1, [created, delivered]));
    expect(out.sent).toEqual(['0 created', '1 delivered', '2 answered']);
    expect(out.ended).toBe(true);
  });

  it('records handed over during the first read are kept (newest per ask) and sent once the stream opens', () => {
    const f = new RunFollower('1.0');
    f.receive(ask('a', 1, 1, [created, delivered]));
    f.receive(ask('b', 2, 0, [entry('created', 3)]));
    f.receive(ask('a', 1, 0, [created]));
    const { out, s } = sink();
    f.open(s, f.first([ask('a', 1, 0, [created])]));
    expect(out.sent).toEqual(['1.1 delivered', '2.0 created']);
    expect(out.ended).toBe(false);
  });

  it('a run stream resumed at 2.0 skips the older ask and sends the rest of the second, in time order', () => {
    const f = new RunFollower('2.0');
    const { out, s } = sink();
    const older = ask('a', 1, 3, [created, entry('answered', 4)], 'answered');
    const newer = ask('b', 2, 1, [entry('created', 2), entry('delivered', 3)]);
    f.open(s, f.first([newer, older]));
    expect(out.sent).toEqual(['2.1 delivered']);
  });

  it('an ask gone (expired) ends its stream, also when it goes during the first read', () => {
    const f = new AskFollower('0');
    f.gone();
    const { out, s } = sink();
    f.open(s, []);
    expect(out.ended).toBe(true);
  });
});
