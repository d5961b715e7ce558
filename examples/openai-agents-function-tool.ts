/**
 * An `ask_user` function tool for the OpenAI Agents SDK that asks a person through askgate.
 *
 * Run the demo against a local askgate (`npm start` in another terminal):
 *   npx tsx examples/openai-agents-function-tool.ts
 * It calls the tool the way the agent would and prints what the model would get back.
 *
 * Wiring it into the OpenAI Agents SDK (`npm i @openai/agents`; not a dependency here):
 *
 *   import { Agent, run, tool } from '@openai/agents';
 *   const agent = new Agent({
 *     name: 'Release manager',
 *     instructions: 'Ship the release. Ask the user before anything irreversible.',
 *     tools: [tool(askUserFunctionTool(new AskgateClient({ url, token }), { runId: 'release-42', to }))],
 *   });
 *   console.log((await run(agent, 'Deploy v2.3')).finalOutput);
 */
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
// In your project: import { AskgateClient, type AskView, type Target } from 'askgate/client';
import { AskgateClient, type AskView, type Target } from '../src/client/index.js';
import { TOOL_DESCRIPTION } from '../src/mcp/tool.js';

/**
 * Parameters of the tool. OpenAI's strict function schemas want every field present, so optional
 * fields are nullable instead of optional.
 */
export const AskUserParameters = z.object({
  questions: z
    .array(
      z.object({
        id: z.string().describe('snake_case key of this question in the answers'),
        header: z.string().describe('Very short label, about 12 characters'),
        question: z.string(),
        options: z
          .array(z.object({ label: z.string(), description: z.string().nullable() }))
          .min(2)
          .max(4),
        multiSelect: z.boolean().nullable(),
      }),
    )
    .min(1)
    .max(3),
  timeoutSeconds: z.number().nullable().describe('Seconds to wait (default 900)'),
});
/** Arguments the model passes. */
export type AskUserParametersInput = z.output<typeof AskUserParameters>;

/** Where to ask, for which run. */
export interface AskUserToolOptions {
  runId: string;
  to?: Target;
  onCreated?: (ask: AskView) => void;
}

/**
 * The tool definition (`{name, description, parameters, execute}`) to pass to `tool()` from
 * `@openai/agents`. `execute` resolves to the JSON the model reads: `{"status": "answered",
 * "answers": {...}}` or `{"status": "no_answer", "reason": ...}`; askgate's validation errors are
 * returned as text too, so the model can fix its call.
 */
export function askUserFunctionTool(client: AskgateClient, opts: AskUserToolOptions) {
  return {
    name: 'ask_user',
    description: TOOL_DESCRIPTION,
    parameters: AskUserParameters,
    async execute(
      args: AskUserParametersInput,
      _context?: unknown,
      details?: { signal?: AbortSignal },
    ): Promise<string> {
      const questions = args.questions.map((q) => ({
        id: q.id,
        header: q.header,
        question: q.question,
        options: q.options.map((o) => ({ label: o.label, ...(o.description ? { description: o.description } : {}) })),
        multiSelect: q.multiSelect ?? false,
      }));
      try {
        const result = await client.ask(
          {
            runId: opts.runId,
            ...(opts.to ? { to: opts.to } : {}),
            questions,
            ...(args.timeoutSeconds ? { timeoutSeconds: Math.round(args.timeoutSeconds) } : {}),
          },
          { signal: details?.signal, onCreated: opts.onCreated },
        );
        return JSON.stringify(
          result.status === 'answered'
            ? { status: 'answered', answers: result.answers }
            : { status: 'no_answer', reason: result.reason },
        );
      } catch (error) {
        const issues = (error as { issues?: { path: unknown[]; message: string }[] }).issues;
        if (issues)
          return `Invalid ask_user arguments: ${issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
        throw error;
      }
    },
  };
}

/** The demo: call the tool as the agent would and print what the model gets. */
async function main(): Promise<void> {
  const url = process.env.ASKGATE_URL ?? 'http://127.0.0.1:7420';
  const spec = process.env.ASKGATE_DEFAULT_TO;
  const to = spec ? { channel: spec.slice(0, spec.indexOf(':')), chat: spec.slice(spec.indexOf(':') + 1) } : undefined;
  const askUser = askUserFunctionTool(new AskgateClient({ url, token: process.env.ASKGATE_API_TOKEN }), {
    runId: `openai-demo-${Date.now()}`,
    to,
    onCreated: (ask) =>
      console.log(
        `Asked (ask ${ask.id}). Answer it in the chat, or:\n` +
          `  curl -s -X POST ${url}/v1/asks/${ask.id}/answer -H 'content-type: application/json' -d '{"answers": {"window": ["Tonight"]}}'`,
      ),
  });
  const output = await askUser.execute({
    questions: [
      {
        id: 'window',
        header: 'Deploy',
        question: 'When should I deploy v2.3 to production?',
        options: [
          { label: 'Tonight (Recommended)', description: 'low traffic' },
          { label: 'Now', description: null },
        ],
        multiSelect: null,
      },
    ],
    timeoutSeconds: 300,
  });
  console.log(output);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  void main().catch((error) => (console.error(error), process.exit(1)));
