import { AskgateError, invalid } from './errors.js';
import { normalizeAnswers } from './answers.js';
import { LongPolls } from './long-poll.js';
import { deadlineOf, deliveriesToFinalize, isDone, isTerminal, newAskRecord, transition, type AskEvent, type Effect, type TransitionOutcome } from './lifecycle.js';
import type { AnswerRequest, AskRecord, AskRequest, Responder } from './schemas.js';
import type { AskStore, Channel, Clock, Logger, Metrics, Outbox, ResultBus, TimeoutScheduler, WebhookSender } from './ports.js';

/** Tunables of the gateway, all in one place (filled from config.ts). */
export interface GatewaySettings {
  defaultTimeoutSeconds: number;
  minTimeoutSeconds: number;
  maxTimeoutSeconds: number;
  /** How long terminal records are kept for late taps, GET and audit. */
  retentionMs: number;
  /** How long past the deadline the reconciler waits for the timeout job before acting itself. */
  graceMs: number;
  /** How soon the reconciler re-checks an ask that still has delivery or finalization work. */
  sweepDelayMs: number;
}

/** Everything the gateway talks to, as ports. */
export interface GatewayDeps {
  store: AskStore;
  bus: ResultBus;
  timeouts: TimeoutScheduler;
  outbox: Outbox;
  clock: Clock;
  channels: ReadonlyMap<string, Channel>;
  newId: () => string;
  metrics: Metrics;
  logger: Logger;
  settings: GatewaySettings;
  /** Sends signed webhooks; without it, asks with a `callbackUrl` are refused. */
  webhooks?: WebhookSender;
}

/** Result of applying an event: the record after it (null when unknown) and what it meant. */
export interface Applied {
  record: AskRecord | null;
  outcome: TransitionOutcome | { code: 'not_found' };
}

const MAX_CAS_ATTEMPTS = 64;

/**
 * The imperative shell around the pure lifecycle: reads a record, computes the transition,
 * commits it with one compare-and-set and then runs the effects through the ports.
 */
export class Gateway {
  private readonly polls: LongPolls;

  constructor(readonly deps: GatewayDeps) {
    this.polls = new LongPolls(deps.bus);
  }

  /** Clamps a requested timeout into the configured bounds. */
  clampTimeout(seconds: number | undefined): number {
    const { defaultTimeoutSeconds, minTimeoutSeconds, maxTimeoutSeconds } = this.deps.settings;
    return Math.min(maxTimeoutSeconds, Math.max(minTimeoutSeconds, seconds ?? defaultTimeoutSeconds));
  }

