// The question of `ask_user` as the model sees it: one flat object whose `kind` says which of the
// other fields apply (a flat shape rather than one JSON-schema branch per kind: every MCP host and
// model reads it, and askgate's own request schema then refuses a field of another kind by name).
// The kind names come from core's registry; test/unit/mcp-question-input.test.ts checks that every
// field a core kind takes is here, with a JSON type that admits the core one, so the two cannot drift.
import { z } from 'zod';
import { KIND_NAMES, type KindName } from '../core/questions/index.js';
import { QuestionIdSchema } from '../core/schemas.js';

const OptionInput = z.object({
  label: z
    .string()
    .min(1, 'must not be empty')
    .max(100, 'must be at most 100 characters')
    .describe('Short option label (1–5 words), shown on a button'),
  description: z
    .string()
    .max(300, 'must be at most 300 characters')
    .optional()
    .describe('What choosing this option means'),
});

/** One `ask_user` question: the common fields, `kind`, and every kind's constraints (each kind takes its own). */
export const QuestionInput = z.object({
  // Optional as in POST /v1/asks: toAskInput fills the id the same way AskRequestSchema does.
  id: QuestionIdSchema.optional().describe(
    'snake_case key of this question in the answers, e.g. "deploy_target" (default q1, q2, … by position)',
  ),
  header: z
    .string()
    .min(1, 'must not be empty')
    .max(60, 'must be at most 60 characters')
    .optional()
    .describe('Very short label, about 12 characters, e.g. "Deploy" (optional)'),
  question: z
    .string()
    .min(1, 'must not be empty')
    .max(1000, 'must be at most 1000 characters')
    .describe('The full question'),
  kind: z
    .enum(KIND_NAMES as [KindName, ...KindName[]])
    .optional()
    .describe(
      'What the answer is: "choice" (default: one of the options, or several with multiSelect), "text" (free text), "number", "date", "time", "datetime", "email" or "url". Only "choice" takes options.',
    ),
  options: z
    .array(OptionInput)
    .min(2, 'offer at least 2 options')
    .max(4, 'offer at most 4 options')
    .optional()
    .describe('kind "choice" (required there): 2–4 options, the recommended one first'),
  multiSelect: z
    .boolean()
    .optional()
    .describe('kind "choice": true when several options may be chosen (default false)'),
  minLength: z.number().optional().describe('kind "text": fewest characters (default 1)'),
  maxLength: z.number().optional().describe('kind "text": most characters (default 1000, at most 4000)'),
  pattern: z
    .string()
    .optional()
    .describe('kind "text": a regular expression (RE2 syntax) the whole answer must match, e.g. "[A-Z]{3}-\\d+"'),
  min: z
    .union([z.number(), z.string()])
    .optional()
    .describe(
      'Lowest answer allowed: kind "number" a number; "date" "YYYY-MM-DD"; "time" "HH:MM" (24 h); "datetime" ISO 8601 with an offset, e.g. "2026-12-08T09:00:00+01:00"',
    ),
  max: z.union([z.number(), z.string()]).optional().describe('Highest answer allowed, in the same form as min'),
  integer: z.boolean().optional().describe('kind "number": whole numbers only'),
  unit: z
    .string()
    .optional()
    .describe('kind "number": the unit shown beside the number, e.g. "GB" (at most 16 characters)'),
});
/** One validated `ask_user` question. */
export type QuestionArgs = z.output<typeof QuestionInput>;

/** The fields of an `ask_user` question that are one kind's constraints (everything but id, header, question, kind). */
export const CONSTRAINT_FIELDS = Object.keys(QuestionInput.shape).filter(
  (name) => !['id', 'header', 'question', 'kind'].includes(name),
) as (keyof QuestionArgs)[];

/**
 * The question of POST /v1/asks for `q`, with its `id`: only the fields given, so a constraint of
 * another kind reaches askgate's request schema and is refused there by name; a choice gets
 * `multiSelect: false` when it gives none, as before typed kinds existed.
 */
export function questionOf(q: QuestionArgs, id: string): Record<string, unknown> {
  const question: Record<string, unknown> = { id, ...(q.header !== undefined ? { header: q.header } : {}) };
  question.question = q.question;
  if (q.kind !== undefined) question.kind = q.kind;
  for (const name of CONSTRAINT_FIELDS) if (q[name] !== undefined) question[name] = q[name];
  if ((q.kind === undefined || q.kind === 'choice') && q.multiSelect === undefined) question.multiSelect = false;
  return question;
}
