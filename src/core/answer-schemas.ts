// The body of `POST /v1/asks/:id/answer`: answers, typed values, a skip or an approval's decision.
import { z } from 'zod';
import { shownText, singleLine } from './shown-text.js';
import { DECISIONS } from './approval/decisions.js';
import { ArgumentsSchema } from './approval/approval-schema.js';

/** A `values` entry as answer strings: a number in plain digits, a string as itself, a list as it is. */
export const valueStrings = (value: number | string | string[]): string[] =>
  typeof value === 'number' ? [String(value)] : typeof value === 'string' ? [value] : value;

/** Answers keyed by question id; each value is an option label or the human's own text. */
export const AnswersSchema = z.record(
  z.string().min(1).max(40),
  z
    .array(shownText(4000, { multiline: true }))
    .min(1, 'give at least one value')
    .max(10),
);
/** Answers keyed by question id. */
export type Answers = Record<string, string[]>;

/**
 * Typed values keyed by question id, as the result's `values` has them: a number as a JSON number,
 * a date, time, text, email or link as a string, a choice's labels as a list (or one label).
 */
export const ValuesSchema = z.record(
  z.string().min(1).max(40),
  z.union(
    [
      z.number('must be a number, a string or a list of labels'),
      shownText(4000, { multiline: true }),
      z
        .array(shownText(4000, { multiline: true }))
        .min(1, 'give at least one value')
        .max(10),
    ],
    { error: 'must be a number, a string or a list of labels' },
  ),
);

/**
 * The body of `POST /v1/asks/:id/answer`: `{answers}` (strings per question), `{values}` (typed
 * values per question, see {@link ValuesSchema}), both for different questions, or `{skip: true}`;
 * optionally `by` (who, for the audit).
 */
export const AnswerRequestSchema = z
  .object({
    answers: AnswersSchema.optional(),
    values: ValuesSchema.optional(),
    skip: z.literal(true, 'must be true (or leave it out and send answers)').optional(),
    /** An approval's decision, with the person's reason and (edit) the arguments to run instead. */
    decision: z.enum(DECISIONS, `must be one of: ${DECISIONS.join(', ')}`).optional(),
    reason: shownText(2000, { multiline: true }).optional(),
    arguments: ArgumentsSchema.optional(),
    by: singleLine(128).optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.decision !== undefined) {
      if (body.answers || body.values || body.skip)
        ctx.addIssue({
          code: 'custom',
          path: ['decision'],
          message: 'send a decision alone (no answers, values or skip)',
        });
      return;
    }
    for (const field of ['reason', 'arguments'] as const)
      if (body[field] !== undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: 'goes with a decision (an approval)' });
    const given = body.answers || body.values;
    if (given && body.skip)
      ctx.addIssue({ code: 'custom', path: ['skip'], message: 'send either answers or skip, not both' });
    if (!given && !body.skip)
      ctx.addIssue({ code: 'custom', path: ['answers'], message: 'send answers (or values), or skip: true' });
    for (const id of Object.keys(body.values ?? {}))
      if (body.answers && Object.hasOwn(body.answers, id))
        ctx.addIssue({
          code: 'custom',
          path: ['values', id],
          message: 'answer a question in answers or in values, not both',
        });
  })
  .transform((body) => {
    if (body.decision !== undefined) {
      const { decision, reason, arguments: args } = body;
      return {
        decide: { decision, ...(reason !== undefined ? { reason } : {}), ...(args ? { arguments: args } : {}) },
        by: body.by,
      };
    }
    if (body.skip) return { skip: true as const, by: body.by };
    const fromValues = Object.entries(body.values ?? {}).map(([id, v]): [string, string[]] => [id, valueStrings(v)]);
    // `valueIds`: which answers came as `values`, so a refusal names the field the caller sent.
    const valueIds: string[] | undefined = fromValues.length > 0 ? fromValues.map(([id]) => id) : undefined;
    const answers = { ...body.answers, ...Object.fromEntries(fromValues) };
    return valueIds ? { answers, valueIds, by: body.by } : { answers, by: body.by };
  });
/** A validated API answer. */
export type AnswerRequest = z.output<typeof AnswerRequestSchema>;
