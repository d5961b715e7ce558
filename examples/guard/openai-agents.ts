/**
 * Guarding tools with the OpenAI Agents SDK (`askgate/guard`): while the run waits on a person,
 * `deploy` does not run (the model reads why instead); the read-only `get_status` still does.
 *
 * In your project (`npm i askgate @openai/agents`), import from the package instead:
 *   import { createToolGuard } from 'askgate/guard';
 *   import { guardOpenAITools } from 'askgate/guard/openai-agents';
 */
import { Agent, tool } from '@openai/agents';
import { z } from 'zod';
import type { AskgateClient } from '../../src/client/index.js';
import { createToolGuard } from '../../src/guard/index.js';
import { guardOpenAITools } from '../../src/guard/openai-agents.js';

/** The release agent of run `runId`; `ship` is the side effect. Close the guard when the run is over. */
export function guardedReleaseAgent(client: AskgateClient, runId: string, ship: (version: string) => Promise<string>) {
  const guard = createToolGuard({ client, runId, allow: ['get_status'] });
  const deploy = tool({
    name: 'deploy',
    description: 'Deploy a version to production',
    parameters: z.object({ version: z.string() }),
    execute: ({ version }) => ship(version),
  });
  const getStatus = tool({
    name: 'get_status',
    description: 'Read what production runs',
    parameters: z.object({}),
    execute: async () => 'production runs v2.2',
  });
  const agent = new Agent({
    name: 'Release',
    instructions: 'Ship the release.',
    tools: guardOpenAITools([deploy, getStatus], guard),
  });
  return { agent, guard };
}
