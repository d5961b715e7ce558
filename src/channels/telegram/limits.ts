import { GrammyError, HttpError, type Api } from 'grammy';
import { ChannelError } from '../../core/ports.js';
import { shorten } from '../../core/text.js';
import { describeError as describeAny, retryAfterMs } from '../shared/errors.js';
import { CALLBACK_DATA_MAX_BYTES } from './capabilities.js';

export { BUTTON_LABEL_MAX_CHARS, TOAST_MAX_CHARS } from './label-limits.js';
export { CALLBACK_DATA_MAX_BYTES, KEYBOARD_MAX_BUTTONS, KEYBOARD_ROW_MAX_BUTTONS } from './capabilities.js';

/** Telegram's limit on a message text, in characters (counted here as UTF-16 code units, the stricter reading). */
export const MESSAGE_MAX_CHARS = 4096;
/** Longest in-process wait for a chat's next send slot; longer waits go back to the outbox. */
export const MAX_INLINE_WAIT_MS = 1500;
/** Default spacing of sends to one chat (Telegram: about one message per second per chat). */
export const DEFAULT_MIN_SEND_INTERVAL_MS = 1000;
/** Telegram: at most 20 messages per minute in one group. */
export const GROUP_MAX_PER_MINUTE = 20;

/** Throws when `data` does not fit Telegram's 1–64 byte `callback_data`. */
export function assertCallbackData(data: string): string {
  const bytes = Buffer.byteLength(data, 'utf8');
  if (bytes < 1 || bytes > CALLBACK_DATA_MAX_BYTES)
    throw new Error(`callback_data must be 1–${CALLBACK_DATA_MAX_BYTES} bytes, got ${bytes}`);
  return data;
}

/** Cuts `text` to at most `max` UTF-16 code units (Telegram's count) at a grapheme boundary, ending in "…" when cut. */
export const cut = (text: string, max: number): string => shorten(text, max, 'utf16');

/** Group chats have negative ids (or are addressed by @username); private chats have the user's id. */
export function isGroupChat(chat: string): boolean {
  return chat.startsWith('-') || chat.startsWith('@');
}

/**
 * Per-chat send pacing, in this process only (several replicas pace independently; Telegram's
 * 429 `retry_after` is the backstop). Private chats: one send per `minIntervalMs`; groups
 * additionally at most {@link GROUP_MAX_PER_MINUTE} in any minute.
 */
export class ChatPacer {
  private readonly next = new Map<string, number>();
  private readonly recent = new Map<string, number[]>();
  /** Until when a 429 closed each chat. */
  private readonly blocked = new Map<string, number>();

