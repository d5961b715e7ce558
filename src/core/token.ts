import { z } from 'zod';

/** What a button means: an option (0-based index), "Other" (answer in own words) or "Skip". */
export type ButtonChoice = { kind: 'option'; index: number } | { kind: 'other' } | { kind: 'skip' };

/** A decoded button token. */
export interface ButtonToken {
  askId: string;
  version: number;
  choice: ButtonChoice;
}

/** Ask ids: 12–24 base62 characters. */
export const ASK_ID_PATTERN = /^[0-9A-Za-z]{12,24}$/;

const TokenSchema = z
  .string()
  .max(64)
  .regex(/^([0-9A-Za-z]{12,24})\.([1-9][0-9]{0,8})\.([1-4]|o|s)$/);

/** Encodes `<askId>.<version>.<choice>`: short, opaque, no labels, no runId. */
export function encodeToken(token: ButtonToken): string {
  const c = token.choice;
  const choice = c.kind === 'option' ? String(c.index + 1) : c.kind === 'other' ? 'o' : 's';
  return `${token.askId}.${token.version}.${choice}`;
}

/** Decodes untrusted button data; null for anything malformed. The record must still be checked. */
export function decodeToken(data: unknown): ButtonToken | null {
  const parsed = TokenSchema.safeParse(data);
  if (!parsed.success) return null;
  const [, askId, version, choice] = /^(.+)\.(.+)\.(.+)$/.exec(parsed.data)!;
  const decoded: ButtonChoice =
    choice === 'o'
      ? { kind: 'other' }
      : choice === 's'
        ? { kind: 'skip' }
        : { kind: 'option', index: Number(choice) - 1 };
  return { askId: askId!, version: Number(version), choice: decoded };
}
