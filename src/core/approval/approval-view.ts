// How an approval is shown: what a person reads before deciding (summary, action, arguments as
// lines or JSON, the preview, the short hash) and the outcome lines of a decision. Pure: channels
// draw it; a channel without an approval case shows the text as a question's.
import type { AskRecord, Responder } from '../schemas.js';
import type { Words } from '../i18n/index.js';
import { responderName } from '../display-text.js';
import { LINK_CHANNEL } from '../record-state.js';
import { shorten } from '../text.js';
import { shortHash, type Decision } from './decisions.js';
import type { StoredApproval } from './approval-schema.js';

/** An approval as a channel draws it. */
export interface ApprovalView {
  action: string;
  /** The arguments exactly as proposed (an edit form starts from them; lines show strings unquoted). */
  arguments: Readonly<Record<string, unknown>>;
  summary?: string;
  /** Flat arguments as `key: value` lines (strings unquoted); null when any value is an object or a list. */
  lines: string[] | null;
  /** The arguments as indented JSON when they are not flat, for a code block. */
  json: string | null;
  preview?: string;
  /** The first 8 hex digits of the action's hash: shown on every surface. */
  hash: string;
  decisions: readonly Decision[];
}

const isFlat = (value: unknown): boolean => value === null || typeof value !== 'object';

// Control, format (zero-width, bidi) and line-separator characters: shown as \u escapes, never as
// themselves, so what a person reads is what runs (the hash covers the arguments as sent).
const HIDDEN = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;
const HIDDEN_BUT_LINES = /(?![\n\t])[\p{Cc}\p{Cf}\u2028\u2029]/gu;
const escaped = (c: string) => `\\u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** `text` with every hidden character visible (`lines`: new lines and tabs stay). */
export function visibleText(text: string, lines = false): string {
  return text.replace(lines ? HIDDEN_BUT_LINES : HIDDEN, escaped);
}

const flatText = (value: unknown): string => visibleText(typeof value === 'string' ? value : JSON.stringify(value));

/** The view of a stored approval. */
export function approvalView(approval: StoredApproval): ApprovalView {
  const entries = Object.entries(approval.arguments);
  const flat = entries.every(([, v]) => isFlat(v));
  return {
    action: approval.action,
    arguments: approval.arguments,
    ...(approval.summary !== undefined ? { summary: approval.summary } : {}),
    lines: flat ? entries.map(([k, v]) => `${visibleText(k)}: ${flatText(v)}`) : null,
    json: flat ? null : visibleText(JSON.stringify(approval.arguments, null, 2), true),
    ...(approval.preview !== undefined ? { preview: visibleText(approval.preview, true) } : {}),
    hash: shortHash(approval.actionHash),
    decisions: approval.decisions,
  };
}

/** Longest text of the approval shown as a question's (the full text is one call away: the console). */
const TEXT_MAX = 3000;

/**
 * The approval as plain text, for a channel that draws it as a question: summary, action, the
 * arguments, the preview, the hash. What does not fit is cut with a visible "…".
 */
export function approvalText(view: ApprovalView, words: Words): string {
  const parts = [
    ...(view.summary ? [view.summary] : []),
    words.t('approval.action', { action: view.action }),
    ...(view.lines ?? [view.json ?? '']),
    ...(view.preview ? [words.t('approval.preview'), shorten(view.preview, 1500)] : []),
    words.t('approval.hash', { hash: view.hash }),
  ];
  return shorten(parts.join('\n'), TEXT_MAX);
}

/** The outcome line of a decision ("Approved by @alice (#3fa9c2d1)"); no reason: it may hold anything. */
export function decisionLine(
  record: AskRecord,
  decision: Decision,
  by: Responder,
  effectiveHash: string,
  words: Words,
): string {
  // A link for anyone (channel `link`) names no person: "someone on the answer page".
  const name =
    by.channel === 'api'
      ? words.t('approval.viaApi')
      : by.channel === LINK_CHANNEL
        ? words.t('approval.viaPage')
        : responderName(by);
  const hash = shortHash(effectiveHash);
  switch (decision) {
    case 'approve':
      return words.t('approval.approved', { name, hash });
    case 'edit':
      return words.t('approval.edited', { name, hash });
    case 'reject':
      return words.t('approval.rejected', { name });
    case 'request_changes':
      return words.t('approval.changes', { name });
  }
}
