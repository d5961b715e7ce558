import type { Api } from 'grammy';
import type { InlineKeyboardMarkup } from 'grammy/types';
import type {
  ButtonPressed,
  Clock,
  DraftKey,
  FormReply,
  FormSessions,
  Logger,
  TextReceived,
} from '../../core/ports.js';
import { typedView, type PromptView } from '../../core/prompt-view.js';
import { kindOf, type TypedViewPart } from '../../core/questions/index.js';
import type { MessageRef } from '../../core/schemas.js';
import { decodeToken, type ButtonChoice } from '../../core/token.js';
import { wordsFor, type Words } from '../../core/i18n/index.js';
import { forceReplyIn, telegramText, type ForceReply } from './words.js';
import { draftMarkup } from './drafts-keyboard.js';
import { cut, describeError, type ChatPacer } from './limits.js';
import { PLACEHOLDER_MAX_CHARS } from './label-limits.js';
import { DraftRenderer } from './draft-render.js';

/**
 * The force-reply prompt of a draft step, in `words` (the person's, else the ask's; several
 * questions name theirs): Other…'s "Reply with your answer in your own words", or what a typed step
 * expects ("Please answer with a date between …, for example …"), whose example is the input
 * field's placeholder.
 */
export function stepPrompt(view: PromptView, question: number, words: Words): { text: string; forceReply: ForceReply } {
  const named = (text: string) =>
    view.questions.length > 1 ? `${words.t('prompt.questionN', { n: question + 1 })} · ${text}` : text;
  const typed = view.questions[question] ? typedView(view.questions[question]) : null;
  if (!typed) return { text: named(telegramText(words.locale, 'ownWordsPrompt')), forceReply: forceReplyIn(words) };
  // The view is in the ask's words; the sentence and example are said again in the person's.
  const said = kindOf(typed).view(typed, {}, wordsFor(words.locale, typed.timeZone)) as TypedViewPart;
  const example = said.example.trim();
  return {
    text: named(said.expected),
    forceReply: example ? { placeholder: cut(example, PLACEHOLDER_MAX_CHARS) } : forceReplyIn(words),
  };
}

/** Choices that work on a draft drawn on the message (every other tap takes the older path). */
const DRAFT_KINDS: ReadonlySet<ButtonChoice['kind']> = new Set(['form', 'pick', 'toggle', 'step', 'own', 'submit']);

/** What a tap on a draft does: the toast to answer it with, then the work after the answer. */
export interface DraftTapWork {
  toast: string;
  after?: () => Promise<void>;
}

/** Sends a reply to the tapped message (settled through the update's gate); null when nothing was sent. */
export type DraftReply = (text: string, forceReply?: ForceReply) => Promise<number | null>;

/** What the draft flow needs from the channel, and the app's form sessions (the sink's, once started). */
export interface TelegramDraftsDeps {
  api: Api;
  forms: () => FormSessions | null;
  pacer: ChatPacer;
  clock: Clock;
  logger: Logger;
}

/** Whether a callback's data is a draft control (the record is still checked by the session). */
export function isDraftTap(data: string): boolean {
  const token = decodeToken(data);
  return !!token && DRAFT_KINDS.has(token.choice.kind);
}

/** Whether a callback's data is a Skip (which a held draft holds back too). */
export function isSkipTap(data: string): boolean {
  return decodeToken(data)?.choice.kind === 'skip';
}

/**
 * Forms answered on the message itself, Telegram's side: a tap is decoded and handed to the app's
 * form session (one call), its toast answers the callback query, then the keyboard the session's
 * draft stands at is drawn in place. Edits of one message coalesce (the latest draft is what gets
 * drawn) and go through the chat's pacing and 429s.
 */
export class TelegramDrafts {
  private readonly renderer: DraftRenderer;

  constructor(private readonly deps: TelegramDraftsDeps) {
    this.renderer = new DraftRenderer(deps);
  }

  /** The keyboard a prompt is sent with, or undefined when it keeps the text form (its view has no form: core decided). */
  firstMarkup(view: PromptView): InlineKeyboardMarkup | undefined {
    return view.form && !view.buttons ? draftMarkup(view, null) : undefined;
  }

