// The `ask_user` arguments beyond the questions: where to ask (one target or several) and the ask's
// policy (reminders, escalation, a default on timeout, agreement). The tool's own JSON schema
// teaches the model the shapes; askgate's request schema and the gateway then apply the same rules
// as `POST /v1/asks`, so a bad value is a tool error naming the field.
import { z } from 'zod';
import { ChannelNameSchema, QuestionIdSchema, type AskRequestSchema, type Target } from '../core/schemas.js';
import { parseTargetSpec } from '../config.js';
import { CHANNEL_NAME_EXAMPLES } from '../channels/registry.js';

/** Most targets of one ask or one escalation step (as `POST /v1/asks`). */
const MAX_TARGETS = 5;

/** Thrown when the arguments are invalid; the message names each offending field. */
export class ToolInputError extends Error {}

const TargetObject = z.object({
  channel: ChannelNameSchema.describe(`e.g. ${CHANNEL_NAME_EXAMPLES}`),
  chat: z.string().min(1).max(128).describe('Chat, channel or user id on that platform'),
  thread: z.string().min(1).max(128).optional(),
  users: z
    .array(z.string().min(1).max(64))
    .min(1)
    .max(50)
    .optional()
    .describe('Platform user ids allowed to answer (default: anyone in the chat)'),
  hours: z
    .object({
      days: z.string().describe('e.g. "mon-fri", "mon,wed,fri", "sun-thu"'),
      from: z.string().describe('Local opening time "HH:MM", e.g. "09:00"'),
      to: z.string().describe('Local closing time "HH:MM", after from, e.g. "18:00"'),
      timeZone: z.string().describe('IANA time zone, e.g. "Europe/Lisbon"'),
    })
    .optional()
    .describe(
      'When the people there work: a reminder or escalation step due outside waits for the next opening (the timeout never waits)',
    ),
});

/** One target: `"<channel>:<chat>"` or an object. */
const TargetSpec = z.union([z.string().describe('"<channel>:<chat>", e.g. "telegram:123456"'), TargetObject]);

/** One target or a list of 1–5. */
const TargetSpecs = z.union([
  TargetSpec,
  z.array(TargetSpec).min(1, 'list at least one target').max(MAX_TARGETS, `list at most ${MAX_TARGETS} targets`),
]);
type TargetSpecs = z.output<typeof TargetSpecs>;

/**
 * Refuses an own `__proto__` key (JSON.parse keeps one; a zod record would drop it silently, so a
 * default the model meant would vanish): the tool error names it instead.
 */
function refuseProtoKey(value: unknown, ctx: z.RefinementCtx): unknown {
  if (value && typeof value === 'object' && Object.hasOwn(value, '__proto__'))
    ctx.addIssue({ code: 'custom', path: ['__proto__'], message: 'names like "__proto__" are reserved' });
  return value;
}

