import { z } from 'zod';
import { AskRecordSchema, type AskRecord } from '../core/schemas.js';
import { BoundedMap } from '../core/bounded-map.js';
import { compactQuestions, compactRecord, expandRecord } from './compact-record.js';
import { lengthenKeys, SHORT_KEYS, shortenKeys } from './key-names.js';

/** A record read back from Redis that is not valid JSON or does not match {@link AskRecordSchema}. */
export class CorruptRecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CorruptRecordError';
  }
}

/**
 * The stored value of an ask (a Redis string): `<rev> <status> ~<compact JSON>`, the coded JSON of
 * compact-record.ts (history times relative to `createdAt`, an entry's channel when it is that of
 * `to` left out, entry types and delivery states as numbers) with its keys shortened
 * (key-names.ts); the `~` marks both. The scripts read the rev and status from the header without
 * decoding JSON.
 */
export function encodeAsk(record: AskRecord): string {
  const rest = shortenKeys(compactRecord(record, false));
  const questions = `"${QUESTIONS_KEY}":${storedQuestions(record.questions)}`;
  return `${record.rev} ${record.status} ~${rest === '{}' ? `{${questions}}` : `${rest.slice(0, -1)},${questions}}`}`;
}

const QUESTIONS_KEY = SHORT_KEYS.get('questions')!;
/**
 * The stored JSON of each questions array encoded before, by identity: an ask's questions never
 * change, and every transition keeps the same array, so an ask's four writes in a cycle encode
 * them once (they are about 40 % of the work of an encode).
 */
const questionsJson = new WeakMap<AskRecord['questions'], string>();

function storedQuestions(questions: AskRecord['questions']): string {
  let json = questionsJson.get(questions);
  if (json === undefined) {
    json = shortenKeys(JSON.stringify(compactQuestions(questions)));
    questionsJson.set(questions, json);
  }
  return json;
}

const HEADER = /^(\d+) ([a-z_]+) ~/;

/**
 * Parses a stored ask ({@link encodeAsk}) of the ask `ids`. `trusted`: this exact value was
 * validated (or written) by this process before, so the schema check is skipped. Throws
 * {@link CorruptRecordError} with the key (`where`) and the problem.
 */
export function parseStoredAsk(
  raw: string,
  where: string,
  ids: { id: string; runId: string },
  trusted = false,
): AskRecord {
  const head = HEADER.exec(raw);
  if (!head) throw new CorruptRecordError(`corrupt ask record at ${where}: no "<rev> <status> ~" header`);
  const json = parseJson(lengthenKeys(raw.slice(head[0].length)), where);
  const record = expandRecord(json, { ...ids, rev: Number(head[1]), status: head[2]! });
  return trusted ? (record as AskRecord) : validate(record, where);
}

function parseJson(raw: string, where: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new CorruptRecordError(`corrupt ask record at ${where}: not JSON (${(error as Error).message})`);
  }
}

function validate(json: unknown, where: string): AskRecord {
  const parsed = AskRecordSchema.safeParse(json);
  if (!parsed.success) throw new CorruptRecordError(`corrupt ask record at ${where}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/**
 * The last stored value of each ask key that this process wrote or validated, bounded (oldest
 * dropped first): reading the same value again skips the schema check, the costly part of a read.
 * For the most recent `maxRecords` keys it also keeps the record itself, so reading that value
 * again (an answer right after the delivery's commit) returns it without parsing at all: records
 * are never changed once built, so one object can be shared. A value another writer changed
 * differs, and is parsed and checked.
 */
export class KnownValues {
  private readonly values: BoundedMap<string, string>;
  private readonly records: BoundedMap<string, AskRecord>;
  /** Keys with writes of this process in flight: one promise per write, settled when it landed. */
  private readonly writing = new Map<string, Set<Promise<void>>>();

  constructor(max = 10_000, maxRecords = 1_000) {
    this.values = new BoundedMap(max);
    this.records = new BoundedMap(maxRecords);
  }

  /** Whether `raw` is the value last noted for `key`. */
  has(key: string, raw: string): boolean {
    return this.values.get(key) === raw;
  }

  /**
   * The value last noted for `key`, while kept and no write of it is in flight ({@link whileWriting}):
   * the write may land before a commit made from this value (a tap right after the delivery's
   * commit went out), while a read sent now goes after it on the same connection.
   */
  last(key: string): string | undefined {
    return this.writing.has(key) ? undefined : this.values.get(key);
  }

  /** Resolves once the writes of `key` in flight now have landed (at once when there are none). */
  async landed(key: string): Promise<void> {
    const writes = this.writing.get(key);
    if (writes) await Promise.all([...writes]);
  }

  /**
   * Runs `write` of `key` (none: null), its value withheld from {@link last} meanwhile. `write`
   * notes what it wrote before it returns, so whoever waits for it ({@link landed}) finds it.
   */
  async whileWriting<T>(key: string | null, write: () => Promise<T>): Promise<T> {
    if (key === null) return write();
    let release = () => {};
    const done = new Promise<void>((resolve) => (release = resolve));
    const writes = this.writing.get(key) ?? new Set();
    this.writing.set(key, writes);
    writes.add(done);
    try {
      return await write();
    } finally {
      writes.delete(done);
      if (writes.size === 0 && this.writing.get(key) === writes) this.writing.delete(key);
      release();
    }
  }

  /** The record noted with `raw` for `key`, while `raw` is still its last value and it is kept. */
  record(key: string, raw: string): AskRecord | undefined {
    return this.values.get(key) === raw ? this.records.get(key) : undefined;
  }

  /** Notes `raw` as the checked value of `key`, and `record` as what it reads as. */
  note(key: string, raw: string, record: AskRecord): void {
    this.values.set(key, raw);
    this.records.set(key, record);
  }
}

/** `raw` parsed as JSON, or undefined when it is not JSON. */
export function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
