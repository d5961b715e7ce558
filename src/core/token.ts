import { z } from 'zod';
import { DECISION_CODES, decisionOfCode, type Decision } from './approval/decisions.js';

/**
 * What a button means. For every prompt: an option of the only question (0-based `index`), "Other"
 * (answer in own words), "Skip", or "Answer" (`form`: open the platform's form, or start a draft).
 * Inside a form drawn on the message itself (Telegram's steps, edited in place), with 0-based
 * `question` and `index`: `pick` an option of a single-choice question, `toggle` one of a
 * multi-select question, `step` to another question (Back, Next), `own` words for one question, and
 * `submit` the draft.
 */
export type ButtonChoice =
  | { kind: 'option'; index: number }
  | { kind: 'other' }
  | { kind: 'skip' }
  | { kind: 'form' }
  | { kind: 'pick'; question: number; index: number }
  | { kind: 'toggle'; question: number; index: number }
  | { kind: 'step'; question: number }
  | { kind: 'own'; question: number }
  | { kind: 'submit' }
  /** A decision on an approval (Approve taps decide; the others ask for a reason or an edit). */
  | { kind: 'decide'; decision: Decision };

/** A decoded button token. */
export interface ButtonToken {
  askId: string;
  version: number;
  choice: ButtonChoice;
}

/** Ask ids: 12–24 base62 characters. */
export const ASK_ID_PATTERN = /^[0-9A-Za-z]{12,24}$/;

/** Questions 1–3 and options 1–4, 1-based on the wire. */
const TokenSchema = z
  .string()
  .max(64)
  .regex(/^([0-9A-Za-z]{12,24})\.([1-9][0-9]{0,8})\.([1-4]|o|s|f|k|[pt][1-3][1-4]|[gw][1-3]|d[arqe])$/);

/** Encodes `<askId>.<version>.<choice>`: short, opaque, no labels, no runId. */
export function encodeToken(token: ButtonToken): string {
  return `${token.askId}.${token.version}.${encodeChoice(token.choice)}`;
}

function encodeChoice(c: ButtonChoice): string {
  switch (c.kind) {
    case 'option':
      return String(c.index + 1);
    case 'other':
      return 'o';
    case 'skip':
      return 's';
    case 'form':
      return 'f';
    case 'submit':
      return 'k';
    case 'pick':
      return `p${c.question + 1}${c.index + 1}`;
    case 'toggle':
      return `t${c.question + 1}${c.index + 1}`;
    case 'step':
      return `g${c.question + 1}`;
    case 'own':
      return `w${c.question + 1}`;
    case 'decide':
      return `d${DECISION_CODES[c.decision]}`;
  }
}

const SIMPLE: Readonly<Record<string, ButtonChoice>> = Object.freeze({
  o: { kind: 'other' },
  s: { kind: 'skip' },
  f: { kind: 'form' },
  k: { kind: 'submit' },
});

/** Decodes untrusted button data; null for anything malformed. The record must still be checked. */
export function decodeToken(data: unknown): ButtonToken | null {
  const parsed = TokenSchema.safeParse(data);
  if (!parsed.success) return null;
  const [, askId, version, choice] = /^(.+)\.(.+)\.(.+)$/.exec(parsed.data)!;
  return { askId: askId!, version: Number(version), choice: decodeChoice(choice!) };
}

function decodeChoice(choice: string): ButtonChoice {
  const simple = Object.hasOwn(SIMPLE, choice) ? SIMPLE[choice] : undefined;
  if (simple) return { ...simple };
  const question = Number(choice[1]) - 1;
  const index = Number(choice[2]) - 1;
  switch (choice[0]) {
    case 'p':
      return { kind: 'pick', question, index };
    case 't':
      return { kind: 'toggle', question, index };
    case 'g':
      return { kind: 'step', question };
    case 'w':
      return { kind: 'own', question };
    case 'd':
      return { kind: 'decide', decision: decisionOfCode(choice[1]!)! };
    default:
      return { kind: 'option', index: Number(choice) - 1 };
  }
}
