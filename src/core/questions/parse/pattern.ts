// A text question's `pattern`, matched by RE2 (re2js): linear time in the answer, so no pattern can stall the server.
import { RE2JS, RE2JSSyntaxException } from 're2js';

/** Longest pattern source accepted. */
export const PATTERN_MAX = 500;

/** A compiled pattern, or why it was refused (one sentence ending in a full stop, naming the construct when it can). */
export type CompiledPattern = { ok: true; test(text: string): boolean } | { ok: false; message: string };

/** What RE2 refuses and how to say it, checked in order against the error and the offending text. */
const REFUSALS: readonly { when: RegExp; say: string }[] = [
  { when: /`\(\?[=!]/, say: 'Lookahead such as (?=…) or (?!…) is not supported' },
  { when: /`\(\?<[=!]/, say: 'Lookbehind such as (?<=…) or (?<!…) is not supported' },
  { when: /invalid escape sequence: `\\[1-9]/, say: 'Backreferences such as \\1 are not supported' },
  { when: /invalid escape sequence: `\\k/, say: 'Named backreferences such as \\k<name> are not supported' },
  { when: /`\(\?>/, say: 'Atomic groups (?>…) are not supported' },
  {
    when: /invalid nested repetition operator: `[*+?}][+*?]/,
    say: 'Possessive or doubled quantifiers such as a++ are not supported',
  },
  {
    when: /invalid repeat count/,
    say: 'A repeat count above 1000 (counting nested repeats multiplied) is not supported',
  },
  { when: /invalid escape sequence: `\\u/, say: 'The escape \\u is not supported (write \\x{00E9} for é)' },
];

/**
 * Compiles a text question's `pattern` with RE2 syntax (https://github.com/google/re2/wiki/Syntax).
 * The whole answer must match, as if written `^(?:source)$` (the source is compiled on its own, so
 * it cannot escape that anchoring); matching is case-sensitive unless the pattern says `(?i)`.
 * Refused: more than 500 characters, and anything RE2 cannot compile, which includes every
 * construct that needs backtracking (backreferences, lookaround, atomic groups, possessive
 * quantifiers). Matching takes time linear in the answer's length whatever the pattern.
 */
export function compilePattern(source: string): CompiledPattern {
  if (source.length > PATTERN_MAX)
    return { ok: false, message: `The pattern is longer than ${PATTERN_MAX} characters.` };
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source);
  } catch (error) {
    return { ok: false, message: refusal(error) };
  }
  return { ok: true, test: (text: string) => compiled.matches(text) };
}

function refusal(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const known = REFUSALS.find((r) => r.when.test(text));
  if (known) return `${known.say}: patterns use RE2 syntax, which matches in linear time.`;
  if (error instanceof RE2JSSyntaxException) {
    const at = error.getPattern();
    return `The pattern is not valid RE2 syntax: ${error.getDescription()}${at ? ` at \`${at.slice(0, 40)}\`` : ''}.`;
  }
  return 'The pattern is not valid RE2 syntax.';
}