  /**
   * Creates an ask (superseding the run's pending one), schedules its timeout and queues its
   * delivery. With an idempotency key, every request carrying it returns the same record.
   */
  async ask(request: AskRequest, idempotency?: { key: string; requestHash: string }, presetId?: string): Promise<{ record: AskRecord; created: boolean }> {
    const { store, channels, settings, clock } = this.deps;
    if (request.to && !channels.has(request.to.channel)) {
      const enabled = [...channels.keys()];
      throw new AskgateError('channel_not_enabled', `channel "${request.to.channel}" is not enabled (enabled: ${enabled.join(', ') || 'none'})`, [
        { path: ['to', 'channel'], message: 'channel not enabled' },
      ]);
    }
    if (request.callbackUrl !== undefined) this.checkCallbackUrl(request.callbackUrl);
    const timeoutSeconds = this.clampTimeout(request.timeoutSeconds);
    let askId = presetId ?? this.deps.newId();
    if (idempotency) {
      const ttl = settings.retentionMs + settings.maxTimeoutSeconds * 1000;
      const claim = await store.claimIdempotencyKey(idempotency.key, idempotency.requestHash, askId, ttl);
      if (claim.requestHash !== idempotency.requestHash) {
        throw new AskgateError('idempotency_conflict', 'this Idempotency-Key was used with a different request body');
      }
      askId = claim.askId;
      const existing = await store.get(askId);
      if (existing) return { record: existing, created: false };
    }
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const now = clock.now();
      const { current, version } = await store.getRun(request.runId);
      const record = newAskRecord(request, askId, version + 1, timeoutSeconds, now, idempotency?.key);
      const superseding = current && !isTerminal(current) ? transition(current, { type: 'supersede' }, now) : null;
      const supersede = superseding?.kind === 'changed' && current ? { prev: current, next: superseding.record } : null;
      await store.markForSweep(askId, now + settings.sweepDelayMs);
      const result = await store.create({
        record,
        expectedVersion: version,
        supersede,
        ttlMs: deadlineOf(record) - now + settings.retentionMs,
        retentionMs: settings.retentionMs,
      });
      if (result.status === 'conflict') continue;
      if (result.status === 'exists') return { record: result.record, created: false };
      this.deps.metrics.askCreated(record.to?.channel ?? 'none');
      if (supersede && superseding?.kind === 'changed') await this.runEffects(supersede.next, superseding.effects);
      await this.deps.timeouts.schedule(askId, deadlineOf(record));
      await Promise.all(record.deliveries.map((_, index) => this.deps.outbox.enqueue({ kind: 'deliver', askId, index })));
      return { record: result.record, created: true };
    }
    throw new AskgateError('internal', 'too many concurrent asks on this run; retry');
  }

  /** Refuses a callbackUrl that could never be sent, carries credentials, or points where the webhook allow list refuses. */
  private checkCallbackUrl(callbackUrl: string): void {
    const refuse = (message: string) => new AskgateError('invalid_request', `callbackUrl: ${message}`, [{ path: ['callbackUrl'], message }]);
    if (!this.deps.webhooks) throw refuse('webhooks are not configured on this askgate (set ASKGATE_WEBHOOK_SECRET)');
    let url: URL;
    try {
      url = new URL(callbackUrl);
    } catch {
      throw refuse('must be an http(s) URL');
    }
    // Never echoed: the userinfo may be a password.
    if (url.username !== '' || url.password !== '') throw refuse('must not contain credentials (user:password@); authenticate the webhook by its signature');
    const refusal = this.deps.webhooks.refusal(url);
    if (refusal) throw refuse(refusal);
  }

  /** Reads an ask or throws 404. */
  async get(askId: string): Promise<AskRecord> {
    const record = await this.deps.store.get(askId);
    if (!record) throw new AskgateError('not_found', `no ask with id "${askId}"`);
    return record;
  }

  /** Answers (or skips) through the API; every question must be covered. */
  async answer(askId: string, request: AnswerRequest, by: Responder): Promise<AskRecord> {
    const record = await this.get(askId);
    if (isTerminal(record)) throw alreadyResolved(record);
    let event: AskEvent;
    if ('skip' in request) event = { type: 'skip', by };
    else {
      const checked = normalizeAnswers(record.questions, request.answers, true);
      if (!checked.ok) throw invalid('invalid_answer', checked.issues);
      event = { type: 'answer', answers: checked.answers, by };
    }
    return this.expectResolved(await this.apply(askId, event, record), askId);
  }

  /** Cancels a pending ask (agent cancelled). */
  async cancel(askId: string): Promise<AskRecord> {
    return this.expectResolved(await this.apply(askId, { type: 'cancel' }), askId);
  }

  /** The run was aborted: cancels its pending ask, if any. */
  async abortRun(runId: string): Promise<{ cancelled: AskRecord | null }> {
    const { current, version } = await this.deps.store.getRun(runId);
    if (version === 0) throw new AskgateError('not_found', `no run with id "${runId}"`);
    if (!current || isTerminal(current)) return { cancelled: null };
    const applied = await this.apply(current.id, { type: 'cancel' }, current);
    return { cancelled: applied.outcome.code === 'resolved' ? applied.record : null };
  }

  /** The run's current ask and its history, newest first. */
  async run(runId: string, limit = 20): Promise<{ current: AskRecord | null; history: AskRecord[] }> {
    const { current, version } = await this.deps.store.getRun(runId);
    if (version === 0) throw new AskgateError('not_found', `no run with id "${runId}"`);
    return { current, history: await this.deps.store.history(runId, limit) };
  }

  /**
   * Returns the record once it is terminal or `waitMs` passed. Subscribes before reading, so
   * a resolution between the read and the wait is never missed; works across processes.
   */
  async wait(askId: string, waitMs: number, signal?: AbortSignal): Promise<AskRecord> {
    const waiter = this.polls.open(askId, waitMs, signal);
    if (!waiter) return this.get(askId);
    try {
      const first = await this.get(askId);
      if (isTerminal(first)) return first;
      await waiter.woken;
      return await this.get(askId);
    } finally {
      waiter.close();
    }
  }

  /**
   * {@link ask}, then {@link wait} for the result, without the read `wait` starts with: the waiter
   * subscribes to the new id before the ask exists, so nothing can resolve unseen in between.
   */
  async askAndWait(
    request: AskRequest,
    idempotency: { key: string; requestHash: string } | undefined,
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<{ record: AskRecord; created: boolean }> {
    const askId = this.deps.newId();
    const waiter = this.polls.open(askId, waitMs, signal);
    try {
      const asked = await this.ask(request, idempotency, askId);
      // An Idempotency-Key replay returns the ask stored under another id: wait for that one.
      if (asked.record.id !== askId) return { record: await this.wait(asked.record.id, waitMs, signal), created: asked.created };
      if (!waiter || isTerminal(asked.record)) return asked;
      await waiter.woken;
      return { record: await this.get(askId), created: asked.created };
    } finally {
      waiter?.close();
    }
  }

  /**
   * Ends every long poll now with the record as it is (still pending), so a shutdown never waits
   * out `?wait`; the agent's next poll goes to another replica or the restarted one.
   */
  stopWaiting(): void {
    this.polls.stop();
  }

  /** True once {@link stopWaiting} was called (the process is shutting down). */
  get isStopping(): boolean {
    return this.polls.stopped;
  }

  /** Applies the timeout; called by the timeout job. A job that fires a little early waits. */
  async expire(askId: string): Promise<void> {
    const record = await this.deps.store.get(askId);
    if (!record || isTerminal(record)) return;
    const early = deadlineOf(record) - this.deps.clock.now();
    if (early > 0) await new Promise((r) => setTimeout(r, Math.min(early, 5_000)));
    await this.apply(askId, { type: 'timeout' }, record);
  }

  /**
   * Reads, transitions and commits with compare-and-set, retrying on conflicts; then runs the
   * effects. Every state change of an ask goes through here. `known`, the record as the caller
   * just read it, saves the first read: the compare-and-set rejects it when it is stale, and an
   * outcome that changes nothing is only ever reported from a fresh read.
   */
  async apply(askId: string, event: AskEvent, known?: AskRecord): Promise<Applied> {
    const { store, clock, settings } = this.deps;
    let hint = known?.id === askId ? known : undefined;
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const fromHint = hint !== undefined;
      const prev = hint ?? (await store.get(askId));
      hint = undefined;
      if (!prev) return { record: null, outcome: { code: 'not_found' } };
      const now = clock.now();
      const result = transition(prev, event, now);
      if (result.kind === 'unchanged') {
        if (fromHint) continue;
        return { record: prev, outcome: result.outcome };
      }
      const next = result.record;
      const terminalNow = isTerminal(next) && !isTerminal(prev);
      // Write-ahead: if we crash after the commit, the reconciler still finalizes the messages and
      // sends the webhook. The mark made at creation (createdAt + sweepDelay) is still in place
      // early in an ask's life, and it is the earlier one (the index keeps the lower score).
      if (terminalNow && !isDone(next) && !this.creationMarkStands(prev, now)) await store.markForSweep(askId, now + settings.sweepDelayMs);
      const ttlMs = isTerminal(next) ? settings.retentionMs : deadlineOf(next) - now + settings.retentionMs;
      const committed = await store.commit(prev, next, { ttlMs, publish: result.effects.includes('publish') });
      if (committed === 'conflict') continue;
      if (committed === 'missing') return { record: null, outcome: { code: 'not_found' } };
      // Nothing left for the reconciler: forget the ask now rather than sweep it later.
      if (isDone(next) && !isDone(prev)) await store.unmarkSweep(askId).catch(() => undefined);
      await this.runEffects(next, result.effects);
      return { record: next, outcome: result.outcome };
    }
    throw new AskgateError('internal', 'too much contention on this ask; retry');
  }

  /** Adds a note to an ask's history (a rejected reply, a hint); best effort, never throws. */
  async note(askId: string, entry: Extract<AskEvent, { type: 'note' }>['entry']): Promise<void> {
    try {
      await this.apply(askId, { type: 'note', entry });
    } catch (error) {
      this.deps.logger.warn({ askId, err: (error as Error).message }, 'could not record a history note');
    }
  }

  /**
   * True while the sweep mark written before the ask was created must still be in the index: the
   * reconciler only moves or removes a mark once it is due, and it is due at createdAt +
   * sweepDelay. Half the delay is kept as margin for clock skew between replicas.
   */
  private creationMarkStands(record: AskRecord, now: number): boolean {
    return now < Date.parse(record.createdAt) + this.deps.settings.sweepDelayMs / 2;
  }

  /** Runs post-commit effects; failures are logged, the reconciler repeats what is missing. */
  async runEffects(record: AskRecord, effects: readonly Effect[]): Promise<void> {
    if (effects.includes('publish') && record.result) {
      const opened = Date.parse(record.createdAt);
      const closed = Date.parse(record.result.status === 'answered' ? record.result.answeredAt : record.result.at);
      this.deps.metrics.askResolved(record.result.status, record.result.status === 'no_answer' ? record.result.reason : null, (closed - opened) / 1000);
    }
    const work: Promise<unknown>[] = [];
    if (effects.includes('cancel_timeout')) work.push(this.deps.timeouts.cancel(record.id));
    if (effects.includes('publish') && record.callbackUrl) work.push(this.deps.outbox.enqueue({ kind: 'webhook', askId: record.id, index: 0 }));
    if (effects.includes('finalize')) {
      for (const index of deliveriesToFinalize(record)) work.push(this.deps.outbox.enqueue({ kind: 'finalize', askId: record.id, index }));
      for (const d of record.deliveries) work.push(this.deps.store.removeFromConversation({ channel: d.channel, chat: d.chat }, record.id));
    }
    const results = await Promise.allSettled(work);
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    for (const r of failed) this.deps.logger.warn({ askId: record.id, err: String(r.reason) }, 'effect failed; the reconciler will retry');
    // Due now, whatever a reconciler pass that read the ask earlier decides (best effort: the
    // write-ahead mark made before the commit covers a crash).
    if (failed.length > 0) await this.deps.store.markForSweep(record.id, this.deps.clock.now()).catch(() => undefined);
  }

  private expectResolved(applied: Applied, askId: string): AskRecord {
    if (!applied.record) throw new AskgateError('not_found', `no ask with id "${askId}"`);
    if (applied.outcome.code === 'resolved') return applied.record;
    if (applied.outcome.code === 'invalid') throw invalid('invalid_answer', applied.outcome.issues);
    throw alreadyResolved(applied.record);
  }
}

/** The 409 for an ask that already has its result. */
export function alreadyResolved(record: AskRecord): AskgateError {
  const why = record.result?.status === 'no_answer' ? `ended without an answer (${record.result.reason})` : 'was already answered';
  return new AskgateError('already_resolved', `ask ${record.id} ${why}`, undefined, { result: record.result });
}
