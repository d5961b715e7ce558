/**
 * Guarding tools with LangGraph (`askgate/guard`): the guarded tools go to `createReactAgent` (its
 * `ToolNode` runs them); while the run waits on a person, `deploy` does not run (the model reads
 * why in the ToolMessage instead); the read-only `get_status` still does.
 *
 * In your project (`npm i askgate @langchain/langgraph @langchain/core`), import from the package instead:
 *   import { createToolGuard } from 'askgate/guard';
 *   import { guardLangChainTools } from 'askgate/guard/langgraph';
 */
import { tool } from '@langchain/core/tools';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import type { AskgateClient } from '../../src/client/index.js';
import { createToolGuard } from '../../src/guard/index.js';
import { guardLangChainTools } from '../../src/guard/langgraph.js';

/** The release agent of run `runId` on `llm`; `ship` is the side effect. Close the guard when the run is over. */
export function guardedReleaseGraph(
  llm: BaseChatModel,
  client: AskgateClient,
  runId: string,
  ship: (version: string) => Promise<string>,
) {
  const guard = createToolGuard({ client, runId, allow: ['get_status'] });
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
  const graph = createReactAgent({ llm, tools: guardLangChainTools([deploy, getStatus], guard) });
  return { graph, guard };
}
