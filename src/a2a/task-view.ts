import { Role, TaskState, type Artifact, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { TaskStatus } from '@a2a-js/sdk';
import type { AskRecord } from '../core/schemas.js';
import { isTerminal } from '../core/record-state.js';

/** The id of the one artifact of a finished task: the ask's result as a data part. */
export const RESULT_ARTIFACT_ID = 'result';

/** A structured (JSON) part. */
export function dataPart(value: object): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

/** A plain-text part. */
export function textPart(value: string): Part {
  return { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

/**
 * The A2A state of an ask. A cancelled ask is `canceled`; every other end is `completed`, the
 * data part saying how: an answer, or `no_answer` with its reason (timeout, skipped, superseded,
 * undelivered). Asking is the task, and it did finish: the calling agent should go on with its
 * best judgment, exactly as MCP's `ask_user` tells it to, rather than treat the run as broken
 * (`failed` is for an agent that could not do its job; `rejected` for one that refused it).
 */
export function stateOf(record: AskRecord): TaskState {
  if (!isTerminal(record)) return TaskState.TASK_STATE_WORKING;
  if (record.result?.status === 'no_answer' && record.result.reason === 'cancelled')
    return TaskState.TASK_STATE_CANCELED;
  return TaskState.TASK_STATE_COMPLETED;
}

/** What the data part holds: the ask's result, or `{status: 'pending', askId, expiresAt}` while a person decides. */
export function resultData(record: AskRecord): Record<string, unknown> {
  if (!record.result) return { status: 'pending', askId: record.id, expiresAt: record.expiresAt };
  return { ...record.result };
}

/** One line for readers of text parts (never an answer: those are in the data part only). */
function summary(record: AskRecord): string {
  const result = record.result;
  if (!result) return `Waiting for a person to answer (until ${record.expiresAt}).`;
  if (record.approval) return approvalSummary(result);
  if (result.status === 'answered') return 'Answered: the answers are in the data part.';
  if (result.reason === 'cancelled') return 'Cancelled before anyone answered.';
  return `No answer (${result.reason}): proceed with your best judgment and state the assumption you made.`;
}

/** An approval's line: what to do, never the person's reason (it is in the data part). */
function approvalSummary(result: NonNullable<AskRecord['result']>): string {
  if (result.status === 'no_answer')
    return result.reason === 'cancelled'
      ? 'Cancelled before anyone decided: do not run the action.'
      : `No decision (${result.reason}): nobody approved the action, do not run it.`;
  switch (result.decision) {
    case 'approve':
      return 'Approved: run the action with exactly the arguments in the data part (their hash is effectiveHash).';
    case 'edit':
      return 'Approved with changes: run the action with the arguments in the data part, not the ones proposed.';
    case 'request_changes':
      return 'Changes requested: do not run the action; the reason in the data part says what to change.';
    default:
      return 'Rejected: do not run the action; the reason is in the data part.';
  }
}

function agentMessage(record: AskRecord, state: TaskState): Message {
  return {
    messageId: `${record.id}-${state}`,
    contextId: record.runId,
    taskId: record.id,
    role: Role.ROLE_AGENT,
    parts: [textPart(summary(record)), dataPart(resultData(record))],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The task's status: its state, a message with the summary and the data part, and when it was reached. */
export function statusOf(record: AskRecord): TaskStatus {
  const state = stateOf(record);
  const result = record.result;
  const timestamp = !result ? record.createdAt : result.status === 'answered' ? result.answeredAt : result.at;
  return { state, message: agentMessage(record, state), timestamp };
}

/** The result artifact of an ended ask. */
export function resultArtifact(record: AskRecord): Artifact {
  return {
    artifactId: RESULT_ARTIFACT_ID,
    name: 'result',
    description: 'The person\u2019s answer, or why there is none',
    parts: [dataPart(resultData(record))],
    metadata: undefined,
    extensions: [],
  };
}

/** An ask as an A2A task: the task id is the ask id, the context id its runId. */
export function taskOf(record: AskRecord): Task {
  return {
    id: record.id,
    contextId: record.runId,
    status: statusOf(record),
    artifacts: isTerminal(record) ? [resultArtifact(record)] : [],
    history: [],
    metadata: {
      askgate: {
        runId: record.runId,
        version: record.version,
        createdAt: record.createdAt,
        expiresAt: record.expiresAt,
      },
    },
  };
}

/** The stream event carrying the whole task (the first one of every stream). */
export function taskEvent(record: AskRecord): StreamResponse {
  return { payload: { $case: 'task', value: taskOf(record) } };
}

/** The events that end a stream: the result artifact, then the final status. */
export function finalEvents(record: AskRecord): StreamResponse[] {
  const ids = { taskId: record.id, contextId: record.runId, metadata: undefined };
  return [
    {
      payload: {
        $case: 'artifactUpdate',
        value: { ...ids, artifact: resultArtifact(record), append: false, lastChunk: true },
      },
    },
    { payload: { $case: 'statusUpdate', value: { ...ids, status: statusOf(record) } } },
  ];
}
