import { parseArgs } from 'node:util';
import { EXIT, askgateUrl, clientFor, failure } from './cli-ask.js';

/**
 * `askgate list`: one page of pending asks, oldest first, as JSON (`{asks, nextCursor}`, the body
 * of `GET /v1/asks`); `--cursor <nextCursor>` for the next. Returns the exit code.
 */
export async function runList(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      run: { type: 'string' },
      channel: { type: 'string' },
      agent: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      url: { type: 'string' },
    },
  });
  const base = askgateUrl(values.url, process.env);
  const client = clientFor(base);
  try {
    const page = await client.listAsks({
      status: 'pending',
      runId: values.run,
      channel: values.channel,
      agent: values.agent,
      // Checked by askgate, which names what is wrong ("abc" arrives as NaN: "must be a number").
      limit: values.limit === undefined ? undefined : Number(values.limit),
      cursor: values.cursor,
    });
    console.log(JSON.stringify(page, null, 2));
    return EXIT.answered;
  } catch (error) {
    return failure(base, error);
  }
}
