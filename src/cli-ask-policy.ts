import { parseTargetSpec } from './config.js';

/** A command line that cannot be run as given (exit 2, with the usage); cli-ask.ts re-exports it. */
export class UsageError extends Error {}

/** The policy flags of `askgate ask`, as parsed by `parseArgs` (each may repeat). */
export interface PolicyFlags {
  to?: string[];
  remind?: string[];
  'remind-every'?: string;
  hours?: string;
  escalate?: string[];
  default?: string[];
  agree?: string;
}

/** Quotes a user-given value for an error message (cli-ask.ts passes its `shown`). */
type Show = (value: string) => string;

/** `<channel>:<chat>`, or a UsageError naming the flag. */
function target(flag: string, spec: string) {
  try {
    return parseTargetSpec(spec);
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`);
  }
}

const whole = (flag: string, value: string, show: Show): number => {
  const n = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1)) throw new UsageError(`${flag} must be a whole number of at least 1, not ${show(value)}`);
  return n;
};

/** `mon-fri,09:00-18:00,Europe/Lisbon`: days (which may hold commas), the window, the zone. */
const HOURS_TEXT = /^(.+),(\d{1,2}:\d{2})-(\d{1,2}:\d{2}),([^,]+)$/;

/**
 * Working hours as `--hours` takes them: `<days>,<from>-<to>,<zone>` (`mon-fri,09:00-18:00,Europe/Lisbon`,
 * `mon,wed,fri,08:30-12:00,UTC`) or the API's JSON object. Checked by the server (a 400 names the field).
 */
export function hoursFromFlag(value: string, show: Show): Record<string, unknown> {
  if (value.trim().startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new UsageError(`--hours is not valid JSON: ${show(value)}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new UsageError(`--hours must be a JSON object, not ${show(value)}`);
    return parsed as Record<string, unknown>;
  }
  const m = HOURS_TEXT.exec(value.trim());
  if (!m)
    throw new UsageError(
      `--hours must be <days>,<from>-<to>,<time zone> such as mon-fri,09:00-18:00,Europe/Lisbon (or a JSON object), not ${show(value)}`,
    );
  return { days: m[1], from: m[2], to: m[3], timeZone: m[4] };
}

/**
 * The ask fields of the policy flags: `--to` repeated is a list of targets (once: one target, as
 * before); `--remind <s>` per reminder; `--escalate <s>=<channel>:<chat>[,<channel>:<chat>…]` per
 * step; `--remind-every <s>`, a cadence after them; `--hours <days>,<from>-<to>,<zone>` on every `--to`
 * target (a reminder due outside waits for the next opening); `--default <questionId>=<label>` per label (repeat for several labels of a multi-select
 * question); `--agree <n>`. Limits (how many, below the timeout, known labels) are the server's 400.
 */
export function policyFromFlags(flags: PolicyFlags, show: Show): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const to = (flags.to ?? []).map((spec) => target('--to', spec));
  if (flags.hours !== undefined) {
    if (to.length === 0) throw new UsageError('--hours applies to the --to targets: give --to');
    const hours = hoursFromFlag(flags.hours, show);
    for (const t of to) (t as Record<string, unknown>).hours = hours;
  }
  if (to.length === 1) body.to = to[0];
  else if (to.length > 1) body.to = to;
  if (flags.remind?.length) body.remindAfterSeconds = flags.remind.map((s) => whole('--remind', s, show));
  if (flags['remind-every'] !== undefined)
    body.remindEverySeconds = whole('--remind-every', flags['remind-every'], show);
  if (flags.escalate?.length)
    body.escalate = flags.escalate.map((spec) => {
      const eq = spec.indexOf('=');
      if (eq <= 0) throw new UsageError(`--escalate must be <seconds>=<channel>:<chat>[,…], not ${show(spec)}`);
      const targets = spec
        .slice(eq + 1)
        .split(',')
        .map((t) => target('--escalate', t.trim()));
      return {
        afterSeconds: whole('--escalate', spec.slice(0, eq), show),
        to: targets.length === 1 ? targets[0] : targets,
      };
    });
  if (flags.default?.length) {
    // Keyed by question ids the user typed: a Map, then entries (never a plain object lookup).
    const defaults = new Map<string, string[]>();
    for (const spec of flags.default) {
      const eq = spec.indexOf('=');
      if (eq <= 0 || eq === spec.length - 1)
        throw new UsageError(`--default must be <questionId>=<label>, not ${show(spec)}`);
      const id = spec.slice(0, eq);
      defaults.set(id, [...(defaults.get(id) ?? []), spec.slice(eq + 1)]);
    }
    body.onTimeout = { default: Object.fromEntries(defaults) };
  }
  if (flags.agree !== undefined) body.agree = whole('--agree', flags.agree, show);
  return body;
}
