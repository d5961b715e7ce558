// An approval drawn on Discord (issue 36): the summary first, the action, the flat arguments as
// `key: value` lines, nested arguments and the preview in code blocks, the short hash always. What
// does not fit the message's 2000 characters is cut with a visible "…"; the hash line never is.
import type { ApprovalView } from '../../core/approval/approval-view.js';
import { translate } from '../../core/i18n/index.js';
import { shorten } from '../../core/text.js';

/** Longest summary shown (one sentence, bold, first). */
const SUMMARY_MAX = 300;
/** Least room a preview's code block gets before it is shown as "…" alone. */
const PREVIEW_MIN = 40;
/** A code block's fences and language tag, for the room it takes. */
const FENCE = '```';

/**
 * The approval as message content within `max` characters, then `tail` (the tally, the
 * instructions, the outcome: already escaped, kept whole). `escape` is the channel's escaping of
 * user text outside code blocks. The summary, the action and the hash are always shown; the
 * arguments and then the preview are cut with "…" to make room.
 */
export function approvalContent(
  view: ApprovalView,
  locale: string,
  max: number,
  escape: (text: string) => string,
  tail: readonly string[] = [],
): string {
  const head = [
    ...(view.summary ? [`**${escape(oneLine(shorten(view.summary, SUMMARY_MAX)))}**`] : []),
    escape(translate(locale, 'approval.action', { action: oneLine(view.action) })),
  ];
  const hash = escape(translate(locale, 'approval.hash', { hash: view.hash }));
  const previewTitle = view.preview !== undefined ? escape(translate(locale, 'approval.preview')) : '';
  const args = view.lines ? escapedLines(view.lines, escape) : null;
  const build = (room: number) => {
    let argsRoom = room;
    let previewRoom = 0;
    if (view.preview !== undefined) {
      const wanted = codeBlock(view.preview, '', Infinity).length;
      const argsWanted = args?.length ?? codeBlock(view.json ?? '{}', 'json', Infinity).length;
      // The arguments come first: the preview takes what they leave, and at least a third when cut.
      previewRoom = Math.min(wanted, Math.max(room - argsWanted, Math.floor(room / 3)));
      if (previewRoom < PREVIEW_MIN && wanted > previewRoom) previewRoom = Math.min(1, room);
      argsRoom = room - previewRoom;
    }
    const argsPart = args !== null ? cutText(args, argsRoom) : codeBlock(view.json ?? '{}', 'json', argsRoom);
    const previewPart =
      view.preview === undefined
        ? []
        : [previewTitle, previewRoom > 1 ? codeBlock(view.preview, '', previewRoom) : '…'];
    const parts = [...head, ...(argsPart ? [argsPart] : []), ...previewPart, hash];
    return [parts.join('\n'), ...tail].filter((p) => p !== '').join('\n\n');
  };
  // The room left for the arguments and the preview, narrowed by what a first build overshot.
  let room = Math.max(max - build(0).length, 0);
  for (;;) {
    const content = build(room);
    if (content.length <= max || room === 0) return content;
    room = Math.max(room - (content.length - max), 0);
  }
}

/** Flat arguments as escaped `key: value` lines (a value's own line breaks kept inside it). */
function escapedLines(lines: readonly string[], escape: (text: string) => string): string {
  return lines.map((l) => escape(l.replace(/\r?\n/g, ' ⏎ '))).join('\n');
}

/** `text` in a fenced code block of at most `max` characters; a cut one ends with a "…" line inside. */
export function codeBlock(text: string, language: string, max: number): string {
  // A fence inside the text would close the block: a zero-width space keeps it literal.
  const safe = text.replaceAll(FENCE, '`\u200b``');
  const open = `${FENCE}${language}\n`;
  const close = `\n${FENCE}`;
  const whole = `${open}${safe}${close}`;
  if (whole.length <= max) return whole;
  const room = max - open.length - close.length - 2;
  if (room < 1) return '…';
  let body = safe.slice(0, room);
  if (/[\uD800-\uDBFF]$/.test(body)) body = body.slice(0, -1);
  return `${open}${body.trimEnd()}\n…${close}`;
}

/** Escaped text cut to `max` characters, ending with "…" on a whole line when cut. */
function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max < 2) return max === 1 ? '…' : '';
  let head = text.slice(0, max - 2);
  // Never end on a dangling backslash (it would escape the "…") or half a surrogate pair.
  head = head.replace(/[\uD800-\uDBFF]$/, '');
  if ((/\\+$/.exec(head)?.[0].length ?? 0) % 2 === 1) head = head.slice(0, -1);
  return `${head.trimEnd()}\n…`;
}

const oneLine = (text: string) => text.replace(/\s*\r?\n\s*/g, ' ');
