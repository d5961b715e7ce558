/**
 * AG-UI interrupts as approval asks (issue 36): the person sees the exact action and its arguments
 * with their hash, and approves, rejects or requests changes (saying why). Two sources:
 * - `metadata.askgate.approval` on any interrupt: `{action, arguments, summary?, preview?}`;
 * - a `reason: "tool_call"` interrupt whose `toolCallId` names a tool call of the thread's messages
 *   (unless `approvalAsks: false`): its function name and arguments (as the model sent them).
 * The resume payload is `{approved}` (a bare boolean when the schema is `{type: "boolean"}`): only
 * approve approves; the person's reason goes to `metadata.askgate.comment`.
 */
import type { Interrupt, Message } from '@ag-ui/client';
import type { AskInput, AskResult } from '../client/index.js';
import { assertApproved } from '../client/approval.js';
import { ownValue } from '../core/own.js';
import { argumentsOf, isObject, shownLine } from './shared.js';

/** A tool call of the thread, as the model proposed it. */
export interface ToolCallRef {
  name: string;
  /** The arguments as the model sent them (JSON text). */
  arguments: string;
}

/** An approval ask for an interrupt: what to ask, and the payload the decision becomes. */
export interface ApprovalInterruptAsk {
  approval: NonNullable<AskInput['approval']>;
  bare: boolean;
}

/** The tool call `id` among the thread's messages (assistant `toolCalls`), or undefined. */
export function toolCallIn(messages: readonly Message[], id: string): ToolCallRef | undefined {
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    const call = message.toolCalls?.find((c) => c.id === id);
    if (call) return { name: call.function.name, arguments: call.function.arguments };
  }
  return undefined;
}

/** The approval ask of an interrupt (see the module comment), or undefined when it is not one. */
export function approvalOfInterrupt(interrupt: Interrupt, toolCall?: ToolCallRef): ApprovalInterruptAsk | undefined {
  const schema = interrupt.responseSchema;
  const bare = isObject(schema) && schema.type === 'boolean';
  const meta: unknown = interrupt.metadata ? ownValue(interrupt.metadata, 'askgate') : undefined;
  const given = isObject(meta) ? meta.approval : undefined;
  const summary = shownLine(interrupt.message ?? '', 300);
  if (isObject(given) && typeof given.action === 'string' && isObject(given.arguments)) {
    const { action, arguments: args, summary: own, preview } = given;
    return {
      bare,
      approval: {
        action,
        arguments: args,
        ...(typeof own === 'string' ? { summary: own } : summary ? { summary } : {}),
        ...(typeof preview === 'string' ? { preview } : {}),
        decisions: ['approve', 'reject', 'request_changes'],
      },
    };
  }
  if (interrupt.reason !== 'tool_call' || !toolCall) return undefined;
  return {
    bare,
    approval: {
      action: shownLine(toolCall.name, 100) || 'tool',
      arguments: argumentsOf(toolCall.arguments),
      ...(summary ? { summary } : {}),
      decisions: ['approve', 'reject', 'request_changes'],
    },
  };
}

/**
 * Whether an answered approval releases exactly this approval's action: `assertApproved` on the
 * proposed action and arguments (a decision bound to another hash, or any edit, releases nothing:
 * AG-UI's resume payload `{approved}` cannot carry changed arguments).
 */
export function boundTo(result: AskResult, approval: ApprovalInterruptAsk['approval']): boolean {
  try {
    assertApproved(result, approval.action, approval.arguments);
    return true;
  } catch {
    return false;
  }
}
