import type { Issue } from './errors.js';
import type { Answers, AskRecord, AskRequest, Question, StoredPolicy, Target } from './schemas.js';
import { ownValue } from './own.js';
import type { Step } from './effects.js';
import { labelKey } from './shown-text.js';

/** Most targets of one ask (or of one escalation step). */
export const MAX_TARGETS = 5;

/** An ask's policy as stored: normalised (targets always a list, default labels canonical). */
export type AskPolicy = StoredPolicy;

/** The request fields {@link staticPolicyIssues} reads (the parsed request, before or after its transform). */
type PolicyFields = Pick<AskRequest, 'to' | 'remindAfterSeconds' | 'escalate' | 'onTimeout' | 'agree'> & {
  questions: readonly (Omit<Question, 'id'> & { id?: string })[];
};

/** `to` as a list: one target, a list, or none. */
export function targetList(to: Target | Target[] | null | undefined): Target[] {
  if (!to) return [];
  return Array.isArray(to) ? to : [to];
}

const ascending = (values: readonly number[], path: (i: number) => Issue['path'], what: string): Issue[] =>
  values.flatMap((v, i) =>
    i > 0 && v <= values[i - 1]! ? [{ path: path(i), message: `must be later than the ${what} before it` }] : [],
  );

/** The option labels `values` name in `question` (canonical), or the first value that names none. */
function defaultLabels(
  question: Omit<Question, 'id'>,
  values: readonly string[],
): { labels: string[] } | { bad: number } {
  const labels: string[] = [];
  for (const [i, value] of values.entries()) {
    const option = question.options.find((o) => labelKey(o.label) === labelKey(value));
    if (!option) return { bad: i };
    if (!labels.includes(option.label)) labels.push(option.label);
  }
  return { labels };
}

/**
 * The policy rules that need only the request (run by the request schema): ascending offsets,
 * defaults naming options of this ask's questions, `agree` within the allowed users.
 */
export function staticPolicyIssues(req: PolicyFields): Issue[] {
  const issues: Issue[] = [];
  if (req.remindAfterSeconds)
    issues.push(...ascending(req.remindAfterSeconds, (i) => ['remindAfterSeconds', i], 'reminder'));
  if (req.escalate)
    issues.push(
      ...ascending(
        req.escalate.map((s) => s.afterSeconds),
        (i) => ['escalate', i, 'afterSeconds'],
        'step',
      ),
    );
  const defaults = req.onTimeout?.default;
  if (defaults) {
    const ids = req.questions.map((q, i) => q.id ?? `q${i + 1}`);
    for (const [id, values] of Object.entries(defaults)) {
      const at = ids.indexOf(id);
      const path = ['onTimeout', 'default', id];
      const question = req.questions[at];
      if (!question) {
        issues.push({ path, message: `no question has id "${id}" (ids: ${ids.join(', ')})` });
        continue;
      }
      const found = defaultLabels(question, values);
      if ('bad' in found)
        issues.push({
          path: [...path, found.bad],
          message: `must be one of the options: ${question.options.map((o) => o.label).join(', ')}`,
        });
      else if (!question.multiSelect && found.labels.length !== 1)
        issues.push({ path, message: 'this question takes a single answer: give exactly one label' });
    }
  }
  if (req.agree !== undefined && req.agree > 1) {
    const all = [...targetList(req.to), ...(req.escalate ?? []).flatMap((s) => targetList(s.to))];
    if (all.length > 0 && all.every((t) => t.users)) {
      const users = new Set(all.flatMap((t) => t.users!.map((u) => `${t.channel}:${u}`)));
      if (req.agree > users.size)
        issues.push({
          path: ['agree'],
          message: `needs ${req.agree} people but the targets allow only ${users.size} (their users lists)`,
        });
    }
  }
  return issues;
}

