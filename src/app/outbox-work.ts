import { ChannelError, type OutboxHandlers, type OutboxJob } from './ports.js';
import { deadlineOf, deliveriesToFinalize, isDone, isTerminal, webhookSettled } from './lifecycle.js';
import { buildPromptView, outcomeView } from './prompt-view.js';
import type { Gateway } from './gateway.js';

/**
 * Delivery, finalization and reconciliation work, run by the outbox and the reconciler.
 * Each step re-reads the record, so a job that runs twice does nothing the second time.
 */
export class OutboxWork implements OutboxHandlers {
  constructor(private readonly gateway: Gateway) {}

  /** Runs one outbox job; throws to retry. */
  async run(job: OutboxJob): Promise<void> {
    if (job.kind === 'deliver') await this.deliver(job.askId, job.index);
    else if (job.kind === 'webhook') await this.webhook(job.askId);
    else await this.finalize(job.askId, job.index);
  }

  /** Marks the delivery failed (the ask ends `undelivered` when every target failed) or the finalization given up. */
  async giveUp(job: OutboxJob, error: Error): Promise<void> {
    const { logger, metrics } = this.gateway.deps;
    logger.warn({ askId: job.askId, job: job.kind, index: job.index, err: error.message }, `${job.kind} gave up`);
    if (job.kind === 'webhook') {
      await this.gateway.note(job.askId, { type: 'webhook_failed', detail: error.message.slice(0, 300) });
    } else if (job.kind === 'deliver') {
      const record = await this.gateway.deps.store.get(job.askId);
      const channel = record?.deliveries[job.index]?.channel;
      if (channel) metrics.deliveryFailed(channel);
      await this.gateway.apply(job.askId, { type: 'delivery_failed', index: job.index, error: error.message.slice(0, 300) });
    } else {
      await this.gateway.apply(job.askId, { type: 'finalized', index: job.index, ok: false });
    }
  }

  private async deliver(askId: string, index: number): Promise<void> {
    const { store, channels, clock, settings } = this.gateway.deps;
    const record = await store.get(askId);
    const delivery = record?.deliveries[index];
    if (!record || !delivery || delivery.status !== 'pending') return;
    if (isTerminal(record)) {
      await this.gateway.apply(askId, { type: 'delivery_failed', index, error: 'not sent: the ask ended before delivery' });
      return;
    }
    const channel = channels.get(delivery.channel);
    if (!channel || !record.to) throw new ChannelError(`channel "${delivery.channel}" is not enabled`, true);
    const conv = { channel: delivery.channel, chat: delivery.chat };
    // Index the conversation before sending, so a reply racing the send still finds its ask.
    await store.addToConversation(conv, askId, deadlineOf(record));
    const message = await channel.deliver({ askId, version: record.version, target: record.to, view: buildPromptView(record) });
    await store.bindMessage(conv, message.messageId, askId, deadlineOf(record) - clock.now() + settings.retentionMs);
    const applied = await this.gateway.apply(askId, { type: 'delivered', index, message }, record);
    // The ask may have ended while the message was in flight: show the outcome right away.
    if (applied.record && isTerminal(applied.record) && deliveriesToFinalize(applied.record).includes(index)) {
      await this.gateway.deps.outbox.enqueue({ kind: 'finalize', askId, index });
    }
  }

  private async finalize(askId: string, index: number): Promise<void> {
    const { store, channels } = this.gateway.deps;
    const record = await store.get(askId);
    const delivery = record?.deliveries[index];
    if (!record || !delivery?.message || delivery.finalized !== 'no' || !isTerminal(record)) return;
    const channel = channels.get(delivery.channel);
    if (!channel) throw new ChannelError(`channel "${delivery.channel}" is not enabled`, true);
    await channel.finalize(delivery.message, outcomeView(record), buildPromptView(record));
    await this.gateway.apply(askId, { type: 'finalized', index, ok: true }, record);
  }

  /** POSTs the terminal result to the ask's callbackUrl once; a job that runs again after success does nothing. */
  private async webhook(askId: string): Promise<void> {
    const record = await this.gateway.deps.store.get(askId);
    if (!record?.callbackUrl || !record.result || webhookSettled(record)) return;
    const sender = this.gateway.deps.webhooks;
    if (!sender) throw new ChannelError('webhooks are not configured (ASKGATE_WEBHOOK_SECRET)', true);
    const payload = { askId, runId: record.runId, version: record.version, result: record.result };
    const { status } = await sender.send(record.callbackUrl, payload);
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
    const { store, clock, settings, outbox, timeouts } = this.gateway.deps;
    const record = await store.get(askId);
    if (!record) return store.unmarkSweep(askId);
    const now = clock.now();
    const reschedule = async (atMs: number) => void (await store.rescheduleSweep(askId, atMs, seenAt));
    if (!isTerminal(record)) {
      const deadline = deadlineOf(record);
      if (now >= deadline + settings.graceMs) {
        await this.gateway.apply(askId, { type: 'timeout' });
        return reschedule(now + settings.sweepDelayMs);
      }
      const undelivered = record.deliveries.flatMap((d, index) => (d.status === 'pending' ? [index] : []));
      await Promise.all(undelivered.map((index) => outbox.enqueue({ kind: 'deliver', askId, index })));
      await timeouts.schedule(askId, deadline);
      return reschedule(undelivered.length > 0 ? Math.min(now + settings.sweepDelayMs, deadline + settings.graceMs) : deadline + settings.graceMs);
    }
    if (isDone(record)) return store.unmarkSweep(askId);
    const work = [
      ...(webhookSettled(record) ? [] : [outbox.enqueue({ kind: 'webhook', askId, index: 0 })]),
      ...deliveriesToFinalize(record).map((index) => outbox.enqueue({ kind: 'finalize', askId, index })),
      ...record.deliveries.flatMap((d, index) => (d.status === 'pending' ? [outbox.enqueue({ kind: 'deliver', askId, index })] : [])),
    ];
    await Promise.all(work);
    await reschedule(now + settings.sweepDelayMs);
  }
}
