// An approval drawn natively on Telegram: plain text plus entities (never parse_mode) — the summary
// in bold, the action in code, flat arguments as `key: value` lines, nested arguments (indented JSON)
// and the preview in `pre` blocks, the short hash always. What does not fit is cut with a visible "…"
// (the arguments and the preview first, then the summary); the hash is never cut.
import type { MessageEntity } from 'grammy/types';
import type { ApprovalView } from '../../core/approval/approval-view.js';
import type { Words } from '../../core/i18n/index.js';
import { cut } from './limits.js';

/** How much of each part a level keeps (UTF-16 units). */
export interface ApprovalLevel {
  summary: number;
  args: number;
  preview: number;
}

/** Shortening steps tried in order until the message (and a later outcome line) fits 4096 characters. */
export const APPROVAL_LEVELS: readonly ApprovalLevel[] = [
  { summary: Infinity, args: Infinity, preview: Infinity },
  { summary: Infinity, args: Infinity, preview: 1500 },
  { summary: Infinity, args: 2000, preview: 800 },
  { summary: 600, args: 1200, preview: 400 },
  { summary: 200, args: 600, preview: 200 },
];

/** Room kept free under an approval for its outcome line, so the finalized message keeps the hash. */
export const APPROVAL_OUTCOME_ROOM = 300;

/** A text with its entities, appended to part by part. */
export class EntityText {
  text = '';
  readonly entities: MessageEntity[] = [];

  /** Appends `part`, formatted as `type` when given (offsets are UTF-16 units, as JS string lengths count). */
  add(part: string, type?: 'bold' | 'code' | 'pre', language?: string): this {
    if (type && part.length > 0) {
      const at = { offset: this.text.length, length: part.length };
      this.entities.push(type === 'pre' && language ? { type, ...at, language } : { type, ...at });
    }
    this.text += part;
    return this;
  }
}

/** Appends `line` with `value` (which it contains once) formatted as code. */
function addWithCode(b: EntityText, line: string, value: string): void {
  const at = line.indexOf(value);
  if (at < 0) return void b.add(line);
  b.add(line.slice(0, at))
    .add(value, 'code')
    .add(line.slice(at + value.length));
}

/** Appends the approval at `level` to `b`, in `words` (the ask's). */
export function addApproval(b: EntityText, view: ApprovalView, level: ApprovalLevel, words: Words): void {
  if (view.summary) b.add(cut(view.summary, level.summary), 'bold').add('\n');
  addWithCode(b, words.t('approval.action', { action: view.action }), view.action);
  if (view.lines) {
    if (view.lines.length > 0) b.add(`\n${cut(view.lines.join('\n'), level.args)}`);
  } else if (view.json) {
    b.add('\n').add(cut(view.json, level.args), 'pre', 'json');
  }
  if (view.preview) {
    b.add('\n').add(words.t('approval.preview'), 'bold').add('\n');
    b.add(cut(view.preview, level.preview), 'pre');
  }
  b.add('\n');
  addWithCode(b, words.t('approval.hash', { hash: view.hash }), `#${view.hash}`);
}
