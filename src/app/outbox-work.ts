import {
  ChannelError,
  type AskIndexes,
  type AskStore,
  type Channel,
  type Clock,
  type Logger,
  type Metrics,
  type OutboxHandlers,
  type OutboxJob,
  type RenderedWebhook,
  type StepHandlers,
  type SweepEntry,
  type WebhookSender,
} from '../core/ports.js';
import { deadlineOf, isTerminal, targetOf } from '../core/lifecycle.js';
import { buildPromptView, type PromptView } from '../core/prompt-view.js';
import { outcomeView } from '../core/outcome-view.js';
import { reminderText } from '../core/policy-view.js';
import { wordsOf, type ChannelNames, type Words } from '../core/i18n/index.js';
import type { Step } from '../core/effects.js';
import { stillOwed, workFor, type WorkSettings } from '../core/work.js';
import { keptForMs } from '../core/retention.js';
import type { BatchItem, EffectRunner } from './effect-runner.js';
import { judgeAsk } from './kept-copy.js';
import type { Gateway } from './gateway.js';
import type { AskRecord, MessageRef, Target } from '../core/schemas.js';

/** What the outbox work and the reconciler's sweep talk to. */
export interface OutboxWorkDeps {
  /** Commits the bookkeeping of each step. */
  gateway: Pick<Gateway, 'apply' | 'note'>;
  /** `ordered` (one ordered connection): the message binding is sent together with the `delivered` commit. */
  store: Pick<AskStore, 'ordered' | 'get' | 'kept' | 'getMany'>;
  indexes: Pick<AskIndexes, 'addToConversation' | 'bindMessage' | 'unmarkSweep'>;
  runner: Pick<EffectRunner, 'strict' | 'strictMany'>;
  /** The handler of each step, run when the reconciler finds its job lost. */
  steps: StepHandlers;
  channels: ReadonlyMap<string, Channel>;
  clock: Clock;
  metrics: Pick<Metrics, 'deliveryFailed'>;
  logger: Pick<Logger, 'warn'>;
  /** `defaultLocale`: the language of asks without a locale (ASKGATE_DEFAULT_LOCALE; English when absent). */
  settings: WorkSettings & { retentionMs: number; defaultLocale?: string; channelNames?: ChannelNames };
  webhooks?: Pick<WebhookSender, 'send'>;
  /** Renders the result of an ask whose `push` asks for another protocol's body (A2A); null to send askgate's own. */
  renderPush?: (record: AskRecord) => Promise<RenderedWebhook | null>;
  /** The answer page's URL for a delivery's target (src/links/, when ASKGATE_PUBLIC_URL is set), put on its open prompt's view. */
  pageLink?: (record: AskRecord, target: Target) => string | undefined;
}

/**
 * Delivery, finalization and reconciliation work, run by the outbox and the reconciler.
 * Each job reads the record, so a job that runs twice does nothing the second time; a job run
 * in-process right after the commit that queued it (`justQueued`) starts from the store's kept
 * copy instead ({@link judgeAsk}): no other run of it can have started, as the commit made it
 * newly needed, and a copy that finds nothing owed is checked on a fresh read.
 */
export class OutboxWork implements OutboxHandlers {
  private readonly gateway: OutboxWorkDeps['gateway'];

  constructor(private readonly deps: OutboxWorkDeps) {
    this.gateway = deps.gateway;
  }

  /** What everyone in an ask's conversations reads: the ask's locale, else the configured default. */
  private words(record: AskRecord): Words {
    return wordsOf(record, this.deps.settings.defaultLocale, this.deps.settings.channelNames);
  }

  /** The open prompt of delivery `index` as `channel` draws it, with the answer page's link when it shows links. */
  private openView(record: AskRecord, index: number, channel: Channel): PromptView {
    const view = buildPromptView(record, this.words(record), channel.capabilities);
    const target = channel.capabilities?.links !== false ? targetOf(record, index) : null;
    const link = target && this.deps.pageLink?.(record, target);
    return link ? { ...view, link } : view;
  }

