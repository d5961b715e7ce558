import type { AskRecord } from '../core/schemas.js';

/**
 * The compact stored form of a record (see {@link encodeAsk}): the JSON leaves out what the key and
 * the header already say (id, run id, rev, status) and every field equal to its default (below),
 * which {@link expandRecord} fills in again. `targets` absent from a record (written before
 * fan-out) is stored as `null`, so that absence survives the round trip.
 */
export function compactRecord(record: AskRecord): string {
  const {
    id: _id,
    runId: _runId,
    rev: _rev,
    status: _status,
    to,
    targets,
    result,
    partial,
    deliveries,
    history,
    questions,
    ...rest
  } = record;
  const out: Record<string, unknown> = {
    ...rest,
    questions: questions.map(({ multiSelect, ...q }) => (multiSelect ? { ...q, multiSelect } : q)),
  };
  if (to !== null) out.to = to;
  if (targets === undefined) out.targets = null;
  else if (targets.length > 0) out.targets = targets;
  if (result !== null) out.result = result;
  if (Object.keys(partial).length > 0) out.partial = partial;
  if (deliveries.length > 0)
    out.deliveries = deliveries.map(({ finalized, ...d }) => (finalized === 'no' ? d : { ...d, finalized }));
  if (history.length > 0) out.history = history;
  return JSON.stringify(out);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The record of a compact JSON value (parsed) and the fields kept outside it; anything not shaped
 * like a compact record is returned as it is, for the schema to reject.
 */
export function expandRecord(
  compact: unknown,
  head: { id: string; runId: string; rev: number; status: string },
): unknown {
  if (!isObject(compact)) return compact;
  const record: Record<string, unknown> = {
    ...compact,
    ...head,
    to: compact.to ?? null,
    targets: compact.targets === null ? undefined : (compact.targets ?? []),
    result: compact.result ?? null,
    partial: compact.partial ?? {},
    deliveries: Array.isArray(compact.deliveries)
      ? compact.deliveries.map((d) => (isObject(d) && d.finalized === undefined ? { ...d, finalized: 'no' } : d))
      : (compact.deliveries ?? []),
    history: compact.history ?? [],
  };
  if (record.targets === undefined) delete record.targets;
  if (Array.isArray(compact.questions))
    record.questions = compact.questions.map((q) =>
      isObject(q) && q.multiSelect === undefined ? { ...q, multiSelect: false } : q,
    );
  return record;
}
