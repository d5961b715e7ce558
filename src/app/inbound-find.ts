// Which ask a text message answers: the one its reply-to message belongs to, or, in a private chat,
// the one pending there (routing rules in docs/ARCHITECTURE.md).
import type { AskIndexes, AskStore, Clock, ConversationKey, InboundOutcome, TextReceived } from '../core/ports.js';
import { deadlineOf } from '../core/lifecycle.js';
import { keptForMs } from '../core/retention.js';
import type { AskRecord } from '../core/schemas.js';
import type { Words } from '../core/i18n/index.js';
import { spoken } from '../core/notices.js';
import { noticeFor } from '../core/outcome-view.js';

/** What finding the ask reads: the store, the message bindings, the clock. */
interface FindDeps {
  store: Pick<AskStore, 'get'>;
  indexes: Pick<AskIndexes, 'findByMessage' | 'pendingInConversation'>;
  clock: Clock;
}

/** The ask `event` answers, or what to tell the person (`words`: theirs, before any ask is known). */
export async function findAsk(
  { store, indexes, clock }: FindDeps,
  event: TextReceived,
  words: Words,
): Promise<{ kind: 'found'; record: AskRecord } | { kind: 'none'; outcome: InboundOutcome }> {
  const conv = { channel: event.channel, chat: event.chat };
  let askId: string | null = null;
  if (event.replyTo) askId = await indexes.findByMessage(conv, event.replyTo);
  // In a private chat a message that replies to nothing of ours is still "the next message".
  if (!askId && event.privateChat) {
    const pending = await indexes.pendingInConversation(conv, clock.now());
    if (pending.length > 1)
      return { kind: 'none', outcome: spoken({ kind: 'ambiguous', summary: words.t('notice.ambiguous') }, words) };
    askId = pending[0] ?? null;
  }
  if (!askId) return { kind: 'none', outcome: { kind: 'ignored' } };
  const record = await store.get(askId);
  if (!record)
    return {
      kind: 'none',
      outcome: spoken({ kind: 'not_found', summary: noticeFor(null, 'not_found', {}, words) }, words),
    };
  return { kind: 'found', record };
}

/** What binding a follow-up reads and writes: the store, the message bindings, the clock, the retention. */
interface BindDeps {
  store: Pick<AskStore, 'get'>;
  indexes: Pick<AskIndexes, 'bindMessage'>;
  clock: Clock;
  retentionMs: number;
}

/** Binds a follow-up message askgate sent (a hint, a prompt for the rest) to its ask until its deadline plus retention. */
export async function bindFollowUp(
  { store, indexes, clock, retentionMs }: BindDeps,
  conv: ConversationKey,
  messageId: string,
  askId: string,
): Promise<void> {
  const record = await store.get(askId);
  if (!record) return;
  await indexes.bindMessage(conv, messageId, askId, keptForMs(deadlineOf(record), clock.now(), retentionMs));
}
