// What a person wrote in a reply, without the quoted question and their signature: mail clients
// quote the message they answer below (or above) the new text, in their own language.

/** Lines that introduce a quote ("On Mon, … wrote:"), in the shipped languages and the common clients' phrasing. */
const ATTRIBUTION =
  /(wrote|schrieb|a écrit|escribió|escreveu|scrisse|schreef|napisał|書きました|のメール)\s*:\s*$|^\d{4}[年/.-].*<[^>]*@[^>]*>\s*:\s*$|^(am|on|le|el|em|il|op) .*(schrieb|wrote) .*@.*:\s*$/i;
/** Outlook's and others' separator before the quoted message ("-----Original Message-----", localized). */
const SEPARATOR = /^\s*-{3,}\s*[^-].*[^-]\s*-{3,}\s*$|^\s*_{10,}\s*$/;
/** The first header line of a quoted message's header block (Outlook: From/Sent/To/Subject), localized. */
const FROM_HEADER = /^\s*\*?(from|von|de|da|van|od|差出人|发件人)\s*:\*?\s/i;
const DATE_HEADER =
  /^\s*\*?(sent|date|gesendet|datum|envoyé|enviado|enviada|data|inviato|verzonden|送信日時|日付|发送时间)\s*:/i;
/** Mobile clients' trailer ("Sent from my iPhone", "Get Outlook for iOS"). */
const TRAILER =
  /^\s*(sent from my |get outlook for |envoyé de mon |von meinem .* gesendet|enviado desde mi |enviado do meu )/i;

/** True when a quoted line (`>`) follows line `i` (blank lines between allowed). */
function quoteFollows(lines: readonly string[], i: number): boolean {
  for (let j = i + 1; j < lines.length && j <= i + 3; j++) {
    if (lines[j]!.trim() === '') continue;
    return lines[j]!.trimStart().startsWith('>');
  }
  return false;
}

/** Where the quoted part begins (the line index), or the number of lines when nothing is quoted. */
function quoteStart(lines: readonly string[]): number {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '-- ' || line === '--') return i; // the signature separator (RFC 3676)
    if (SEPARATOR.test(line)) return i;
    if (FROM_HEADER.test(line) && lines.slice(i + 1, i + 5).some((l) => DATE_HEADER.test(l))) return i;
    if (ATTRIBUTION.test(line.trim()) && (quoteFollows(lines, i) || /^(on|am|le|el|em|il|op) /i.test(line.trim())))
      return attributionStart(lines, i);
    // An attribution wrapped over two lines ("On Mon, … askgate <" / "ask@example.com> wrote:").
    if (i + 1 < lines.length && ATTRIBUTION.test(`${line} ${lines[i + 1]}`.trim()) && quoteFollows(lines, i + 1))
      return i;
    if (
      line.trimStart().startsWith('>') &&
      lines.slice(i).every((l) => l.trim() === '' || l.trimStart().startsWith('>'))
    )
      return i;
  }
  return lines.length;
}

/** The attribution's first line: Gmail wraps a long one, so a line before it that starts "On …" belongs to it. */
function attributionStart(lines: readonly string[], i: number): number {
  const before = lines[i - 1]?.trim() ?? '';
  return i > 0 && /^(on|am|le|el|em|il|op) /i.test(before) && !/[.!?]$/.test(before) ? i - 1 : i;
}

/**
 * The new text of a reply: everything before the quoted message (an attribution line, an Outlook
 * separator or header block, a run of `>` lines to the end), without the signature (after `-- `),
 * a mobile client's trailer and any remaining `>` lines, trimmed. Replies written between quoted
 * lines ("inline") keep their own lines.
 */
export function stripQuoted(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const own = lines.slice(0, quoteStart(lines)).filter((l) => !l.trimStart().startsWith('>') && !TRAILER.test(l));
  return own
    .join('\n')
    .replace(/\u00a0/g, ' ')
    .trim();
}