  /** Runs one outbox job; throws to retry. */
  async run(job: OutboxJob, justQueued = false): Promise<void> {
    if (job.kind === 'deliver') await this.deliver(job.askId, job.index, justQueued);
    else if (job.kind === 'webhook') await this.webhook(job.askId, justQueued);
    else if (job.kind === 'remind') await this.remind(job.askId, job.index, job.n, justQueued);
    else if (job.kind === 'refresh') await this.refresh(job.askId, job.index);
    else await this.finalize(job.askId, job.index, justQueued);
  }

  /**
   * The record when `job` is still owed on it, else null: from the kept copy when the job was
   * `justQueued` (a copy that finds it not owed is checked on a fresh read), else read.
   */
  private owed(askId: string, job: Parameters<typeof stillOwed>[1], justQueued: boolean): Promise<AskRecord | null> {
    const { store, clock } = this.deps;
    const owedOn = (record: AskRecord | null) => (record && stillOwed(record, job, clock.now()) ? record : null);
    return judgeAsk(store, askId, owedOn, (record) => record !== null, justQueued);
  }

  /** Marks the delivery failed (the ask ends `undelivered` when every target failed) or the finalization given up. */
  async giveUp(job: OutboxJob, error: Error): Promise<void> {
    const { logger, metrics } = this.deps;
    logger.warn({ askId: job.askId, job: job.kind, index: job.index, err: error.message }, `${job.kind} gave up`);
    if (job.kind === 'webhook') {
      await this.gateway.note(job.askId, { type: 'webhook_failed', detail: error.message.slice(0, 300) });
    } else if (job.kind === 'remind') {
      // Given up: noted like a posted one, so the reconciler does not queue it again.
      await this.gateway.apply(job.askId, { type: 'reminder_posted', index: job.index, n: job.n });
    } else if (job.kind === 'refresh') {
      // Nothing to record: the next refresh or the final edit shows the current state.
    } else if (job.kind === 'deliver') {
      const record = await this.deps.store.get(job.askId);
      const channel = record?.deliveries[job.index]?.channel;
      if (channel) metrics.deliveryFailed(channel);
      await this.gateway.apply(job.askId, {
        type: 'delivery_failed',
        index: job.index,
        error: error.message.slice(0, 300),
      });
    } else {
      await this.gateway.apply(job.askId, { type: 'finalized', index: job.index, ok: false });
    }
  }

  private async deliver(askId: string, index: number, justQueued: boolean): Promise<void> {
    const { store, indexes, channels, clock, settings } = this.deps;
    const record = await this.owed(askId, { kind: 'deliver', index }, justQueued);
    const delivery = record?.deliveries[index];
    if (!record || !delivery) return;
    if (isTerminal(record)) {
      await this.gateway.apply(askId, {
        type: 'delivery_failed',
        index,
        error: 'not sent: the ask ended before delivery',
      });
      return;
    }
    const channel = channels.get(delivery.channel);
    const target = targetOf(record, index);
    if (!channel || !target) throw new ChannelError(`channel "${delivery.channel}" is not enabled`, true);
    const conv = { channel: delivery.channel, chat: delivery.chat };
    // Index the conversation before sending, so a reply racing the send still finds its ask.
    await indexes.addToConversation(conv, askId, deadlineOf(record));
    const message = await channel.deliver({
      askId,
      version: record.version,
      target,
      view: this.openView(record, index, channel),
      expiresAt: record.expiresAt,
    });
    const bind = () =>
      indexes.bindMessage(
        conv,
        message.messageId,
        askId,
        keptForMs(deadlineOf(record), clock.now(), settings.retentionMs),
      );
    // If the ask ended while the message was in flight, this commit queues its outcome edit (work.ts).
    const commit = () => this.gateway.apply(askId, { type: 'delivered', index, message });
    if (!store.ordered) {
      await bind();
      await commit();
      return;
    }
    // Sent together: the binding lands first on the one connection. A binding that failed is
    // made again once (a reply quoting the message finds its ask through it).
    const [bound, committed] = await Promise.allSettled([bind(), commit()]);
    if (committed.status === 'rejected') throw committed.reason;
    if (bound.status === 'rejected') await bind();
  }

