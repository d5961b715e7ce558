/**
 * Guarding tools with the Vercel AI SDK (`askgate/guard`): while the run waits on a person,
 * `deploy` does not run (the model reads why as the tool's result); the read-only `get_status`
 * still does.
 *
 * In your project (`npm i askgate ai`), import from the package instead:
 *   import { createToolGuard } from 'askgate/guard';
 *   import { guardAiTools } from 'askgate/guard/ai-sdk';
 */
import { generateText, stepCountIs, tool, type LanguageModel } from 'ai';
import { z } from 'zod';
import type { AskgateClient } from '../../src/client/index.js';
import { createToolGuard } from '../../src/guard/index.js';
import { guardAiTools } from '../../src/guard/ai-sdk.js';

/** The release tools of run `runId`; `ship` is the side effect. Close the guard when the run is over. */
export function guardedRelease(client: AskgateClient, runId: string, ship: (version: string) => Promise<string>) {
  const guard = createToolGuard({ client, runId, allow: ['get_status'] });
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
  const run = (model: LanguageModel, prompt: string) =>
    generateText({ model, tools, stopWhen: stepCountIs(5), prompt });
  return { run, guard };
}
