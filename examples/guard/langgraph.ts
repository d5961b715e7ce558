/**
 * Guarding tools with LangGraph (`askgate/guard`): the guarded tools go to `createReactAgent` (its
 * `ToolNode` runs them); while the run waits on a person, `deploy` does not run (the model reads
 * why in the ToolMessage instead); the read-only `get_status` still does.
 *
 * In your project (`npm i askgate @langchain/langgraph @langchain/core`):
 *   import { createToolGuard, guardLangChainTools } from 'askgate/guard';
 *   const guard = createToolGuard({ client, runId, allow: ['get_status'] });
 */
import { tool } from '@langchain/core/tools';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { guardLangChainTools } from '../../src/guard/langgraph.js';
import type { ToolGuard } from '../../src/guard/types.js';

/** The release agent on `llm`; `ship` is the side effect (it runs only when the guard lets the call through). */
export function guardedReleaseGraph(llm: BaseChatModel, guard: ToolGuard, ship: (version: string) => Promise<string>) {
  const deploy = tool(({ version }) => ship(version), {
    name: 'deploy',
    description: 'Deploy a version to production',
    schema: z.object({ version: z.string() }),
  });
  const getStatus = tool(async () => 'production runs v2.2', {
    name: 'get_status',
    description: 'Read what production runs',
    schema: z.object({}),
  });
  return createReactAgent({ llm, tools: guardLangChainTools([deploy, getStatus], guard) });
}
