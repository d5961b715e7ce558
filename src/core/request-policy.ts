// The policy rules a request alone decides, run by the request schema. They read plain shapes rather
// than the schema's types, so this file imports no schema and the schema loads no policy module.
import type { Issue } from './errors.js';
import { kindOf, strictContext, type KindQuestion } from './questions/index.js';

/** What the rules read of a target: its channel and who may answer there. */
interface TargetFields {
  channel: string;
  users?: readonly string[];
}

/** What the rules read of a question (its id may still be unset: the request before its transform). */
type QuestionFields = KindQuestion & { id?: string };

/** The request fields {@link staticPolicyIssues} reads (the parsed request, before or after its transform). */
interface PolicyFields {
  to?: TargetFields | TargetFields[];
  remindAfterSeconds?: readonly number[];
  escalate?: readonly { afterSeconds: number; to: TargetFields | TargetFields[] }[];
  onTimeout?: { default?: Readonly<Record<string, readonly string[]>> };
  agree?: number;
  timeZone?: string;
  questions: readonly QuestionFields[];
}

/** `to` as a list: one target, a list, or none. */
export function targetList<T extends object>(to: T | T[] | null | undefined): T[] {
  if (!to) return [];
  return Array.isArray(to) ? to : [to];
}

const ascending = (values: readonly number[], path: (i: number) => Issue['path'], what: string): Issue[] =>
  values.flatMap((v, i) =>
    i > 0 && v <= values[i - 1]! ? [{ path: path(i), message: `must be later than the ${what} before it` }] : [],
  );

/**
 * The policy rules that need only the request (run by the request schema): ascending offsets,
 * defaults each question's kind accepts, `agree` within the allowed users.
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
      const found = kindOf(question).defaultValues(question, values, strictContext(req.timeZone, 0));
      if (!found.ok) issues.push({ path: found.at === undefined ? path : [...path, found.at], message: found.message });
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
