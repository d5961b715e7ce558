import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { channelFor, memoryLogger, newUser } from './telegram-world.js';
import { MemoryFormDrafts } from '../../src/store/memory-form-drafts.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { outcomeView } from '../../src/core/outcome-view.js';
import { newAskRecord } from '../../src/core/lifecycle.js';
import type { DraftKey, StoredDraft } from '../../src/core/form-draft-store.js';
import { RecordingSink } from '../contracts/channel.contract.js';
import { encodeToken } from '../../src/core/token.js';
import type { TelegramChannel } from '../../src/channels/telegram/telegram-channel.js';
import type { Question } from '../../src/core/schemas.js';

/** A draft store that counts the `close` calls a finalize makes (each is a Redis command in durable mode). */
class CountingDrafts extends MemoryFormDrafts {
  readonly closes: DraftKey[] = [];
  readonly reads: DraftKey[] = [];
  override async get(key: DraftKey): Promise<StoredDraft | null> {
    this.reads.push(key);
    return super.get(key);
  }
  override async close(key: DraftKey): Promise<void> {
    this.closes.push(key);
    await super.close(key);
  }
}

const env: Question = { id: 'env', question: 'Where?', multiSelect: false, options: [{ label: 'A' }, { label: 'B' }] };
const checks: Question = { ...env, id: 'checks', multiSelect: true };

let fake: FakeTelegramApi;
let channel: TelegramChannel;
const drafts = new CountingDrafts({ retentionMs: 60_000 });
const sink = new RecordingSink();

beforeAll(async () => {
  fake = await FakeTelegramApi.start();
  channel = channelFor(fake, memoryLogger(), { minSendIntervalMs: 0 });
  channel.useFormDrafts(drafts);
  await channel.start(sink);
});
afterAll(async () => {
  await channel?.stop();
  await fake?.close();
});

/** Delivers an ask of `questions` to a fresh chat, answers it through the API shape, and finalizes it. */
async function deliverAndFinalize(id: string, questions: Question[]) {
  const user = newUser(fake, 'Ann');
  const record = newAskRecord({ runId: `r-${id}`, questions }, id, 1, 60, Date.now());
  const view = buildPromptView(record);
  const ref = await channel.deliver({
    askId: id,
    version: 1,
    target: { channel: 'telegram', chat: String(user.id) },
    view,
  });
  const ended = {
    ...record,
    status: 'no_answer' as const,
    result: { status: 'no_answer' as const, reason: 'cancelled' as const, at: new Date().toISOString() },
  };
  await channel.finalize(ref, outcomeView(ended), view);
  return ref;
}

describe('the draft a finalize closes', () => {
  it('a prompt with buttons has no draft: its finalize costs no draft command', async () => {
    await deliverAndFinalize('ButtonsAsk0001', [env]);
    expect(drafts.closes).toEqual([]);
  });

  it('a prompt answered on its keyboard closes its draft before the outcome edit', async () => {
    const ref = await deliverAndFinalize('DraftAsk000001', [env, checks]);
    expect(drafts.closes.filter((k) => k.askId === 'DraftAsk000001')).toEqual([
      expect.objectContaining({ messageId: ref.messageId }),
    ]);
  });

  it('a Skip on a prompt with buttons reads no draft (only a draft keyboard can be held)', async () => {
    const user = newUser(fake, 'Bo');
    const record = newAskRecord({ runId: 'r-skip', questions: [env] }, 'SkipAsk0000001', 1, 60, Date.now());
    const view = buildPromptView(record);
    const target = { channel: 'telegram', chat: String(user.id) };
    const ref = await channel.deliver({ askId: record.id, version: 1, target, view });
    const skip = encodeToken({ askId: record.id, version: 1, choice: { kind: 'skip' } });
    expect(await fake.answerOf(fake.tap(user.id, ref.messageId, skip, user))).not.toBeNull();
    expect(sink.buttons.map((b) => b.token)).toContain(skip);
    expect(drafts.reads.filter((k) => k.askId === record.id)).toEqual([]);
  });
});
