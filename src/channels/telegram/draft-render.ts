import { GrammyError, type Api } from 'grammy';
import type { InlineKeyboardMarkup } from 'grammy/types';
import { ChannelError, type Clock, type DraftKey, type FormSessions, type Logger } from '../../core/ports.js';
import type { PromptView } from '../../core/prompt-view.js';
import { draftMarkup } from './drafts-keyboard.js';
import { deadline, describeError, isNotModified, toChannelError, type ChatPacer } from './limits.js';

/** Keyboard edits one render may try (each after its chat's slot or a 429's retry_after). */
const RENDER_TRIES = 5;
/**
 * Longest wait for a chat's slots before a keyboard edit is given up (a later tap renders again):
 * a little over a minute, so a group's 20-a-minute pace is waited out rather than dropped.
 */
const MAX_RENDER_WAIT_MS = 65_000;
const EDIT_TIMEOUT_MS = 10_000;

/**
 * Draws drafts on their messages with editMessageReplyMarkup: edits of one message coalesce (a
 * render asked for while one runs makes it run once more, with the latest draft), every edit takes
 * its chat's slot of the pacer, a 429 closes the chat until retry_after, and "message is not
 * modified" counts as done.
 */
export class DraftRenderer {
  private readonly renders = new Map<string, { dirty: boolean; view: PromptView; done: Promise<void> }>();

  constructor(
    private readonly deps: {
      api: Api;
      forms: () => Pick<FormSessions, 'shown'> | null;
      pacer: ChatPacer;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  /** Edits the keyboard to the latest draft; a render asked for while one runs makes it run once more. */
  render(key: DraftKey, view: PromptView): Promise<void> {
    const id = `${key.chat}\u0000${key.messageId}`;
    const running = this.renders.get(id);
    if (running) {
      running.dirty = true;
      running.view = view;
      return running.done;
    }
    const job = { dirty: true, view, done: Promise.resolve() };
    job.done = (async () => {
      try {
        while (job.dirty) {
          job.dirty = false;
          if (await this.renderOnce(key, job.view)) job.dirty = true;
        }
      } catch (error) {
        this.deps.logger.warn({ channel: 'telegram', err: describeError(error) }, 'draft keyboard not edited');
      } finally {
        this.renders.delete(id);
      }
    })();
    this.renders.set(id, job);
    return job.done;
  }

  /** One render; true when the draft moved on while it was drawn (another replica's tap): draw again. */
  private async renderOnce(key: DraftKey, view: PromptView): Promise<boolean> {
    for (let attempt = 0; attempt < RENDER_TRIES; attempt++) {
      await this.slot(key.chat);
      const stored = await this.shown(key);
      if (stored?.closed) return false;
      if (!(await this.edit(key, draftMarkup(view, stored?.draft ?? null)))) continue;
      const after = await this.shown(key);
      // The outcome edit may have landed while this one was in flight: it closed the draft first,
      // so this keyboard is taken away again (the outcome text stays).
      if (after?.closed) {
        await this.slot(key.chat);
        await this.edit(key, undefined);
        return false;
      }
      return (after?.rev ?? 0) !== (stored?.rev ?? 0);
    }
    return false;
  }

  /** The draft to draw (none before the channel started: the first step). */
  private async shown(key: DraftKey) {
    return (await this.deps.forms()?.shown(key)) ?? null;
  }

  /** One keyboard edit: true when done (an unchanged keyboard too), false after a 429 (try again). */
  private async edit(key: DraftKey, markup: InlineKeyboardMarkup | undefined): Promise<boolean> {
    try {
      await this.deps.api.editMessageReplyMarkup(
        key.chat,
        Number(key.messageId),
        markup ? { reply_markup: markup } : {},
        deadline(EDIT_TIMEOUT_MS),
      );
      return true;
    } catch (error) {
      if (isNotModified(error)) return true;
      const mapped = toChannelError(error, 'editMessageReplyMarkup');
      if (error instanceof GrammyError && error.error_code === 429 && mapped.retryAfterMs) {
        this.deps.pacer.blockUntil(key.chat, this.deps.clock.now() + mapped.retryAfterMs);
        return false;
      }
      throw mapped;
    }
  }

  /** Takes the chat's next edit slot, waiting out pacing and 429s (a long wait gives up: throws). */
  private async slot(chat: string): Promise<void> {
    let waited = 0;
    for (;;) {
      try {
        return await this.deps.pacer.take(chat);
      } catch (error) {
        const wait = error instanceof ChannelError && !error.permanent ? (error.retryAfterMs ?? 0) : -1;
        if (wait < 0 || waited + wait > MAX_RENDER_WAIT_MS) throw error;
        waited += wait;
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }
}
