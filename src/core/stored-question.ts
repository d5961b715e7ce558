// A question as stored and as the rest of askgate handles it: the common fields and its kind's
// (core/questions/), read back without the input rules (the request schema holds those).
import { z } from 'zod';

const storedQuestion = { id: z.string(), header: z.string().optional(), question: z.string() };
const bounds = <T extends z.ZodType>(value: T) => ({ min: value.optional(), max: value.optional() });

/** A question as stored, by kind (absent: `choice`, never stored), read back without the input rules. */
export const StoredQuestionSchema = z.discriminatedUnion('kind', [
  z.object({
    ...storedQuestion,
    kind: z.literal('choice').optional(),
    options: z.array(z.object({ label: z.string(), description: z.string().optional() })),
    multiSelect: z.boolean(),
  }),
  z.object({
    ...storedQuestion,
    kind: z.literal('text'),
    minLength: z.number().optional(),
    maxLength: z.number().optional(),
    pattern: z.string().optional(),
  }),
  z.object({
    ...storedQuestion,
    kind: z.literal('number'),
    ...bounds(z.number()),
    integer: z.boolean().optional(),
    unit: z.string().optional(),
  }),
  z.object({ ...storedQuestion, kind: z.literal('date'), ...bounds(z.string()) }),
  z.object({ ...storedQuestion, kind: z.literal('time'), ...bounds(z.string()) }),
  z.object({ ...storedQuestion, kind: z.literal('datetime'), ...bounds(z.string()) }),
  z.object({ ...storedQuestion, kind: z.literal('email') }),
  z.object({ ...storedQuestion, kind: z.literal('url') }),
]);

/** A question after defaults are applied: `id` is always set, a choice has no `kind`; its kind's fields (core/questions/). */
export type Question = z.output<typeof StoredQuestionSchema>;

/** A choice question as stored (options, `multiSelect`). */
export type ChoiceQuestionRecord = Extract<Question, { multiSelect: boolean }>;
