import type { Api } from 'grammy';
import type { InlineKeyboardMarkup } from 'grammy/types';
import {
  applyOwnWords,
  applyTap,
  formAnswers,
  heldNotice,
  holdBy,
  newDraft,
  showProblem,
  type DraftStep,
} from '../../core/drafts.js';
import type { Draft } from '../../core/form-draft-store.js';
import { outcomeNotice, outcomeWords } from '../../core/notices.js';
import {
  type ButtonPressed,
  type Clock,
  type DraftKey,
  type FormDraftStore,
  type InboundSink,
  type Logger,
} from '../../core/ports.js';
import type { PromptView } from '../../core/prompt-view.js';
import type { MessageRef, Responder } from '../../core/schemas.js';
import { decodeToken, encodeToken, type ButtonChoice } from '../../core/token.js';
import type { Words } from '../../core/i18n/index.js';
import { forceReplyIn, type ForceReply } from './words.js';
import { answersOnKeyboard, draftMarkup } from './drafts-keyboard.js';
import { describeError, type ChatPacer } from './limits.js';
import { DraftRenderer } from './draft-render.js';

/**
 * The force-reply prompt after Other… on a draft step, in `words`: the tapping person's, else the
 * ask's (several questions name theirs).
 */
export function ownWordsPrompt(view: PromptView, question: number, words: Words): string {
  const t = words.t;
  const prompt = t('telegram.ownWordsPrompt');
  return view.questions.length > 1 ? `${t('prompt.questionN', { n: question + 1 })} · ${prompt}` : prompt;
}

/** Choices that work on a draft drawn on the message (every other tap takes the older path). */
const DRAFT_KINDS: ReadonlySet<ButtonChoice['kind']> = new Set(['form', 'pick', 'toggle', 'step', 'own', 'submit']);
/** Reads and compare-and-set writes one tap may try before it gives up (taps racing on one draft). */
const CAS_TRIES = 8;

/** What a tap on a draft does: the toast to answer it with, then the work after the answer. */
export interface DraftTapWork {
  toast: string;
  after?: () => Promise<void>;
}

/** Sends a reply to the tapped message (settled through the update's gate); null when nothing was sent. */
export type DraftReply = (text: string, forceReply?: ForceReply) => Promise<number | null>;

/** What the draft flow needs from the channel. */
export interface TelegramDraftsDeps {
  api: Api;
  store: FormDraftStore;
  pacer: ChatPacer;
  clock: Clock;
  logger: Logger;
}

type Changed = DraftStep | { kind: 'closed' };

/** Whether a callback's data is a draft control (the record is still checked by the sink). */
export function isDraftTap(data: string): boolean {
  const token = decodeToken(data);
  return !!token && DRAFT_KINDS.has(token.choice.kind);
}

/** Whether a callback's data is a Skip (which a held draft holds back too). */
export function isSkipTap(data: string): boolean {
  return decodeToken(data)?.choice.kind === 'skip';
}

/**
 * Forms answered on the message itself: every tap changes the draft by compare-and-set in the
 * store, is answered with its toast, then the keyboard is edited in place. Edits of one message
 * coalesce (the latest draft is what gets drawn) and go through the chat's pacing and 429s.
 */
export class TelegramDrafts {
  private readonly renderer: DraftRenderer;

  constructor(private readonly deps: TelegramDraftsDeps) {
    this.renderer = new DraftRenderer(deps);
  }

  /** The keyboard a prompt is sent with, or undefined when it keeps the text form. */
  firstMarkup(view: PromptView): InlineKeyboardMarkup | undefined {
    return answersOnKeyboard(view) ? draftMarkup(view, null) : undefined;
  }

  /**
   * The keyboard of a sent prompt as its draft stands (for a re-render of its text) and the draft's
   * revision drawn (0: none), or undefined when the prompt keeps the text form.
   */
  async markupFor(
    view: PromptView,
    ref: MessageRef,
  ): Promise<{ markup: InlineKeyboardMarkup; rev: number } | undefined> {
    if (!answersOnKeyboard(view)) return undefined;
    const stored = await this.deps.store.get(keyOf(view.askId, ref)).catch(() => null);
    if (stored?.closed) return undefined;
    return { markup: draftMarkup(view, stored?.draft ?? null), rev: stored?.rev ?? 0 };
  }

