// The `text` kind: the person's own words, within lengths and, optionally, a pattern (matched by
// RE2, linear time: see parse/pattern.ts). Never echoed in outcomes.
import { z } from 'zod';
import { compilePattern } from './parse/index.js';
import { notApplicable, TEXT_MAX_DEFAULT, typedKind, type TypedReading } from './typed-kind.js';

/** Longest text answer a question may allow. */
export const TEXT_MAX = 4000;

/** A free-text question. */
export interface TextQuestion {
  readonly kind: 'text';
  readonly minLength?: number;
  readonly maxLength?: number;
  /** Matched against the whole answer (RE2 syntax). */
  readonly pattern?: string;
}

const length = (max: number) =>
  z
    .number('must be a number')
    .int('must be a whole number')
    .min(0, 'must not be negative')
    .max(max, `must be at most ${max}`);

const fields = {
  kind: z.literal('text'),
  minLength: length(TEXT_MAX).optional(),
  maxLength: length(TEXT_MAX).min(1, 'must be at least 1').optional(),
  pattern: z
    .string('must be a pattern (RE2 syntax)')
    .min(1, 'must not be empty')
    .max(500, 'must be at most 500 characters')
    .optional(),
  ...notApplicable('text', ['minLength', 'maxLength', 'pattern']),
};

// Compiled patterns by source: a question's pattern is read on every reply.
const compiled = new Map<string, ReturnType<typeof compilePattern>>();
function patternOf(source: string) {
  let found = compiled.get(source);
  if (!found) {
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(source, (found = compilePattern(source)));
  }
  return found;
}

/** Characters as people count them (code points). */
const lengthOf = (text: string): number => [...text].length;

function read(q: TextQuestion, text: string): TypedReading {
  const value = text.normalize('NFC');
  const size = lengthOf(value);
  if (size < Math.max(1, q.minLength ?? 1) || size > (q.maxLength ?? TEXT_MAX_DEFAULT))
    return { ok: false, reason: 'length' };
  if (q.pattern !== undefined) {
    const pattern = patternOf(q.pattern);
    if (!pattern.ok || !pattern.test(value)) return { ok: false, reason: 'pattern' };
  }
  return { ok: true, value, literal: true };
}

/** The text kind. */
export const text = typedKind({
  name: 'text',
  fields,
  stored: {
    kind: z.literal('text'),
    minLength: z.number().optional(),
    maxLength: z.number().optional(),
    pattern: z.string().optional(),
  },
  refine(q, ctx) {
    if (q.minLength !== undefined && q.minLength > (q.maxLength ?? TEXT_MAX_DEFAULT))
      ctx.addIssue({
        code: 'custom',
        path: ['minLength'],
        message: `must not be above maxLength (${q.maxLength ?? TEXT_MAX_DEFAULT})`,
      });
    if (q.pattern !== undefined) {
      const pattern = patternOf(q.pattern);
      if (!pattern.ok) ctx.addIssue({ code: 'custom', path: ['pattern'], message: pattern.message });
    }
  },
  read,
  expected: () => null,
  apiForm: (q) =>
    `text of ${Math.max(1, q.minLength ?? 1)} to ${q.maxLength ?? TEXT_MAX_DEFAULT} characters` +
    (q.pattern !== undefined ? ` matching the pattern ${JSON.stringify(q.pattern)}` : ''),
  shown: () => null,
  value: (value) => value,
});
