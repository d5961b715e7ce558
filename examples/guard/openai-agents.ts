/**
 * Guarding tools with the OpenAI Agents SDK (`askgate/guard`): while the run waits on a person,
 * `deploy` does not run (the model reads why instead); the read-only `get_status` still does.
 *
 * In your project (`npm i askgate @openai/agents`):
 *   import { createToolGuard, guardOpenAITools } from 'askgate/guard';
 *   const guard = createToolGuard({ client, runId, allow: ['get_status'] });
 */
import { Agent, tool } from '@openai/agents';
import { z } from 'zod';
import { guardOpenAITools } from '../../src/guard/openai-agents.js';
import type { ToolGuard } from '../../src/guard/types.js';

/** The release agent; `ship` is the side effect (it runs only when the guard lets the call through). */
export function guardedReleaseAgent(guard: ToolGuard, ship: (version: string) => Promise<string>) {
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
  return new Agent({
    name: 'Release',
    instructions: 'Ship the release.',
    tools: guardOpenAITools([deploy, getStatus], guard),
  });
}