  /** After a text re-render drew revision `rev`'s keyboard: a draft that moved on meanwhile is drawn again. */
  async redrawIfMoved(view: PromptView, ref: MessageRef, rev: number): Promise<void> {
    const key = keyOf(view.askId, ref);
    const stored = await this.deps.store.get(key).catch(() => null);
    if (stored && !stored.closed && stored.rev !== rev) await this.renderer.render(key, view);
  }

  /** Marks a message's draft finalized, before the outcome edit (a racing keyboard edit then undoes itself). */
  async closed(ref: MessageRef, askId: string): Promise<void> {
    await this.deps.store.close(keyOf(askId, ref)).catch((error: unknown) => {
      this.deps.logger.warn({ channel: 'telegram', askId, err: describeError(error) }, 'draft could not be closed');
    });
  }

  /**
   * A tap on a draft control of a message: its id, and the callback data its keyboard shows now
   * (as the callback query carries it).
   */
  async tap(
    sink: InboundSink,
    event: ButtonPressed & { chat: string },
    message: { id: number; shown: readonly string[] },
    reply: DraftReply,
  ): Promise<DraftTapWork> {
    const opening = await sink.openForm(event);
    if (opening.kind !== 'form') return { toast: outcomeNotice(opening) ?? '' };
    const { view, choice } = opening;
    // What only the tapping person sees is in their words (else the ask's); the keyboard is the ask's.
    const words = outcomeWords(opening);
    const invalid = { toast: words.t('notice.invalidButton') };
    // A draft lives on the ask's own keyboard: data claiming a message without one (a reminder, a
    // prompt: forged) would draw a keyboard there.
    if (!message.shown.some((data) => decodeToken(data)?.askId === view.askId)) return invalid;
    const messageId = message.id;
    const now = this.deps.clock.now();
    const expiresAt = Date.parse(opening.expiresAt ?? '') || now;
    const key: DraftKey = { askId: view.askId, chat: event.chat, messageId: String(messageId) };
    const tap = { askId: view.askId, version: view.version, choice, user: event.user, now, expiresAt };
    const step = await this.change(key, (draft) => applyTap(view.questions, draft, tap));
    switch (step.kind) {
      case 'closed':
        return { toast: '' };
      case 'held':
        return { toast: heldNotice(step.by, words) };
      case 'invalid':
        return invalid;
    }
    if (step.then === 'submit') return this.submit(sink, key, view, step.draft, event);
    if (step.then === 'render') return { toast: '', after: () => this.renderer.render(key, view) };
    const question = step.draft.awaitingOwn ?? 0;
    return {
      toast: '',
      after: async () => {
        const sent = await reply(ownWordsPrompt(view, question, words), forceReplyIn(words));
        if (sent !== null) await this.deps.store.pointOwn(key.chat, String(sent), key, expiresAt);
        await this.renderer.render(key, view);
      },
    };
  }

  /**
   * The toast for a Skip tapped on a message whose draft someone else holds ("@alice is
   * answering", in the person's words, else the ask's), or null: Skip ends the ask for everyone,
   * so it waits for the hold like any tap.
   */
  async skipHeld(
    sink: InboundSink,
    event: ButtonPressed & { chat: string },
    messageId: number,
  ): Promise<string | null> {
    const askId = decodeToken(event.token)?.askId;
    if (!askId) return null;
    const stored = await this.deps.store.get({ askId, chat: event.chat, messageId: String(messageId) });
    const by = stored?.draft && !stored.closed ? holdBy(stored.draft, event.user, this.deps.clock.now()) : null;
    if (!by) return null;
    // Only a held Skip reads the ask again, for its language; an ask that ended takes the Skip's own path.
    const opening = await sink.openForm(event);
    return opening.kind === 'form' ? heldNotice(by, outcomeWords(opening)) : null;
  }