  private async finalize(askId: string, index: number, justQueued: boolean): Promise<void> {
    const record = await this.owed(askId, { kind: 'finalize', index }, justQueued);
    await this.finalizeOn(record, index);
  }

  /** Shows the outcome on delivery `index`'s message of `record` (one that still owes it), and records it. */
  private async finalizeOn(record: AskRecord | null, index: number): Promise<void> {
    const delivery = record?.deliveries[index];
    if (!record || !delivery?.message) return;
    const channel = this.deps.channels.get(delivery.channel);
    if (!channel) throw new ChannelError(`channel "${delivery.channel}" is not enabled`, true);
    await this.showOutcome(channel, delivery.message, record);
    await this.gateway.apply(record.id, { type: 'finalized', index, ok: true });
  }

  /**
   * Shows an ended ask's outcome on a delivered message: edited in, or, on a channel that cannot
   * edit (`capabilities.edits` false), posted as a new message (once: the `finalized` commit after
   * it makes a second run of the job find nothing owed).
   */
  private async showOutcome(channel: Channel, ref: MessageRef, record: AskRecord): Promise<void> {
    const words = this.words(record);
    const outcome = outcomeView(record, words);
    const view = buildPromptView(record, words, channel.capabilities);
    if (channel.capabilities?.edits !== false) return channel.finalize(ref, outcome, view);
    if (!channel.post) throw new ChannelError(`channel "${channel.name}" can neither edit nor post an outcome`, true);
    await channel.post(ref, outcome, view);
  }

  /**
   * Posts reminder `n` under delivery `index`'s message, once: skipped when the ask ended, the
   * deadline passed or this message already showed it; replies to the reminder count as replies.
   */
  private async remind(askId: string, index: number, n: number, justQueued: boolean): Promise<void> {
    const { store, channels, indexes, clock, settings } = this.deps;
    const job = { kind: 'remind', index, n } as const;
    const record = await this.owed(askId, job, justQueued);
    const delivery = record?.deliveries[index];
    const now = clock.now();
    if (!record || !delivery?.message) return;
    const channel = channels.get(delivery.channel);
    if (!channel) throw new ChannelError(`channel "${delivery.channel}" is not enabled`, true);
    const stillOpen = async () => {
      const current = await store.get(askId);
      return current !== null && stillOwed(current, job, clock.now());
    };
    const posted = await channel.remind(delivery.message, reminderText(record, now, this.words(record)), stillOpen);
    if (!posted) return; // the ask ended while the channel waited for its rate limit
    const conv = { channel: delivery.channel, chat: delivery.chat };
    await indexes.bindMessage(conv, posted.messageId, askId, keptForMs(deadlineOf(record), now, settings.retentionMs));
    await this.gateway.apply(askId, { type: 'reminder_posted', index, n });
  }

  /** Indexes delivery `index`'s conversation and message again, until the record's deadline (+ retention). */
  private async reindex(record: AskRecord, index: number, messageId: string): Promise<void> {
    const { indexes, clock, settings } = this.deps;
    const { channel, chat } = record.deliveries[index]!;
    const until = deadlineOf(record);
    await indexes.addToConversation({ channel, chat }, record.id, until);
    await indexes.bindMessage(
      { channel, chat },
      messageId,
      record.id,
      keptForMs(until, clock.now(), settings.retentionMs),
    );
  }