/** The `ask_user` input fields of targets and policies (spread into the tool's input shape). */
export const PolicyInputShape = {
  to: TargetSpecs.optional().describe(
    'Where to ask: "<channel>:<chat>" (e.g. "telegram:123456"), an object, or a list of up to 5 of them on any mix of chats (the first valid answer wins). Leave it out to use the configured default.',
  ),
  remindAfterSeconds: z
    .array(z.number())
    .optional()
    .describe(
      'Seconds after asking at which to post a short reminder in every chat while nobody has answered: 1–3 whole numbers, ascending, each below timeoutSeconds. E.g. [300, 600].',
    ),
  remindEverySeconds: z
    .number()
    .optional()
    .describe(
      'For asks that wait for days (called as a task): post a reminder this often while nobody has answered, after any remindAfterSeconds ones; at least 3600, at most 20 reminders in all before the deadline; each in the targets\' working hours (their "hours"). E.g. 86400: daily.',
    ),
  escalate: z
    .array(
      z.object({
        afterSeconds: z.number().describe('Seconds after asking, below timeoutSeconds'),
        to: TargetSpecs.describe('Who else to ask then: one target or a list of up to 5 (same forms as "to")'),
      }),
    )
    .optional()
    .describe(
      'When nobody has answered after afterSeconds, also ask these targets (the earlier messages stay answerable): 1–3 steps, ascending. E.g. [{"afterSeconds": 600, "to": "slack:C0123"}].',
    ),
  onTimeout: z
    .object({
      default: z
        .preprocess(refuseProtoKey, z.record(QuestionIdSchema, z.union([z.array(z.string()), z.number(), z.string()])))
        .describe(
          'Question id -> a choice\'s option labels (exactly one for a single-choice question), or a typed question\'s value: a number, or a string in the kind\'s form ("2026-12-08", "14:30", the text); e.g. {"deploy_target": ["Staging"], "replicas": 3}',
        ),
    })
    .optional()
    .describe(
      'What to proceed with when nobody answers in time. The result is still no_answer with reason timeout (nobody answered), and carries these as "defaults".',
    ),
  agree: z
    .number()
    .optional()
    .describe(
      'How many different people must give the same answers before the ask is answered (2–10; default 1: the first answer decides). Use 2 for risky or irreversible actions. With users lists on every target, at most that many people.',
    ),
};
/** What the policies add to the structured result of `ask_user` and `await_answer`. */
export const PolicyOutputShape = {
  defaults: z
    .record(z.string(), z.array(z.string()))
    .optional()
    .describe(
      'no_answer after a timeout of an ask with onTimeout.default: the answers to proceed with (nobody gave them; their typed values are in values)',
    ),
  responses: z
    .array(
      z.object({
        answers: z.record(z.string(), z.array(z.string())),
        raw: z.record(z.string(), z.string()).optional(),
        answeredBy: z.object({
          channel: z.string(),
          userId: z.string(),
          username: z.string().optional(),
          name: z.string().optional(),
        }),
        answeredAt: z.string(),
      }),
    )
    .optional()
    .describe(
      'An ask with agree > 1: everyone who answered (matching or not), with their answers (and raw: what they wrote for a typed question, where it differs)',
    ),
};

/** The validated policy arguments. */
export type PolicyArgs = z.output<z.ZodObject<typeof PolicyInputShape>>;

/** One target spec as a target; a bad `"<channel>:<chat>"` is a {@link ToolInputError} at `path`. */
function targetOf(spec: z.output<typeof TargetSpec>, path: string): Target {
  if (typeof spec !== 'string') return spec;
  try {
    return parseTargetSpec(spec);
  } catch (error) {
    throw new ToolInputError(`${path}: ${(error as Error).message}`);
  }
}

/** One target or a list, kept in the shape given (one stays one: the API reads both). */
export function targetsOf(specs: TargetSpecs, path: string): Target | Target[] {
  return Array.isArray(specs) ? specs.map((s, i) => targetOf(s, `${path}.${i}`)) : targetOf(specs, path);
}

/** The request's policy fields from the arguments (only those given), checked later by the request schema. */
export function policyFields(
  args: PolicyArgs,
): Pick<
  z.input<typeof AskRequestSchema>,
  'remindAfterSeconds' | 'remindEverySeconds' | 'escalate' | 'onTimeout' | 'agree'
> {
  return {
    ...(args.remindAfterSeconds !== undefined ? { remindAfterSeconds: args.remindAfterSeconds } : {}),
    ...(args.remindEverySeconds !== undefined ? { remindEverySeconds: args.remindEverySeconds } : {}),
    ...(args.escalate !== undefined
      ? {
          escalate: args.escalate.map((step, i) => ({
            afterSeconds: step.afterSeconds,
            to: targetsOf(step.to, `escalate.${i}.to`),
          })),
        }
      : {}),
    ...(args.onTimeout !== undefined ? { onTimeout: { default: { ...args.onTimeout.default } } } : {}),
    ...(args.agree !== undefined ? { agree: args.agree } : {}),
  };
}
