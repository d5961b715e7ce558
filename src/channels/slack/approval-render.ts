// An approval drawn natively in Block Kit: the summary first, the action and the short hash in the
// same section (so the hash shows whatever is cut below), the flat arguments as section fields
// (`key` / value), nested arguments and the preview as preformatted (code) blocks. What does not fit
// Slack's limits is cut with a visible "…"; the whole approval is one call away (the console, the API).
import type { types } from '@slack/bolt';
import type { ApprovalView } from '../../core/approval/approval-view.js';
import { wordsFor } from '../../core/i18n/index.js';
import { escapeMrkdwn, fitEscaped, fitLength, ID_PREFIX, type Block } from './mrkdwn.js';
import { SECTION_TEXT_MAX } from './limits.js';

/** block_id of the approval's first section (summary, action, hash): the question section's id. */
export const APPROVAL_HEAD_BLOCK = `${ID_PREFIX}q1`;
/** Most fields of a section (Slack: 10). */
export const FIELDS_MAX = 10;
/** Longest text of one field (Slack: 2000). */
export const FIELD_TEXT_MAX = 2000;
/** Most sections of fields: 40 flat arguments shown, the rest cut with "…" (a message holds 50 blocks). */
export const FIELD_SECTIONS_MAX = 4;
/** Longest text of a code block: the arguments' JSON, the preview (Slack documents no smaller limit for rich text). */
export const CODE_TEXT_MAX = 2900;
/** Longest summary in the head section (the action and the hash always fit beside it). */
const SUMMARY_MAX = 1000;

/** The action as inline code (plain when it holds a backtick, which would end the code span). */
const code = (text: string) => (text.includes('`') ? escapeMrkdwn(text) : `\`${escapeMrkdwn(text)}\``);

/** The head section's mrkdwn: summary (bold), the action, the hash. */
export function approvalHead(approval: ApprovalView, locale: string): string {
  const words = wordsFor(locale);
  const action = words.t('approval.action', { action: '\u0000' }).replace('\u0000', code(approval.action));
  const hash = escapeMrkdwn(words.t('approval.hash', { hash: approval.hash }));
  const summary = approval.summary
    ? `*${escapeMrkdwn(fitLength(approval.summary.replace(/\s+/g, ' '), SUMMARY_MAX))}*`
    : '';
  return fitEscaped([summary, action, hash].filter((s) => s !== '').join('\n'), SECTION_TEXT_MAX);
}

/** A flat argument as a field: the key in bold, the value (a string unquoted, else JSON) under it, each cut to fit. */
function field([key, value]: [string, unknown]): types.MrkdwnElement {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const head = `*${escapeMrkdwn(fitLength(key, 200))}*\n`;
  return {
    type: 'mrkdwn',
    text: head + fitEscaped(escapeMrkdwn(text === '' ? ' ' : text), FIELD_TEXT_MAX - head.length),
  };
}

/** The sections of fields of flat arguments; past {@link FIELD_SECTIONS_MAX} sections the last field is "…". */
function fieldSections(entries: readonly [string, unknown][]): types.SectionBlock[] {
  const most = FIELDS_MAX * FIELD_SECTIONS_MAX;
  const fields: types.MrkdwnElement[] =
    entries.length > most
      ? [...entries.slice(0, most - 1).map(field), { type: 'mrkdwn', text: '…' }]
      : entries.map(field);
  const sections: types.SectionBlock[] = [];
  for (let i = 0; i < fields.length; i += FIELDS_MAX)
    sections.push({
      type: 'section',
      block_id: `${ID_PREFIX}args${sections.length + 1}`,
      fields: fields.slice(i, i + FIELDS_MAX),
    });
  return sections;
}

/** A rich text block: an optional bold title line, then the text preformatted, cut with "…". */
function codeBlock(blockId: string, text: string, title?: string): types.RichTextBlock {
  const code: types.RichTextPreformatted = {
    type: 'rich_text_preformatted',
    elements: [{ type: 'text', text: fitLength(text === '' ? ' ' : text, CODE_TEXT_MAX) }],
  };
  const heading: types.RichTextSection[] = title
    ? [{ type: 'rich_text_section', elements: [{ type: 'text', text: title, style: { bold: true } }] }]
    : [];
  return { type: 'rich_text', block_id: blockId, elements: [...heading, code] };
}

/** The blocks of an approval's question, in the ask's locale: head, arguments, preview. */
export function approvalBlocks(approval: ApprovalView, locale: string): Block[] {
  const words = wordsFor(locale);
  const head: types.SectionBlock = {
    type: 'section',
    block_id: APPROVAL_HEAD_BLOCK,
    text: { type: 'mrkdwn', text: approvalHead(approval, locale) },
  };
  const args = approval.lines
    ? fieldSections(Object.entries(approval.arguments))
    : [codeBlock(`${ID_PREFIX}json`, approval.json ?? '')];
  const preview =
    approval.preview !== undefined
      ? [codeBlock(`${ID_PREFIX}preview`, approval.preview, words.t('approval.preview'))]
      : [];
  const blocks: types.KnownBlock[] = [head, ...args, ...preview];
  return blocks as unknown as Block[];
}

/** Whether {@link approvalBlocks} cuts anything of the approval (the summary, a field, the arguments' JSON, the preview). */
export function approvalShortened(approval: ApprovalView, locale: string): boolean {
  const summary = approval.summary?.replace(/\s+/g, ' ') ?? '';
  if (summary.length > SUMMARY_MAX || approvalHead(approval, locale).endsWith('…')) return true;
  if (!approval.lines) return (approval.json ?? '').length > CODE_TEXT_MAX || previewCut(approval);
  const entries = Object.entries(approval.arguments);
  if (entries.length > FIELDS_MAX * FIELD_SECTIONS_MAX) return true;
  const fieldCut = entries.some(([key, value]) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    const head = `*${escapeMrkdwn(key)}*\n`;
    return key.length > 200 || escapeMrkdwn(text).length > FIELD_TEXT_MAX - head.length;
  });
  return fieldCut || previewCut(approval);
}

function previewCut(approval: ApprovalView): boolean {
  return (approval.preview ?? '').length > CODE_TEXT_MAX;
}
