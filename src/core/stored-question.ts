// A question as stored and as the rest of askgate handles it: the common fields and its kind's
// (core/questions/: each kind's `stored` shape), read back without the input rules (the request
// schema holds those).
import { z } from 'zod';
import { KIND_MODULES, type KindModule } from './questions/index.js';

const common = { id: z.string(), header: z.string().optional(), question: z.string() };

/** One kind's stored question schema. */
type StoredOf<M> = M extends { stored: infer S extends z.ZodRawShape } ? z.ZodObject<typeof common & S> : never;

/** Each kind's stored schema, in the registry's order (a tuple: the union keeps every member's type). */
type EachStored<T extends readonly unknown[]> = { readonly [I in keyof T]: StoredOf<T[I]> };
type StoredSchemas = EachStored<typeof KIND_MODULES>;

const storedSchema = (kind: KindModule) => z.object({ ...common, ...kind.stored });

/** A question as stored, by kind (a choice stored without `kind`), read back without the input rules. */
export const StoredQuestionSchema = z.discriminatedUnion(
  'kind',
  KIND_MODULES.map(storedSchema) as unknown as StoredSchemas,
);

/** A question after defaults are applied: `id` is always set, a choice has no `kind`; its kind's fields (core/questions/). */
export type Question = z.output<typeof StoredQuestionSchema>;

/** A choice question as stored (options, `multiSelect`). */
export type ChoiceQuestionRecord = Extract<Question, { multiSelect: boolean }>;
