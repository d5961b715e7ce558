import { z } from 'zod';
import { AskRecordSchema, type AskRecord } from '../core/schemas.js';

/** A record read back from Redis that is not valid JSON or does not match {@link AskRecordSchema}. */
export class CorruptRecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CorruptRecordError';
  }
}

/** Parses a stored ask document; throws {@link CorruptRecordError} with the key and the problem. */
export function parseAskDoc(raw: string, where: string): AskRecord {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new CorruptRecordError(`corrupt ask record at ${where}: not JSON (${(error as Error).message})`);
  }
  const parsed = AskRecordSchema.safeParse(json);
  if (!parsed.success) throw new CorruptRecordError(`corrupt ask record at ${where}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
