// Reasons and edits of an approval through force-reply: a Reject…, Request changes… or Edit… tap
// gets a prompt whose first line is the tapped button's label; a reply to such a prompt is read as
// that decision without the person typing its word. The prompt message itself is the bookkeeping
// (Telegram sends it back as `reply_to_message`), so a restart or another replica reads it alike;
// the ask is the one the prompt is bound to (bindFollowUp), checked by the core like any reply.
import type { Message } from 'grammy/types';
import { ENGLISH, LOCALES, wordsFor, type MessageKey, type Words } from '../../core/i18n/index.js';
import type { Decision } from '../../core/approval/decisions.js';
import { decodeToken } from '../../core/token.js';
import { outcomeWords } from '../../core/notices.js';
import type { InboundOutcome } from '../../core/ports.js';
import { forceReplyIn, telegramText, type ForceReply, type TelegramWordKey } from './words.js';

/** A decision that asks for words: a reason, or the edited arguments. */
export type AskedDecision = Exclude<Decision, 'approve'>;

const LABELS: Readonly<Record<AskedDecision, MessageKey>> = {
  reject: 'control.reject',
  request_changes: 'control.requestChanges',
  edit: 'control.edit',
};
const ASKS: Readonly<Record<AskedDecision, TelegramWordKey>> = {
  reject: 'reasonPrompt',
  request_changes: 'changesPrompt',
  edit: 'editPrompt',
};
const ASKED = Object.keys(LABELS) as AskedDecision[];

/** The decision a tap's callback data asks words for, or null (any other tap, forged data). */
export function askedDecision(token: string): AskedDecision | null {
  const choice = decodeToken(token)?.choice;
  return choice?.kind === 'decide' && choice.decision !== 'approve' ? choice.decision : null;
}

/**
 * The force-reply prompt of a decision in `words` (the person's): the button's label, what was
 * wrong with the last reply (`problem`), what to reply; `toast`: the instruction alone.
 */
export function decisionPrompt(
  decision: AskedDecision,
  words: Words,
  problem?: string,
): { text: string; toast: string; forceReply: ForceReply } {
  const toast = telegramText(words.locale, ASKS[decision]);
  const text = [words.t(LABELS[decision]), ...(problem ? [problem] : []), toast].join('\n');
  return { text, toast, forceReply: forceReplyIn(words) };
}

/** The decision a message replies to the prompt of (its first line is a decision's label in a shipped language), or null. */
export function promptDecision(replied: Message | undefined): AskedDecision | null {
  if (!replied?.from?.is_bot || typeof replied.text !== 'string') return null;
  const first = replied.text.split('\n', 1)[0];
  for (const locale of LOCALES.keys()) {
    const words = wordsFor(locale);
    const found = ASKED.find((d) => words.t(LABELS[d]) === first);
    if (found) return found;
  }
  return null;
}

/**
 * Edited arguments given as `key: value` lines (one per argument; a value reads as JSON when it
 * parses, else as the string), or null when a line is not `key: value`.
 */
export function readArgumentLines(text: string): Record<string, unknown> | null {
  const args: Record<string, unknown> = {};
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (lines.length === 0) return null;
  for (const line of lines) {
    const match = /^\s*([^:]+?)\s*:\s?(.*)$/u.exec(line);
    if (!match) return null;
    const value = match[2]!.trim();
    try {
      args[match[1]!] = JSON.parse(value) as unknown;
    } catch {
      args[match[1]!] = value;
    }
  }
  return args;
}

/** `text` without a leading "<decision word>:" (any shipped language) the person typed anyway. */
function withoutWord(decision: AskedDecision, text: string): string {
  const lower = text.trimStart().normalize('NFKC').toLowerCase();
  for (const locale of LOCALES.keys())
    for (const word of wordsFor(locale).t(`approval.word.${decision}`).split('|'))
      if (lower.startsWith(`${word.toLowerCase()}:`))
        return text
          .trimStart()
          .slice(word.length + 1)
          .trimStart();
  return text;
}

/**
 * A reply to a decision's prompt as the core reads replies (core/approval/approval-reply.ts): the
 * decision's English word, then the reason, or the edited arguments as JSON (`key: value` lines
 * turned into JSON; text that is neither goes as it is, so the core tells what is wrong and notes it).
 */
export function asDecisionReply(decision: AskedDecision, reply: string): string {
  const word = ENGLISH.t(`approval.word.${decision}`).split('|')[0]!;
  const text = withoutWord(decision, reply);
  if (decision !== 'edit') return `${word}: ${text}`;
  if (text.trim().startsWith('{')) return `${word}: ${text}`;
  const args = readArgumentLines(text);
  return `${word}: ${args ? JSON.stringify(args) : text}`;
}

/**
 * What was wrong with a reply to a decision's prompt, when another reply can mend it (the prompt is
 * then asked again): for an edit, the core's reason without its own "how to reply" (the prompt says
 * it); for a missing reason, nothing more (the prompt says what is needed). Null for anything a reply
 * cannot mend (e.g. "you requested this action"): that is told as it is.
 */
export function problemOf(
  decision: AskedDecision,
  outcome: Extract<InboundOutcome, { kind: 'invalid' }>,
): string | null {
  const words = outcomeWords(outcome);
  if (decision !== 'edit') {
    const word = words.t(`approval.word.${decision}`).split('|')[0]!;
    return outcome.hint === words.t('approval.needReason', { word }) ? '' : null;
  }
  const how = words.t('approval.editJson');
  if (!outcome.hint.includes(how)) return null;
  return outcome.hint.replace(how, '').trim() || telegramText(words.locale, 'editUnread');
}
