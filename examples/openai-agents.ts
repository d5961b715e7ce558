/**
 * The OpenAI Agents SDK with askgate (`askgate/openai-agents`): the model asks a person with the
 * `ask_user` tool, and a tool marked `needsApproval` waits for a person's Approve/Reject.
 *
 * Run the demo against a local askgate (`npm start` in another terminal):
 *   cd examples && npx tsx openai-agents.ts
 * With OPENAI_API_KEY set it uses OpenAI's default model; without, a scripted model that makes
 * the same tool calls (no network). Each ask prints a curl command that answers it, or answer in
 * the chat with ASKGATE_DEFAULT_TO set (e.g. telegram:123456).
 *
 * In your project (`npm i askgate @openai/agents`):
 *   import { AskgateClient } from 'askgate/client';
 *   import { approveWithPerson, askUserTool } from 'askgate/openai-agents';
 */
import { pathToFileURL } from 'node:url';
import { Agent, Runner, Usage, tool, type Model, type ModelRequest, type ModelResponse } from '@openai/agents';
import { z } from 'zod';
import { AskgateClient, type AskView, type Target } from '../src/client/index.js';
import { approveWithPerson, askUserTool } from '../src/adapters/openai-agents.js';

/** The agent: it asks when to deploy, then deploys (a call a person approves first). */
export function releaseAgent(client: AskgateClient, runId: string, to?: Target, onCreated?: (ask: AskView) => void) {
  const deploy = tool({
    name: 'deploy',
    description: 'Deploy a version to an environment',
    parameters: z.object({ version: z.string(), env: z.enum(['staging', 'production']), when: z.string() }),
    needsApproval: true,
    execute: async ({ version, env, when }) => `deployed ${version} to ${env} (${when})`,
  });
  return new Agent({
    name: 'Release manager',
    instructions: 'Ship the release. Ask the user when to deploy, then deploy.',
    tools: [askUserTool(client, { runId, ...(to ? { to } : {}), ...(onCreated ? { onCreated } : {}) }), deploy],
  });
}

/** A scripted stand-in for the model (no network): ask_user, then deploy, then a summary. */
class DemoModel implements Model {
  private step = 0;
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const results = (Array.isArray(request.input) ? request.input : []).filter(
      (i) => i.type === 'function_call_result',
    );
    const text = ({ output }: (typeof results)[number]) =>
      typeof output === 'string' ? output : 'text' in output ? output.text : JSON.stringify(output);
    const call = (name: string, args: object) => ({
      type: 'function_call' as const,
      callId: `call_${name}`,
      name,
      arguments: JSON.stringify(args),
      status: 'completed' as const,
    });
    const output =
      this.step++ === 0
        ? [
            call('ask_user', {
              questions: [
                {
                  id: 'window',
                  header: 'Deploy',
                  question: 'When should I deploy v2.3 to production?',
                  kind: null,
                  options: [
                    { label: 'Tonight (Recommended)', description: 'low traffic' },
                    { label: 'Now', description: null },
                  ],
                  multiSelect: null,
                  // The typed kinds' fields (a strict schema has the model send every field).
                  ...{
                    minLength: null,
                    maxLength: null,
                    pattern: null,
                    min: null,
                    max: null,
                    integer: null,
                    unit: null,
                  },
                },
              ],
              timeoutSeconds: 300,
            }),
          ]
        : this.step === 2
          ? [call('deploy', { version: 'v2.3', env: 'production', when: 'as the user chose' })]
          : [
              {
                type: 'message' as const,
                role: 'assistant' as const,
                status: 'completed' as const,
                content: [{ type: 'output_text' as const, text: results.map(text).join('\n') }],
              },
            ];
    return { usage: new Usage(), output };
  }
  getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the demo model does not stream');
  }
}

/** The demo: run the agent; each ask (the question, then the approval) goes to a person. */
async function main(): Promise<void> {
  const url = process.env.ASKGATE_URL ?? 'http://127.0.0.1:7420';
  const client = new AskgateClient({ url, token: process.env.ASKGATE_API_TOKEN });
  const spec = process.env.ASKGATE_DEFAULT_TO;
  const to = spec ? { channel: spec.slice(0, spec.indexOf(':')), chat: spec.slice(spec.indexOf(':') + 1) } : undefined;
  const runId = `openai-demo-${Date.now()}`;
  const onCreated = (ask: AskView) => {
    const curl = `curl -s -X POST ${url}/v1/asks/${ask.id}/answer -H 'content-type: application/json' -d`;
    // The deploy tool's approval: the exact action and arguments, decided (approve, reject: why, ...).
    if (ask.approval) {
      const { action, arguments: args, actionHash } = ask.approval;
      console.log(
        `Approve ${action} ${JSON.stringify(args)} (#${actionHash.slice(7, 15)}, ask ${ask.id})? Decide in the chat, or:\n` +
          `  ${curl} '{"decision": "approve"}'`,
      );
      return;
    }
    const q = ask.questions[0]!;
    console.log(
      `Asked: ${q.question} (ask ${ask.id}). Answer it in the chat, or:\n` +
        `  ${curl} '{"answers": {"${q.id}": ["${'options' in q ? q.options[0]!.label : 'your answer'}"]}}'`,
    );
  };
  const demo = new DemoModel();
  const runner = process.env.OPENAI_API_KEY
    ? new Runner()
    : new Runner({ modelProvider: { getModel: () => demo }, tracingDisabled: true });
  const agent = releaseAgent(client, runId, to, onCreated);
  const approve = approveWithPerson(client, {
    runId,
    ...(to ? { to } : {}),
    timeoutSeconds: 300,
    onCreated,
    run: (a, state) => runner.run(a, state),
  });
  const result = await approve(agent, await runner.run(agent, 'Deploy v2.3 to production'));
  console.log(result.finalOutput);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  void main().catch((error) => (console.error(error), process.exit(1)));