  /**
   * The keyboard of a sent prompt as its draft stands (for a re-render of its text) and the draft's
   * revision drawn (0: none), or undefined when the prompt keeps the text form.
   */
  async markupFor(
    view: PromptView,
    ref: MessageRef,
  ): Promise<{ markup: InlineKeyboardMarkup; rev: number } | undefined> {
    if (!view.form || view.buttons) return undefined;
    // Before the channel started (no session yet) the keyboard is drawn at its first step.
    const stored = await this.deps
      .forms()
      ?.shown(keyOf(view.askId, ref))
      .catch(() => null);
    if (stored?.closed) return undefined;
    return { markup: draftMarkup(view, stored?.draft ?? null), rev: stored?.rev ?? 0 };
  }

  /** After a text re-render drew revision `rev`'s keyboard: a draft that moved on meanwhile is drawn again. */
  async redrawIfMoved(view: PromptView, ref: MessageRef, rev: number): Promise<void> {
    const key = keyOf(view.askId, ref);
    const stored = await this.deps
      .forms()
      ?.shown(key)
      .catch(() => null);
    if (stored && !stored.closed && stored.rev !== rev) await this.renderer.render(key, view);
  }

  /** Marks a message's draft finalized, before the outcome edit (a racing keyboard edit then undoes itself). */
  async closed(ref: MessageRef, askId: string): Promise<void> {
    await this.deps
      .forms()
      ?.close(keyOf(askId, ref))
      .catch((error: unknown) => {
        this.deps.logger.warn({ channel: 'telegram', askId, err: describeError(error) }, 'draft could not be closed');
      });
  }

  /**
   * A tap on a draft control of a message: its id, and the callback data its keyboard shows now
   * (as the callback query carries it).
   */
  async tap(
    event: ButtonPressed & { chat: string },
    message: { id: number; shown: readonly string[] },
    reply: DraftReply,
  ): Promise<DraftTapWork> {
    const askId = decodeToken(event.token)?.askId;
    const onAsksMessage = !!askId && message.shown.some((data) => decodeToken(data)?.askId === askId);
    const messageId = String(message.id);
    const said = await this.sessions().step({ kind: 'tap', event, messageId, onAsksMessage });
    return this.work(said ?? { notice: '' }, reply);
  }

  /**
   * The toast for a Skip tapped on a message whose draft someone else holds ("@alice is
   * answering"), or null: Skip ends the ask for everyone, so it waits for the hold like any tap.
   */
  async skipHeld(event: ButtonPressed & { chat: string }, messageId: number): Promise<string | null> {
    const said = await this.sessions().step({ kind: 'skip', event, messageId: String(messageId) });
    return said ? said.notice : null;
  }

  /**
   * A reply to an own-words prompt of a draft: the words go into the draft. Null when the message
   * replies to no such prompt (it is then an ordinary reply); else the notice to reply with (if
   * any) and what follows.
   */
  async ownWords(
    event: TextReceived & { replyTo: string },
    reply: DraftReply,
  ): Promise<{ notice: string | null; after?: () => Promise<void> } | null> {
    const said = await this.sessions().step({ kind: 'words', event });
    if (!said) return null;
    const work = this.work(said, reply);
    return { notice: work.toast || null, ...(work.after ? { after: work.after } : {}) };
  }

  /** The sink's form sessions: taps reach the flow only once the channel started with them. */
  private sessions(): FormSessions {
    const forms = this.deps.forms();
    if (!forms) throw new Error('telegram drafts used before the channel started');
    return forms;
  }

  /**
   * What the session said, as Telegram does it: the toast, then the step's force-reply prompt and
   * the keyboard's edit. A prompt asked for with nothing to draw is a repair (a typed value that did
   * not read): the notice itself is the prompt, so the next reply goes to the same step.
   */
  private work(said: FormReply, reply: DraftReply): DraftTapWork {
    const { draw, askOwn } = said;
    const words = wordsFor(said.locale);
    const ask = async (text: string, forceReply: ForceReply) => {
      const sent = await reply(text, forceReply);
      if (sent !== null) await askOwn?.sent(String(sent));
    };
    if (!draw)
      return askOwn ? { toast: '', after: () => ask(said.notice, forceReplyIn(words)) } : { toast: said.notice };
    if (!askOwn) return { toast: said.notice, after: () => this.renderer.render(draw.key, draw.view) };
    return {
      toast: said.notice,
      after: async () => {
        const prompt = stepPrompt(draw.view, askOwn.question, words);
        await ask(prompt.text, prompt.forceReply);
        await this.renderer.render(draw.key, draw.view);
      },
    };
  }
}

function keyOf(askId: string, ref: MessageRef): DraftKey {
  return { askId, chat: ref.chat, messageId: ref.messageId };
}
