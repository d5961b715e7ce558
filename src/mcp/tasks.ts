import { renderResult, type WaitOutcome } from './tool.js';

/** A task of the Tasks extension (SEP-2663) as `tasks/get` returns it (a `DetailedTask`). */
export interface TaskView {
  taskId: string;
  status: 'working' | 'completed' | 'cancelled';
  statusMessage: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** From creation to the question's deadline: the longest the task stays `working` (its result is kept longer). */
  ttlMs: number;
  pollIntervalMs: number;
  /** When completed: the `tools/call` result `ask_user` would have returned. */
  result?: Record<string, unknown>;
}

/**
 * The task of one ask (task id = ask id): `working` while it is pending, `cancelled` when it was
 * cancelled, else `completed` with the tool result (an answer, or no_answer with its reason).
 */
export function taskOf(a: {
  taskId: string;
  createdAt: string;
  expiresAt: string;
  outcome: WaitOutcome;
  questions: readonly { id: string; header?: string }[];
  pollIntervalMs: number;
}): TaskView {
  const { outcome } = a;
  const ttlMs = Math.max(0, Date.parse(a.expiresAt) - Date.parse(a.createdAt));
  const base = { taskId: a.taskId, createdAt: a.createdAt, ttlMs, pollIntervalMs: a.pollIntervalMs };
  if (outcome.status === 'pending') {
    return {
      ...base,
      status: 'working',
      statusMessage: "Waiting for the user's answer",
      lastUpdatedAt: a.createdAt,
    };
  }
  const ended = outcome.status === 'answered' ? outcome.answeredAt : outcome.at;
  if (outcome.status === 'no_answer' && outcome.reason === 'cancelled')
    return { ...base, status: 'cancelled', statusMessage: 'The question was cancelled', lastUpdatedAt: ended };
  const result = renderResult(outcome, a.questions);
  return {
    ...base,
    status: 'completed',
    statusMessage: outcome.status === 'answered' ? 'The user answered' : `No answer (${outcome.reason})`,
    lastUpdatedAt: ended,
    result: { ...result },
  };
}
