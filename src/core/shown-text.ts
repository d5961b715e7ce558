import { z } from 'zod';
import { cleanText, compareKey, hasVisible, textProblem } from './text.js';

/** Option labels reserved for the human's own words and for skipping. */
export const RESERVED_LABEL = /^(other|skip)\b[\s.…:!?]*$/;
const RECOMMENDED_SUFFIX = /\s*\(recommended\)\s*$/;

/**
 * The label without a trailing "(Recommended)", after {@link compareKey} (NFKC, no invisible
 * characters, single spaces, case-folded): the key labels, replies and reserved words are matched by.
 */
export function labelKey(label: string): string {
  return compareKey(label).replace(RECOMMENDED_SUFFIX, '').trim();
}

/**
 * A string people read (rules in core/text.ts): stored in NFC, trimmed, refused with a message
 * naming the character when it holds control, invisible or format characters. Multi-line text
 * keeps `\n` and `\t` (other line breaks become `\n`).
 */
export function shownText(max: number, { multiline = false, required = true } = {}) {
  const base = z
    .string()
    .overwrite((s) => cleanText(s, multiline))
    .superRefine((s, ctx) => {
      const problem = textProblem(s, multiline);
      if (problem) ctx.addIssue({ code: 'custom', message: problem, continue: false });
    })
    .trim();
  const sized = required ? base.min(1, 'must not be empty') : base;
  return sized
    .max(max, `must be at most ${max} characters`)
    .refine((s) => s === '' || hasVisible(s), 'must contain a visible character');
}

/** A required single-line {@link shownText}. */
export const singleLine = (max: number) => shownText(max);

/** A platform identifier (chat, thread, user): printable ASCII without spaces. */
export const platformId = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .regex(/^[\x21-\x7e]+$/, 'must be a platform id: printable ASCII without spaces');
