import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Where every reliability run writes its history logs and summaries (gitignored). */
export const ARTIFACTS = resolve(import.meta.dirname, '../../../test-artifacts/reliability');

/** `inject`: something the test did to the system; `observe`: an effect the test saw. */
export type Direction = 'inject' | 'observe';

/**
 * Event types (matrix §1.3): injected `create`, `tap`, `reply`, `duplicate`, `kill`, `restart`,
 * `fault`, `heal`; observed `ready`, `platform` (a call askgate made to a platform fake), `toast`
 * (what a person was told), `edit` (a final message edit), `notify` (a PUBLISH on
 * `<prefix>:resolved`), `result` (what a waiting agent got), `final` (the record read from Redis
 * at the end), `key` (a key without TTL), `measure` (a derived figure such as a recovery time).
 */
export type EventType =
  | 'create'
  | 'tap'
  | 'reply'
  | 'duplicate'
  | 'kill'
  | 'restart'
  | 'fault'
  | 'heal'
  | 'ready'
  | 'platform'
  | 'toast'
  | 'edit'
  | 'notify'
  | 'result'
  | 'final'
  | 'key'
  | 'measure';

/** One line of the history file. */
export interface HistoryEvent {
  /** Monotonic nanoseconds since the log was opened. */
  t: number;
  /** Wall clock (epoch ms), comparable with the record's `expiresAt` and result times. */
  wall: number;
  dir: Direction;
  type: EventType;
  /** Matrix row(s) this event belongs to, e.g. `R4`. */
  row: string;
  askId?: string;
  runId?: string;
  actor?: string;
  platform?: string;
  /** CAS result, HTTP status, toast text, ... */
  result?: string | number;
  version?: number;
  /** Anything else worth keeping (never secrets). */
  data?: Record<string, unknown>;
}

/** Fields a caller gives; `t`, `wall`, `dir` and `type` are filled in. */
export type EventFields = Omit<HistoryEvent, 't' | 'wall' | 'dir' | 'type' | 'row'> & { row?: string };

/**
 * An append-only JSON-lines history owned by the test (never by askgate): each event is written
 * with `appendFileSync` the moment it happens, so a crash of the test process keeps what came
 * before. The checker reads the file back, not this object's memory.
 */
export class History {
  readonly path: string;
  private readonly origin = process.hrtime.bigint();
  private count = 0;

  constructor(
    readonly name: string,
    private readonly defaultRow: string,
  ) {
    this.path = resolve(ARTIFACTS, `history-${name}.jsonl`);
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileSync(this.path, '');
  }

  /** Records something the test did. */
  inject(type: EventType, fields: EventFields = {}): HistoryEvent {
    return this.append('inject', type, fields);
  }

  /** Records something the test saw. */
  observe(type: EventType, fields: EventFields = {}): HistoryEvent {
    return this.append('observe', type, fields);
  }

  /** Events written so far. */
  get size(): number {
    return this.count;
  }

  /** Reads the file back (the checker's only view of what happened). */
  read(): HistoryEvent[] {
    return readFileSync(this.path, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as HistoryEvent);
  }

  private append(dir: Direction, type: EventType, fields: EventFields): HistoryEvent {
    const { row, ...rest } = fields;
    const event: HistoryEvent = {
      t: Number(process.hrtime.bigint() - this.origin),
      wall: Date.now(),
      dir,
      type,
      row: row ?? this.defaultRow,
      ...rest,
    };
    appendFileSync(this.path, `${JSON.stringify(event)}\n`);
    this.count++;
    return event;
  }
}
