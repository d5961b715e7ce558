/**
 * Guarding tools with the Vercel AI SDK (`askgate/guard`): while the run waits on a person,
 * `deploy` does not run (the model reads why as the tool's result); the read-only `get_status`
 * still does.
 *
 * In your project (`npm i askgate ai`):
 *   import { createToolGuard, guardAiTools } from 'askgate/guard';
 *   const guard = createToolGuard({ client, runId, allow: ['get_status'] });
 */
import { generateText, stepCountIs, tool, type LanguageModel } from 'ai';
import { z } from 'zod';
import { guardAiTools } from '../../src/guard/ai-sdk.js';
import type { ToolGuard } from '../../src/guard/types.js';

/** One release run on `model`; `ship` is the side effect (it runs only when the guard lets the call through). */
export function guardedRelease(model: LanguageModel, guard: ToolGuard, ship: (version: string) => Promise<string>) {
  const tools = guardAiTools(
    {
      deploy: tool({
        description: 'Deploy a version to production',
        inputSchema: z.object({ version: z.string() }),
        execute: ({ version }) => ship(version),
      }),
      get_status: tool({
        description: 'Read what production runs',
        inputSchema: z.object({}),
        execute: async () => 'production runs v2.2',
      }),
    },
    guard,
  );
  return generateText({ model, tools, stopWhen: stepCountIs(5), prompt: 'Ship v2.3.' });
}