  /** Re-renders delivery `index`'s open message (the tally); an ended ask gets its final edit instead. */
  private async refresh(askId: string, index: number): Promise<void> {
    const { store, channels, clock } = this.deps;
    const record = await store.get(askId);
    const delivery = record?.deliveries[index];
    if (!record || !delivery?.message || !stillOwed(record, { kind: 'refresh', index }, clock.now())) return;
    const channel = channels.get(delivery.channel);
    if (!channel) throw new ChannelError(`channel "${delivery.channel}" is not enabled`, true);
    // A moved deadline (extend): the conversation's index and the message's binding live as long
    // as the ask now may (they were made for the old deadline).
    if (record.extended) await this.reindex(record, index, delivery.message.messageId);
    // A message that cannot be edited keeps what it showed: its outcome comes as a new message.
    if (channel.capabilities?.edits === false) return;
    const target = delivery.users ? { users: delivery.users } : undefined;
    await channel.refresh(delivery.message, this.openView(record, index, channel), target);
    // The ask may have ended while the refresh was in flight. Its outcome edit not made yet: made
    // here, and recorded, so the finalize job then finds nothing to do. Made already (it may have
    // landed first): the refresh showed buttons again, so the outcome is shown once more over it.
    const after = await store.get(askId);
    if (after && isTerminal(after)) {
      if (stillOwed(after, { kind: 'finalize', index }, clock.now())) return this.finalizeOn(after, index);
      const words = this.words(after);
      await channel.finalize(
        delivery.message,
        outcomeView(after, words),
        buildPromptView(after, words, channel.capabilities),
      );
    }
  }

  /** POSTs the terminal result to the ask's callbackUrl once; a job that runs again after success does nothing. */
  private async webhook(askId: string, justQueued: boolean): Promise<void> {
    const record = await this.owed(askId, { kind: 'webhook', index: 0 }, justQueued);
    if (!record) return;
    // An owed webhook has both (the ask ended and has a callbackUrl); checked again for the types.
    if (!record.callbackUrl || !record.result) return;
    const sender = this.deps.webhooks;
    if (!sender) throw new ChannelError('webhooks are not configured (ASKGATE_WEBHOOK_SECRET)', true);
    const payload = { askId, runId: record.runId, version: record.version, result: record.result };
    const rendered = (record.push && (await this.deps.renderPush?.(record))) || undefined;
    const { status } = await sender.send(record.callbackUrl, payload, rendered);
    await this.gateway.note(askId, { type: 'webhook_delivered', detail: `HTTP ${status}` });
  }

  /**
   * The reconciler's look at one ask: expires it when its timeout job was lost, re-queues
   * missing delivery and finalization work, and drops it from the index once settled. `seenAt`
   * is the sweep time the ask was listed at: the next one is only written if nobody marked the
   * ask meanwhile, since that mark may be an answer's write-ahead mark made after the record was
   * read here (pushing it back to the deadline would leave the message unedited until then).
   */
  async sweep(askId: string, seenAt?: number): Promise<void> {
    const { store, indexes, clock, settings, runner } = this.deps;
    const record = await store.get(askId);
    if (!record) return indexes.unmarkSweep(askId);
    await runner.strict(askId, workFor(record, clock.now(), settings), this.runDue, seenAt);
  }

  /**
   * {@link sweep} of a batch of asks, in a few round trips (one read of all records, one check and
   * add of their step jobs, one write of their next sweep times). Returns, per ask, what stopped its
   * sweep (it stays due), or null. A read that fails sweeps each ask alone, so one bad record stops
   * only its own sweep.
   */
  async sweepMany(entries: readonly SweepEntry[]): Promise<unknown[]> {
    const { store, clock, settings, runner } = this.deps;
    const records = await store.getMany(entries.map((e) => e.askId)).catch(() => null);
    if (!records)
      return Promise.all(
        entries.map((e) =>
          this.sweep(e.askId, e.at).then(
            () => null,
            (err: unknown) => err,
          ),
        ),
      );
    const now = clock.now();
    const items = entries.map((e, i): BatchItem => {
      const record = records[i];
      return { askId: e.askId, seenAt: e.at, effects: record ? workFor(record, now, settings) : [{ type: 'unsweep' }] };
    });
    return runner.strictMany(items, this.runDue);
  }

  /**
   * Runs a step whose job was lost (`step` comes from the core, never from stored data); it is
   * past its time + grace, so it is never early (with clocks apart, the next look catches it).
   */
  private readonly runDue = async (askId: string, step: Step): Promise<void> => {
    await this.deps.steps[step](askId);
  };
}
