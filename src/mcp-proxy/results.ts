// What the model reads when a gated call is not (yet) the upstream's own result: still waiting for
// the person, refused (with the person's words), nobody decided, or the call could not be made.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AskResult } from '../core/schemas.js';
import { AWAIT_APPROVAL_TOOL } from './options.js';

/** A tool error result the model can read (`isError: true`); `structured` says why, for programs. */
export function gateError(text: string, structured?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true, ...(structured ? { structuredContent: structured } : {}) };
}

/** The call waits for a person: the model calls `await_approval` with the ask id (never the tool again). */
export function pendingResult(tool: string, askId: string, expiresAt: string): CallToolResult {
  return {
    content: [
      {
        type: 'text',
        text: `Waiting for a person to approve this call of ${tool} (ask ${askId}); it has not run yet. Call ${AWAIT_APPROVAL_TOOL} with {"askId": "${askId}"} (again while it says pending) to get the tool's result once approved. Do not call ${tool} again for this.`,
      },
    ],
    structuredContent: { status: 'pending', askId, expiresAt },
  };
}

/** The result of an approval that does not let the call run: rejected, changes requested, nobody decided. */
export function refusedResult(tool: string, result: AskResult): CallToolResult {
  if (result.status === 'no_answer')
    return gateError(
      `Nobody approved this call of ${tool} (${result.reason}); it was not run. Do not run it another way.`,
      { status: 'no_answer', reason: result.reason },
    );
  const said = result.reason ? ` The person said: ${JSON.stringify(result.reason)}` : '';
  const what =
    result.decision === 'request_changes'
      ? `A person asked for changes to this call of ${tool}; it was not run.${said} Change what they ask and call ${tool} again.`
      : `A person rejected this call of ${tool}; it was not run.${said}`;
  return gateError(what, {
    status: 'answered',
    decision: result.decision,
    ...(result.reason !== undefined ? { reason: result.reason } : {}),
  });
}

/** The `await_approval` tool as listed beside the upstream's tools. */
export const AWAIT_APPROVAL_DEFINITION: Tool = {
  name: AWAIT_APPROVAL_TOOL,
  title: 'Wait for an approval',
  description: `Keep waiting for a person's decision on a tool call that returned {"status": "pending", "askId": "..."} because it needs approval. Pass that askId. Returns the tool's own result once the person approved and it ran, an error saying why it did not run (rejected, changes requested, nobody decided), or pending again (then call ${AWAIT_APPROVAL_TOOL} again with the same askId).`,
  inputSchema: {
    type: 'object',
    properties: { askId: { type: 'string', description: 'The askId of the pending result' } },
    required: ['askId'],
  },
  annotations: { readOnlyHint: true, openWorldHint: true },
};

/**
 * A gated tool as the host sees it: the upstream's definition with a note that a person approves
 * each call, and without `outputSchema` (a pending or refused result has none of the tool's output).
 */
export function gatedDefinition(tool: Tool): Tool {
  const { outputSchema: _dropped, ...rest } = tool;
  const note = `(Each call is approved by a person first through askgate: it may return {"status": "pending", "askId"}; then call ${AWAIT_APPROVAL_TOOL}.)`;
  return { ...rest, description: tool.description ? `${tool.description}\n\n${note}` : note };
}
