/**
 * Route the Claude Agent SDK's built-in AskUserQuestion tool to askgate, so Claude's clarifying
 * questions reach a person over Telegram, Slack or Discord instead of a terminal.
 *
 * Run the demo against a local askgate (`npm start` in another terminal):
 *   cd examples && npx tsx claude-agent-sdk-askuserquestion.ts
 * It asks what Claude would ask and prints what your canUseTool callback would return.
 *
 * Wiring it into the Claude Agent SDK (`npm i @anthropic-ai/claude-agent-sdk`; not a dependency here):
 *
 *   import { query } from '@anthropic-ai/claude-agent-sdk';
 *   const askViaAskgate = askUserQuestionViaAskgate(new AskgateClient({ url, token }), { runId: sessionId, to });
 *   for await (const message of query({
 *     prompt: 'Set up CI for this repository',
 *     options: {
 *       canUseTool: async (toolName, input, { signal, toolUseID }) =>
 *         toolName === 'AskUserQuestion'
 *           ? askViaAskgate(input as AskUserQuestionInput, { signal, toolUseID })
 *           : { behavior: 'allow', updatedInput: input },
 *     },
 *   })) console.log(message);
 */
import { pathToFileURL } from 'node:url';
// In your project: import { AskgateClient, type AskView, type Target } from 'askgate/client';
import { AskgateClient, type AskView, type Target } from '../src/client/index.js';

/** AskUserQuestion's input as Claude sends it (1–4 questions). */
export interface AskUserQuestionInput {
  questions: {
    question: string;
    header: string;
    options: { label: string; description?: string }[];
    multiSelect: boolean;
  }[];
  [key: string]: unknown;
}

/** What a canUseTool callback returns. */
export type PermissionResult =
  { behavior: 'allow'; updatedInput: Record<string, unknown> } | { behavior: 'deny'; message: string };

/** Where and how long to ask. */
export interface AskUserQuestionOptions {
  /** The agent run (e.g. the Claude session id); one pending ask per run. */
  runId: string;
  /** Where to ask; leave it out to answer through askgate's API or console. */
  to?: Target;
  timeoutSeconds?: number;
  /** Called with each ask once it exists (the demo prints how to answer it). */
  onCreated?: (ask: AskView) => void;
}

/** askgate asks at most 3 questions at once; Claude may send 4. */
const BATCH = 3;

/**
 * Builds the AskUserQuestion handler: asks through askgate and returns `updatedInput.answers`
 * keyed by question text, multi-select labels joined with ", " (the format the SDK expects).
 * No answer (timeout, skip, ...) becomes a deny whose message tells Claude to proceed on its own.
 */
export function askUserQuestionViaAskgate(client: AskgateClient, opts: AskUserQuestionOptions) {
  return async (
    input: AskUserQuestionInput,
    call: { signal?: AbortSignal; toolUseID?: string } = {},
  ): Promise<PermissionResult> => {
    const answers: Record<string, string> = {};
    for (let start = 0; start < input.questions.length; start += BATCH) {
      const batch = input.questions.slice(start, start + BATCH);
      const questions = batch.map((q, i) => ({
        id: `q${start + i + 1}`,
        header: q.header,
        question: q.question,
        options: q.options.map((o) => ({ label: o.label, ...(o.description ? { description: o.description } : {}) })),
        multiSelect: q.multiSelect ?? false,
      }));
      // Keyed on the tool call: a retried callback finds the same ask instead of asking twice.
      const idempotencyKey = call.toolUseID
        ? `claude-${opts.runId}-${call.toolUseID}-${start}`.slice(0, 255)
        : undefined;
      const result = await client.ask(
        {
          runId: opts.runId,
          ...(opts.to ? { to: opts.to } : {}),
          questions,
          ...(opts.timeoutSeconds ? { timeoutSeconds: opts.timeoutSeconds } : {}),
        },
        { signal: call.signal, idempotencyKey, onCreated: opts.onCreated },
      );
      if (result.status === 'no_answer') {
        return {
          behavior: 'deny',
          message: `The user did not answer (${result.reason}). Proceed with your best judgment and state the assumption you made.`,
        };
      }
      for (const q of questions) answers[q.question] = (result.answers[q.id] ?? []).join(', ');
    }
    return { behavior: 'allow', updatedInput: { ...input, answers } };
  };
}

/** The demo: ask what Claude would ask and print the canUseTool result. */
async function main(): Promise<void> {
  const url = process.env.ASKGATE_URL ?? 'http://127.0.0.1:7420';
  const client = new AskgateClient({ url, token: process.env.ASKGATE_API_TOKEN });
  const spec = process.env.ASKGATE_DEFAULT_TO;
  const to = spec ? { channel: spec.slice(0, spec.indexOf(':')), chat: spec.slice(spec.indexOf(':') + 1) } : undefined;
  const handle = askUserQuestionViaAskgate(client, {
    runId: `claude-demo-${Date.now()}`,
    to,
    timeoutSeconds: 300,
    onCreated: (ask) =>
      console.log(
        `Asked (ask ${ask.id}${to ? ` in ${to.channel}:${to.chat}` : ''}). Answer it in the chat, or:\n` +
          `  curl -s -X POST ${url}/v1/asks/${ask.id}/answer -H 'content-type: application/json' -d '{"answers": {"q1": ["GitHub Actions"], "q2": ["lint", "tests"]}}'`,
      ),
  });
  const result = await handle({
    questions: [
      {
        header: 'CI',
        question: 'Which CI system should I set up?',
        multiSelect: false,
        options: [
          { label: 'GitHub Actions (Recommended)', description: 'the repository is on GitHub' },
          { label: 'GitLab CI' },
        ],
      },
      {
        header: 'Checks',
        question: 'Which checks should run on every push?',
        multiSelect: true,
        options: [{ label: 'lint' }, { label: 'tests' }, { label: 'e2e' }],
      },
    ],
  });
  console.log(JSON.stringify(result, null, 2));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  void main().catch((error) => (console.error(error), process.exit(1)));