  /**
   * A reply to an own-words prompt of a draft: the words go into the draft. Null when the message
   * replies to no such prompt (it is then an ordinary reply); else the notice to reply with (if
   * any) and what follows.
   */
  async ownWords(
    sink: InboundSink,
    m: { chat: string; replyTo: string; user: Responder; text: string; locale?: string },
  ): Promise<{ notice: string | null; after?: () => Promise<void> } | null> {
    const key = await this.deps.store.ownOf(m.chat, m.replyTo);
    if (!key) return null;
    // A reply to one of our prompts is never an answer to the whole ask: without a draft waiting for
    // it (applied already by an attempt that died before settling, or the ask ended) it is told or dropped.
    const stored = await this.deps.store.get(key);
    const draft = stored?.draft;
    if (!draft) return { notice: null };
    const choice: ButtonChoice = { kind: 'own', question: draft.awaitingOwn ?? 0 };
    const token = encodeToken({ askId: draft.askId, version: draft.version, choice });
    const locale = m.locale ? { locale: m.locale } : {};
    const opening = await sink.openForm({ channel: 'telegram', token, user: m.user, chat: m.chat, ...locale });
    if (opening.kind !== 'form') return { notice: outcomeNotice(opening) };
    if (stored.closed || draft.awaitingOwn === undefined) return { notice: null };
    const { view } = opening;
    const own = { text: m.text, user: m.user, now: this.deps.clock.now() };
    const step = await this.change(key, (d) => (d ? applyOwnWords(view.questions, d, own) : { kind: 'invalid' }));
    switch (step.kind) {
      case 'closed':
      case 'invalid':
        return { notice: null };
      case 'held':
        return { notice: heldNotice(step.by, outcomeWords(opening)) };
    }
    if (step.then !== 'submit') return { notice: null, after: () => this.renderer.render(key, view) };
    const work = await this.submit(sink, key, view, step.draft, { user: m.user, ...locale });
    // A recorded answer shows in the question message (finalize edits it), as for a typed answer.
    return { notice: work.toast && !work.recorded ? work.toast : null, ...(work.after ? { after: work.after } : {}) };
  }

  private async submit(
    sink: InboundSink,
    key: DraftKey,
    view: PromptView,
    draft: Draft,
    by: { user: Responder; locale?: string },
  ): Promise<DraftTapWork & { recorded?: boolean }> {
    const { user } = by;
    const token = encodeToken({ askId: view.askId, version: view.version, choice: { kind: 'submit' } });
    const outcome = await sink.submitForm({
      channel: 'telegram',
      token,
      user,
      chat: key.chat,
      answers: formAnswers(draft),
      ...(by.locale ? { locale: by.locale } : {}),
    });
    const toast = outcomeNotice(outcome) ?? '';
    if (outcome.kind === 'recorded') {
      // The next person (an ask that needs several answers) starts afresh, with no one holding it.
      const { askId, version, expiresAt } = draft;
      const fresh = newDraft(view.questions, { askId, version, expiresAt, user, now: 0 });
      await this.change(key, () => ({ kind: 'draft', draft: fresh, then: 'render' })).catch(() => undefined);
      return { toast, recorded: true };
    }
    if (outcome.kind !== 'invalid') return { toast };
    const problems = outcome.problems ?? [];
    await this.change(key, (d) =>
      d ? { kind: 'draft', draft: showProblem(d, problems), then: 'render' } : { kind: 'invalid' },
    );
    return { toast, after: () => this.renderer.render(key, view) };
  }

  /** Reads, changes and writes a draft by compare-and-set, again while other taps get there first. */
  private async change(key: DraftKey, apply: (draft: Draft | null) => DraftStep): Promise<Changed> {
    for (let i = 0; i < CAS_TRIES; i++) {
      const stored = await this.deps.store.get(key);
      if (stored?.closed) return { kind: 'closed' };
      const step = apply(stored?.draft ?? null);
      if (step.kind !== 'draft') return step;
      const written = await this.deps.store.put(key, stored?.rev ?? 0, step.draft);
      if (written === 'closed') return { kind: 'closed' };
      if (written !== 'conflict') return step;
    }
    throw new Error('draft changed by too many taps at once');
  }
}

function keyOf(askId: string, ref: MessageRef): DraftKey {
  return { askId, chat: ref.chat, messageId: ref.messageId };
}
