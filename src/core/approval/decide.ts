// The `decide` transition: a person's (or the API's) decision on an approval. One decision ends the
// ask, unless it needs several approvals (`agree`): then approvals are counted per person, and one
// reject or request for changes ends it at once.
import type { AskRecord, Responder } from '../schemas.js';
import type { Response } from '../result-schemas.js';
import type { Effect } from '../effects.js';
import type { Issue } from '../errors.js';
import type { DecideEvent, TransitionResult } from '../ask-events.js';
import { terminalEffects } from '../ask-ending.js';
import { agreeOf } from '../policy.js';
import { personKey } from '../agreement.js';
import { withHistory, who } from '../record-history.js';
import { hasVisible } from '../text.js';
import { NEEDS_REASON, ENDS_AT_ONCE } from './decisions.js';

const invalid = (issue: Issue): TransitionResult => ({
  kind: 'unchanged',
  outcome: { code: 'invalid', issues: [issue] },
});

/** Why a decision cannot be taken as given, or null. */
export function decisionProblem(record: AskRecord, event: Omit<DecideEvent, 'type'>): Issue | null {
  const approval = record.approval;
  if (!approval) return { path: ['decision'], message: 'this ask asks questions: send answers, not a decision' };
  const { requestedBy } = approval;
  if (requestedBy && requestedBy.channel === event.by.channel && requestedBy.userId === event.by.userId)
    return { path: ['decision'], message: 'you requested this action: someone else must decide' };
  if (!approval.decisions.includes(event.decision))
    return { path: ['decision'], message: `must be one of the decisions offered: ${approval.decisions.join(', ')}` };
  if (NEEDS_REASON.has(event.decision) && !(event.reason !== undefined && hasVisible(event.reason)))
    return { path: ['reason'], message: 'say why: a reason is required to reject or to request changes' };
  if (event.decision === 'edit' && (!event.arguments || !event.effectiveHash))
    return { path: ['arguments'], message: 'send the edited arguments' };
  if (event.decision !== 'edit' && event.arguments !== undefined)
    return { path: ['arguments'], message: 'arguments are sent only with the decision edit' };
  return null;
}

/** The decision's part of a result: what to run, and both hashes. */
function outcomeOf(record: AskRecord, event: DecideEvent) {
  const approval = record.approval!;
  const edited = event.decision === 'edit';
  const reason = event.reason?.trim();
  return {
    decision: event.decision,
    ...(reason ? { reason } : {}),
    arguments: edited ? event.arguments! : approval.arguments,
    actionHash: approval.actionHash,
    effectiveHash: edited ? event.effectiveHash! : approval.actionHash,
  };
}

/** Applies a decision (the caller checked the ask is pending, the person allowed, the deadline). */
export function decide(record: AskRecord, event: DecideEvent, now: number): TransitionResult {
  const problem = decisionProblem(record, event);
  if (problem) return invalid(problem);
  const at = new Date(now).toISOString();
  const decided = outcomeOf(record, event);
  const needed = agreeOf(record);
  if (needed <= 1) return ended(record, { ...decided, answeredBy: event.by, answeredAt: at }, now);
  const key = personKey(event.by);
  const response: Response = {
    answers: {},
    decision: event.decision,
    ...(decided.reason ? { reason: decided.reason } : {}),
    answeredBy: event.by,
    answeredAt: at,
  };
  const responses = [...(record.responses ?? []).filter((r) => personKey(r.answeredBy) !== key), response];
  const approvals = responses.filter((r) => r.decision === 'approve').length;
  if (ENDS_AT_ONCE.has(event.decision) || approvals >= needed)
    return ended({ ...record, responses }, { ...decided, answeredBy: event.by, answeredAt: at, responses }, now, true);
  const next = withHistory(
    { ...record, rev: record.rev + 1, responses },
    [{ type: 'response', ...who(event.by) }],
    now,
  );
  const effects = next.deliveries.flatMap((d, index): Effect[] =>
    d.status === 'sent' ? [{ type: 'enqueue', job: { kind: 'refresh', index } }] : [],
  );
  return { kind: 'changed', record: next, effects, outcome: { code: 'counted', matching: approvals, needed } };
}

function ended(
  record: AskRecord,
  decided: ReturnType<typeof outcomeOf> & { answeredBy: Responder; answeredAt: string; responses?: Response[] },
  now: number,
  counted = false,
): TransitionResult {
  const entries = [
    ...(counted ? [{ type: 'response' as const, ...who(decided.answeredBy) }] : []),
    { type: 'answered' as const, ...who(decided.answeredBy) },
  ];
  const next = withHistory(
    {
      ...record,
      rev: record.rev + 1,
      status: 'answered',
      result: { status: 'answered', answers: {}, ...decided },
    },
    entries,
    now,
  );
  return { kind: 'changed', record: next, effects: terminalEffects(next), outcome: { code: 'resolved' } };
}