  constructor(
    private readonly minIntervalMs: number,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /**
   * Takes the chat's next slot. Waits here when it is at most {@link MAX_INLINE_WAIT_MS} away;
   * otherwise throws a retryable ChannelError so the outbox reschedules the job, unless `force`.
   */
  async take(chat: string, force = false): Promise<void> {
    for (;;) {
      const now = this.now();
      const slot = this.slotOf(chat, now);
      const wait = slot - now;
      if (wait > MAX_INLINE_WAIT_MS) {
        if (force) return;
        throw new ChannelError(`paced: chat ${chat} has its next send slot in ${wait} ms`, false, wait, {
          channel: 'telegram',
        });
      }
      this.book(chat, slot);
      if (wait <= 0) return;
      await new Promise((r) => setTimeout(r, wait));
      // A 429 that came back for an earlier send while this one waited closes the chat past this
      // slot: sending now would probe Telegram's flood wait (and may lengthen it). Take a new slot.
      if ((this.blocked.get(chat) ?? 0) <= this.now()) return;
    }
  }

  /** Nothing may be sent to the chat before `atMs` (after a 429). */
  blockUntil(chat: string, atMs: number): void {
    this.blocked.set(chat, Math.max(this.blocked.get(chat) ?? 0, atMs));
    this.next.set(chat, Math.max(this.next.get(chat) ?? 0, atMs));
  }

  private slotOf(chat: string, now: number): number {
    let slot = Math.max(now, this.next.get(chat) ?? 0);
    const recent = (this.recent.get(chat) ?? []).filter((t) => t > now - 60_000);
    this.recent.set(chat, recent);
    if (isGroupChat(chat) && recent.length >= GROUP_MAX_PER_MINUTE)
      slot = Math.max(slot, recent[recent.length - GROUP_MAX_PER_MINUTE]! + 60_000);
    return slot;
  }

  private book(chat: string, at: number): void {
    this.next.set(chat, at + this.minIntervalMs);
    if (isGroupChat(chat)) this.recent.get(chat)!.push(at);
    else this.recent.delete(chat);
    if (this.next.size > 10_000) this.prune();
  }

  private prune(): void {
    const now = this.now();
    for (const [chat, at] of this.next) if (at < now && !this.recent.get(chat)?.length) this.next.delete(chat);
    for (const [chat, until] of this.blocked) if (until < now) this.blocked.delete(chat);
  }
}

/** True for the 400 Telegram gives when an edit would change nothing (counts as success). */
export function isNotModified(error: unknown): boolean {
  return error instanceof GrammyError && error.error_code === 400 && /message is not modified/i.test(error.description);
}

/**
 * Maps a Bot API failure to a {@link ChannelError}: 429 retries after `retry_after`; 403 (bot
 * blocked or kicked), 400 (chat not found, message to edit not found, any bad request) and 401/404
 * (token revoked) are permanent; 5xx, network errors and timeouts are retried.
 */
export function toChannelError(error: unknown, method: string): ChannelError {
  if (error instanceof ChannelError) return error;
  const context = { channel: 'telegram', method, cause: error };
  if (error instanceof GrammyError) {
    const what = `Telegram ${method} failed: ${error.error_code} ${error.description}`;
    if (error.error_code === 429)
      return new ChannelError(what, false, retryAfterMs(error.parameters?.retry_after, 1000), context);
    return new ChannelError(what, [400, 401, 403, 404].includes(error.error_code), undefined, context);
  }
  if (error instanceof HttpError)
    return new ChannelError(`Telegram ${method} failed: network error`, false, undefined, context);
  const name = error instanceof Error ? error.name : 'Error';
  return new ChannelError(
    `Telegram ${method} failed: ${name === 'AbortError' || name === 'TimeoutError' ? 'timed out' : 'unexpected error'}`,
    false,
    undefined,
    context,
  );
}

/** grammy's errors, described: the method, code and description (never the request URL, which holds the token). */
function describeGrammy(error: unknown): string | undefined {
  if (error instanceof GrammyError) return `${error.method}: ${error.error_code} ${error.description}`;
  if (error instanceof HttpError) return error.message;
  return undefined;
}

/** A log-safe description of an error (see {@link describeAny}), knowing grammy's error types. */
export function describeError(error: unknown): string {
  return describeAny(error, describeGrammy);
}

/**
 * An abort signal for one Bot API call that fires `ms` after the call starts, typed as grammy's.
 * grammy only reads `aborted` and adds one 'abort' listener for the call (removed when the call
 * ends), so the timer starts when the listener is added and stops when it is removed: a call
 * answered in time leaves no timer behind, and a webhook reply (no HTTP call) starts none.
 * `AbortSignal.timeout` cost ~1.5 KB per call (a signal, a WeakRef, a finalization record) and kept
 * its timer alive for the whole 15 s after every call, long enough to outlive young-generation GCs.
 */
export function deadline(ms: number): Parameters<Api['getMe']>[0] {
  return new CallDeadline(ms) as unknown as Parameters<Api['getMe']>[0];
}

type AbortListener = (event: { type: 'abort' }) => void;

/** The part of an `AbortSignal` grammy uses, armed while it has a listener; see {@link deadline}. */
export class CallDeadline {
  aborted = false;
  private readonly listeners: AbortListener[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number) {}

  addEventListener(type: string, listener: AbortListener): void {
    if (type !== 'abort' || this.aborted || this.listeners.includes(listener)) return;
    this.listeners.push(listener);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.fire(), this.ms);
      this.timer.unref();
    }
  }

  removeEventListener(type: string, listener: AbortListener): void {
    if (type !== 'abort') return;
    const at = this.listeners.indexOf(listener);
    if (at >= 0) this.listeners.splice(at, 1);
    if (this.listeners.length === 0 && this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private fire(): void {
    this.aborted = true;
    this.timer = undefined;
    for (const listener of this.listeners.splice(0)) listener({ type: 'abort' });
  }
}
