/**
 * JSON with every object's keys sorted (undefined members left out, as JSON does): equal data
 * gives equal text whatever the order its keys were set in. Requests are hashed with it, and
 * history entries compared: a record this process built and the same record read back from
 * Redis list an entry's keys in different orders.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