/** The policy rules that need the clamped timeout: every reminder and escalation step before it. */
export function policyIssues(
  request: Pick<AskRequest, 'remindAfterSeconds' | 'escalate'>,
  timeoutSeconds: number,
): Issue[] {
  const late = `must be below the timeout (${timeoutSeconds} s after clamping)`;
  return [
    ...(request.remindAfterSeconds ?? []).flatMap((s, i) =>
      s >= timeoutSeconds ? [{ path: ['remindAfterSeconds', i], message: late }] : [],
    ),
    ...(request.escalate ?? []).flatMap((step, i) =>
      step.afterSeconds >= timeoutSeconds ? [{ path: ['escalate', i, 'afterSeconds'], message: late }] : [],
    ),
  ];
}

/** The stored policy of a validated request, or undefined when it sets none. */
export function policyOf(request: AskRequest): AskPolicy | undefined {
  const policy: AskPolicy = {};
  if (request.remindAfterSeconds) policy.remindAfterSeconds = [...request.remindAfterSeconds];
  if (request.escalate)
    policy.escalate = request.escalate.map((s) => ({ afterSeconds: s.afterSeconds, to: targetList(s.to) }));
  if (request.onTimeout) {
    const entries = Object.entries(request.onTimeout.default).map(([id, values]): [string, string[]] => {
      const question = request.questions.find((q) => q.id === id)!;
      const found = defaultLabels(question, values);
      return [id, 'labels' in found ? found.labels : []];
    });
    policy.onTimeout = { default: Object.fromEntries(entries) };
  }
  if (request.agree !== undefined && request.agree > 1) policy.agree = request.agree;
  return Object.keys(policy).length > 0 ? policy : undefined;
}

/** How many matching answers the ask needs (1 unless `agree` says more). */
export const agreeOf = (record: Pick<AskRecord, 'policy'>): number => record.policy?.agree ?? 1;

/**
 * The comparison key of a set of (normalised) answers: per question in order, its values sorted,
 * as JSON. A value naming an option is already its label, so "production" and "Production" agree;
 * own words agree when they are the same text. The agreement rule and the tally both use it.
 */
export function answersKey(questions: readonly { id: string }[], answers: Answers): string {
  return JSON.stringify(questions.map((q) => [...(ownValue(answers, q.id) ?? [])].sort()));
}

/** A scheduled step of a policy: its name, its number (1-based) and when it falls due (epoch ms). */
export interface PolicyStep {
  step: Step;
  kind: 'remind' | 'escalate';
  n: number;
  at: number;
}

/** Every reminder and escalation step of the record's policy, fired or not. */
export function policySteps(record: Pick<AskRecord, 'policy' | 'createdAt'>): PolicyStep[] {
  const created = Date.parse(record.createdAt);
  const reminders = (record.policy?.remindAfterSeconds ?? []).map((s, i): PolicyStep => ({
    step: `remind-${i + 1}` as Step,
    kind: 'remind',
    n: i + 1,
    at: created + s * 1000,
  }));
  const escalations = (record.policy?.escalate ?? []).map((s, i): PolicyStep => ({
    step: `escalate-${i + 1}` as Step,
    kind: 'escalate',
    n: i + 1,
    at: created + s.afterSeconds * 1000,
  }));
  return [...reminders, ...escalations];
}

/** The steps of the policy that have not fired yet. */
export function unfiredSteps(record: Pick<AskRecord, 'policy' | 'createdAt' | 'reminded' | 'escalated'>): PolicyStep[] {
  return policySteps(record).filter(
    (s) => s.n > (s.kind === 'remind' ? (record.reminded ?? 0) : (record.escalated ?? 0)),
  );
}

/** Reads a step name: `remind-2` -> {kind, n}; the timeout -> null. */
export function parseStep(step: Step): { kind: 'remind' | 'escalate'; n: number } | null {
  const m = /^(remind|escalate)-([1-3])$/.exec(step);
  return m ? { kind: m[1] as 'remind' | 'escalate', n: Number(m[2]) } : null;
}
