// Fitting rendered text into a platform's limits. Plain text is cut by `shorten` (core/prompt-view.ts,
// the one truncation); what is here is for text already built or escaped for a platform.

/** The result of {@link fitToLimit}: the first build that fits, or the last one tried (`fits: false`). */
export interface Fitted<T> {
  value: T;
  fits: boolean;
}

/**
 * "Shrink until it fits": builds with each level of a table in turn (the most generous first) and
 * returns the first result that `fits`; when none does, the result of the last level, for the
 * caller's last resort (a hard cut). Options are never dropped by a table, only shortened.
 */
export function fitToLimit<L, T>(levels: readonly L[], build: (level: L) => T, fits: (built: T) => boolean): Fitted<T> {
  let value: T | undefined;
  for (const level of levels) {
    value = build(level);
    if (fits(value)) return { value, fits: true };
  }
  if (value === undefined) throw new Error('fitToLimit needs at least one level');
  return { value, fits: false };
}

/**
 * Cuts text already escaped for a platform to at most `max` UTF-16 units, ending in "…", without
 * splitting a surrogate pair; `tidy` then removes what the platform's syntax cannot end on (a
 * dangling backslash, half an `&amp;` entity). A last resort: plain text is cut before escaping.
 */
export function cutEscaped(text: string, max: number, tidy: (head: string) => string = (head) => head): string {
  if (text.length <= max) return text;
  let head = text.slice(0, Math.max(max - 1, 0));
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  return `${tidy(head)}…`;
}
