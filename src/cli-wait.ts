import { parseArgs } from 'node:util';
import { RETRY, UsageError, askgateUrl, clientFor, failure, printResult, shown, wholeSeconds } from './cli-ask.js';
import { ASK_ID_PATTERN } from './core/token.js';

/** What `askgate wait` was given: the ask's id, and the optional URL and retry time. */
export interface WaitArgs {
  id: string;
  url?: string;
  /** How long to retry an unreachable askgate, in seconds. */
  retryFor: number;
}

/** Parses `askgate wait <askId> [--retry-for <s>] [--url <url>]`. */
export function waitArgs(argv: string[]): WaitArgs {
  const { values, positionals, tokens } = parseArgs({
    args: argv,
    strict: true,
    tokens: true,
    allowPositionals: true,
    options: { url: { type: 'string' }, 'retry-for': { type: 'string' } },
  });
  for (const name of ['url', 'retry-for'])
    if (tokens.filter((t) => t.kind === 'option' && t.name === name).length > 1)
      throw new UsageError(`--${name} is given more than once`);
  if (positionals.length !== 1) throw new UsageError('wait takes one ask id (the "id" that askgate ask prints)');
  const [id] = positionals as [string];
  // `jq -r .id` prints "null" when the create failed: say so rather than ask the server about it.
  if (!ASK_ID_PATTERN.test(id)) throw new UsageError(`${shown(id)} is not an ask id (12–24 letters and digits)`);
  const retryFor =
    values['retry-for'] === undefined ? RETRY.defaultWaitSeconds : wholeSeconds('--retry-for', values['retry-for'], 0);
  return { id, url: values.url, retryFor };
}

/** `askgate wait <askId>`: waits for an existing ask's result, prints it like `ask --wait`; returns the exit code. */
export async function runWait(argv: string[]): Promise<number> {
  const { id, url, retryFor } = waitArgs(argv);
  const base = askgateUrl(url, process.env);
  try {
    return await printResult(base, clientFor(base), id, retryFor);
  } catch (error) {
    return failure(base, error);
  }
}
