// A prompt as a Cloud API message object: reply buttons, a list, or text. Text is sent as is (no
// markdown is parsed from it: WhatsApp's *bold* markers in a question show as typed).
import { wordsFor } from '../../core/i18n/index.js';
import { choiceView, type ButtonView, type PromptView } from '../../core/prompt-view.js';
import { shorten } from '../../core/text.js';
import {
  INTERACTIVE_BODY_MAX,
  LIST_DESCRIPTION_MAX,
  LIST_ROWS_MAX,
  LIST_TITLE_MAX,
  REPLY_BUTTONS_MAX,
  REPLY_TITLE_MAX,
  TEXT_BODY_MAX,
} from './capabilities.js';

/**
 * The prompt's text: the questions (options numbered, with their descriptions), the tally, the
 * deadline (WhatsApp has no time that follows the reader's zone: the ask's zone, named), the answer
 * page, the instructions.
 */
export function promptText(view: PromptView, withOptions: boolean): string {
  const words = wordsFor(view.locale);
  const several = view.questions.length > 1;
  const lines: string[] = [];
  for (const q of view.questions) {
    if (lines.length > 0) lines.push('');
    const title = several
      ? `${words.t('prompt.questionN', { n: q.number })}${q.header ? ` · ${q.header}` : ''}`
      : q.header;
    if (title) lines.push(title);
    lines.push(q.question);
    const choice = withOptions ? choiceView(q) : null;
    if (choice)
      for (const o of choice.options)
        lines.push(`${o.number}. ${o.label}${o.description ? ` — ${o.description}` : ''}`);
  }
  if (view.tally && view.tally.length > 0) lines.push('', ...view.tally);
  if (view.deadline) lines.push('', view.deadline.line);
  if (view.link) lines.push('', view.link);
  lines.push('', view.instructions);
  return lines.join('\n');
}

/** The message object (without `to`) of a prompt. */
export function renderPrompt(view: PromptView): Record<string, unknown> {
  // Other is a typed reply ("reply to this message with your own words"): it is never a button.
  const taps = (view.buttons ?? []).filter((b) => b.kind !== 'other');
  // An interactive body holds 1,024 characters: a longer prompt is text (4,096), answered by reply, never cut short.
  const short = promptText(view, false);
  const fitsButtons = taps.length > 0 && taps.length <= REPLY_BUTTONS_MAX && taps.every(titleFits);
  // What a control cannot show whole (a description beside a button, a label cut in a list row) is
  // in the body too, the options numbered (a body too long for that is text): nothing the asker wrote goes unseen.
  const choice = view.questions.length === 1 ? choiceView(view.questions[0]!) : null;
  const cutInRow = (text: string, max: number) => !fitsButtons && [...text].length > max;
  const hidden =
    !!choice?.options.some((o) => o.description && (fitsButtons || cutInRow(o.description, LIST_DESCRIPTION_MAX))) ||
    taps.some((b) => cutInRow(b.label, LIST_TITLE_MAX));
  const body = hidden ? promptText(view, true) : short;
  if (body.length > INTERACTIVE_BODY_MAX) return textMessage(promptText(view, true));
  if (fitsButtons) {
    return {
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: body },
        action: {
          buttons: taps.map((b) => ({ type: 'reply', reply: { id: b.token, title: b.label } })),
        },
      },
    };
  }
  if (taps.length > 0 && taps.length <= LIST_ROWS_MAX) {
    const rows = taps.map((b) => {
      const option = b.kind === 'option' ? choice?.options.find((o) => o.label === b.label) : undefined;
      const description = option?.description ? shorten(option.description, LIST_DESCRIPTION_MAX, 'utf16') : '';
      return { id: b.token, title: shorten(b.label, LIST_TITLE_MAX, 'utf16'), ...(description ? { description } : {}) };
    });
    return {
      type: 'interactive',
      interactive: {
        type: 'list',
        body: { text: body },
        action: {
          button: shorten(wordsFor(view.locale).t('control.choose'), REPLY_TITLE_MAX, 'utf16'),
          sections: [{ rows }],
        },
      },
    };
  }
  return textMessage(promptText(view, true));
}

/** A reply button's title fits as it is (reply buttons are not cut: a cut label may read as another). */
const titleFits = (b: ButtonView) => [...b.label].length <= REPLY_TITLE_MAX && b.label.trim().length > 0;

/** A text message object, cut to the body limit. */
export function textMessage(body: string, replyTo?: string): Record<string, unknown> {
  return {
    type: 'text',
    text: { body: shorten(body, TEXT_BODY_MAX, 'utf16'), preview_url: false },
    ...(replyTo ? { context: { message_id: replyTo } } : {}),
  };
}

/** Longest template body parameter askgate sends (the approved template's own text adds to it; the body holds 1024). */
export const TEMPLATE_PARAM_MAX = 700;

/**
 * The operator's approved template (`name:language`, one body parameter) carrying the prompt as one
 * line: template parameters may hold no new lines, tabs or more than four spaces in a row. The
 * person answers by replying to it (it opens the window), as to a text prompt.
 */
export function templateMessage(template: string, view: PromptView): Record<string, unknown> {
  const [name, code] = template.split(':') as [string, string];
  const line = promptText(view, true)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' · ')
    .replace(/\s{2,}/g, ' ');
  return {
    type: 'template',
    template: {
      name,
      language: { code },
      components: [{ type: 'body', parameters: [{ type: 'text', text: shorten(line, TEMPLATE_PARAM_MAX, 'utf16') }] }],
    },
  };
}
