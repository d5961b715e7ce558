// A prompt, a reminder, an outcome or a notice as a mail: a plain-text part and an HTML part with
// the same content. Every string in the HTML part is escaped: questions, labels and names are the
// agent's or a person's text.
import { wordsFor } from '../../core/i18n/index.js';
import { choiceView, type PromptView, type QuestionView } from '../../core/prompt-view.js';
import { shorten } from '../../core/text.js';
import { emailText } from './words.js';
import { escapeHtml } from '../../security/html.js';

/** A mail's subject and its two bodies. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** The answer page's links for one recipient: the page, and one per option of a single choice question. */
export interface PageLinks {
  page: string;
  /** The option links, in option order (1-based `?option=n`); empty when the prompt is not one single choice question. */
  options: readonly string[];
}

/** Longest subject line, in characters. */
const SUBJECT_MAX = 120;

/** Text as HTML paragraphs' content: escaped, new lines as `<br>`. */
const htmlLines = (text: string) => escapeHtml(text).replace(/\r?\n/g, '<br>\n');

/** The subject of an ask's mails: the approval's summary or action, else the first question's header and text. */
export function subjectOf(view: PromptView): string {
  const first = view.questions[0];
  const raw = view.approval
    ? (view.approval.summary ?? view.approval.action)
    : [first?.header, first?.question].filter(Boolean).join(': ');
  return shorten(raw.replace(/\s+/g, ' ').trim(), SUBJECT_MAX) || 'askgate';
}

/** `Re: <subject>` for the mails that follow the question. */
export const replySubject = (subject: string) => (/^re:/i.test(subject) ? subject : `Re: ${subject}`);

/** One question as text lines and HTML. */
function question(
  q: QuestionView,
  several: boolean,
  approval: boolean,
  locale: string,
): { text: string[]; html: string } {
  const words = wordsFor(locale);
  const title = several
    ? `${words.t('prompt.questionN', { n: q.number })}${q.header ? ` · ${q.header}` : ''}`
    : q.header;
  const text = [...(title ? [title] : []), q.question];
  let html = title ? `<p><strong>${escapeHtml(title)}</strong></p>\n` : '';
  html += approval ? `<pre>${escapeHtml(q.question)}</pre>\n` : `<p>${htmlLines(q.question)}</p>\n`;
  const choice = choiceView(q);
  if (choice) {
    for (const o of choice.options) text.push(`  ${o.number}. ${o.label}${o.description ? ` — ${o.description}` : ''}`);
    const items = choice.options.map(
      (o) => `<li>${escapeHtml(o.label)}${o.description ? ` — ${escapeHtml(o.description)}` : ''}</li>`,
    );
    html += `<ol>\n${items.join('\n')}\n</ol>\n`;
  }
  return { text, html };
}

/**
 * The question mail: the questions (options numbered), the tally, the deadline, then the links (one per option
 * of a single choice question, and the page for everything else) when `links` is given, and the
 * instructions for answering by reply (which say what each typed question expects).
 */
export function renderPrompt(view: PromptView, links: PageLinks | null): RenderedMail {
  const several = view.questions.length > 1;
  const text: string[] = [];
  let html = '';
  view.questions.forEach((q, i) => {
    const part = question(q, several, view.approval !== undefined, view.locale);
    if (i > 0) text.push('');
    text.push(...part.text);
    html += part.html;
  });
  if (view.tally && view.tally.length > 0) {
    text.push('', ...view.tally);
    html += `<p>${view.tally.map(escapeHtml).join('<br>\n')}</p>\n`;
  }
  // A mail has no time that follows the reader's zone: the line says the ask's zone (core/deadline-view.ts).
  if (view.deadline) {
    text.push('', view.deadline.line);
    html += `<p>${escapeHtml(view.deadline.line)}</p>\n`;
  }
  const choice = view.questions.length === 1 ? choiceView(view.questions[0]!) : null;
  if (links) {
    if (choice && links.options.length === choice.options.length) {
      text.push('', emailText(view.locale, 'options'));
      const items: string[] = [];
      choice.options.forEach((o, i) => {
        text.push(`  ${o.number}. ${o.label}: ${links.options[i]}`);
        items.push(`<li><a href="${escapeHtml(links.options[i]!)}">${escapeHtml(o.label)}</a></li>`);
      });
      html += `<p>${escapeHtml(emailText(view.locale, 'options'))}</p>\n<ul>\n${items.join('\n')}\n</ul>\n`;
    }
    text.push('', `${emailText(view.locale, 'page')} ${links.page}`);
    html += `<p><a href="${escapeHtml(links.page)}">${escapeHtml(emailText(view.locale, 'pageLink'))}</a></p>\n`;
  }
  text.push('', view.instructions);
  html += `<p>${escapeHtml(view.instructions)}</p>\n`;
  if (!links) {
    text.push(emailText(view.locale, 'replyOnly'));
    html += `<p>${escapeHtml(emailText(view.locale, 'replyOnly'))}</p>\n`;
  }
  return { subject: subjectOf(view), text: `${text.join('\n')}\n`, html: page(html, view.locale) };
}

/** A short mail in the thread (a reminder, the outcome, a notice to the person): its text as both parts. */
export function renderNote(subject: string, body: string, locale: string): RenderedMail {
  return { subject: replySubject(subject), text: `${body}\n`, html: page(`<p>${htmlLines(body)}</p>\n`, locale) };
}

/** The HTML document around a body. */
function page(body: string, locale: string): string {
  return `<!doctype html>\n<html lang="${escapeHtml(locale)}"><head><meta charset="utf-8"></head><body>\n${body}</body></html>\n`;
}
