import { parseArgs } from 'node:util';
import { EXIT, UsageError, askgateUrl, clientFor, failure, isoTime, shown, wholeSeconds } from './cli-ask.js';
import type { ExtendInput } from './client/index.js';

/**
 * `askgate extend <askId> (--timeout <seconds> | --until <ISO time>) [--by <who>] [--url <url>]`:
 * moves a pending ask's deadline (`POST /v1/asks/:id/extend`) and prints the ask as JSON. Exit 0
 * extended; 2 invalid arguments or a deadline out of range (askgate names the field); 1 any other
 * error, e.g. 409 `not_pending` for an ask that already ended.
 */
export async function runExtend(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      timeout: { type: 'string' },
      until: { type: 'string' },
      by: { type: 'string' },
      url: { type: 'string' },
    },
  });
  const [askId, ...extra] = positionals;
  if (!askId) throw new UsageError('extend needs the ask id: askgate extend <askId> --timeout <seconds>');
  if (extra.length > 0) throw new UsageError(`extend takes one ask id, not also ${shown(extra[0]!)}`);
  if ((values.timeout === undefined) === (values.until === undefined))
    throw new UsageError('give --timeout <seconds> (from now) or --until <ISO 8601 time>, one of them');
  const by = values.by !== undefined ? { by: values.by } : {};
  const body: ExtendInput =
    values.timeout !== undefined
      ? { timeoutSeconds: wholeSeconds('--timeout', values.timeout, 1), ...by }
      : { expiresAt: isoTime('--until', values.until!), ...by };
  const base = askgateUrl(values.url, process.env);
  try {
    console.log(JSON.stringify(await clientFor(base).extend(askId, body), null, 2));
    return EXIT.answered;
  } catch (error) {
    return failure(base, error);
  }
}
