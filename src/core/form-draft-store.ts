import { z } from 'zod';
import { ResponderSchema } from './schemas.js';

/** One question's part of a draft: chosen option indexes (0-based) and own words. */
export const DraftPartSchema = z.object({
  choices: z.array(z.number().int().min(0).max(3)).max(4),
  own: z.string().max(4096).optional(),
});
/** One question's part of a draft. */
export type DraftPart = z.output<typeof DraftPartSchema>;

/**
 * A form being answered on the message itself (Telegram's steps, edited in place): who holds it,
 * the step shown, every question's part so far. Stored per ask and message; read back with
 * {@link DraftSchema} (a stored draft is untrusted like any payload).
 */
export const DraftSchema = z.object({
  askId: z.string().min(1).max(24),
  version: z.number().int().positive(),
  holder: ResponderSchema,
  /** When the holder last tapped (epoch ms). */
  heldAt: z.number(),
  /** The question shown (0-based). */
  step: z.number().int().min(0).max(2),
  parts: z.array(DraftPartSchema).min(1).max(3),
  /** The question whose own words were asked for (the force-reply prompt), if any. */
  awaitingOwn: z.number().int().min(0).max(2).optional(),
  /** When the ask ends (epoch ms): the draft is kept no longer than the ask's record. */
  expiresAt: z.number(),
});
/** A form being answered on the message itself. */
export type Draft = z.output<typeof DraftSchema>;

/** Where a draft lives: the ask and the platform message whose keyboard shows it. */
export interface DraftKey {
  askId: string;
  chat: string;
  messageId: string;
}

/** A stored draft and its revision (for compare-and-set); `closed` once the message was finalized. */
export interface StoredDraft {
  rev: number;
  draft: Draft | null;
  closed: boolean;
}

/**
 * The drafts of forms answered on the message itself (Telegram's steps): one per ask and message,
 * changed by compare-and-set so two taps at once never lose one another, and kept no longer than
 * the ask's record (its end plus retention). A prompt asking for own words points at its draft.
 */
export interface FormDraftStore {
  /** The draft of a message, or null (never started or expired); an unreadable draft reads as `draft: null`. */
  get(key: DraftKey): Promise<StoredDraft | null>;
  /**
   * Writes `draft` if the stored revision is still `rev` (0: no draft yet) and the message was not
   * finalized; resolves with the new revision, `conflict` when another write came first (read again
   * and recompute) or `closed`.
   */
  put(key: DraftKey, rev: number, draft: Draft): Promise<number | 'conflict' | 'closed'>;
  /**
   * Marks the draft of a message finalized (before the outcome edit), so a keyboard edit racing
   * the outcome sees it and takes its keyboard away again. Nothing to mark when there is no draft.
   */
  close(key: DraftKey): Promise<void>;
  /** Remembers that the message `promptId` in `chat` asks for own words for the draft at `key`. */
  pointOwn(chat: string, promptId: string, key: DraftKey, expiresAt: number): Promise<void>;
  /** The draft a reply to the message `promptId` in `chat` gives own words to, if any. */
  ownOf(chat: string, promptId: string): Promise<DraftKey | null>;
}
