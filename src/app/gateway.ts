import { AskgateError, invalid } from '../core/errors.js';
import { normalizeAnswers } from '../core/answers.js';
import { strictContext } from '../core/questions/index.js';
import { asSent, decideEvent } from './answer-events.js';
import { isTerminal, transition, type AskEvent, type TransitionOutcome } from '../core/lifecycle.js';
import type { AnswerRequest, AskRecord, AskRequest, PushConfig, Responder } from '../core/schemas.js';
import type { AskStore, Clock, Logger, NotYet, WebhookSender } from '../core/ports.js';
import { commitPlan, type WorkSettings } from '../core/work.js';
import type { Step } from '../core/effects.js';
import { stepCall } from '../core/step-due.js';
import { recordTtlMs } from '../core/retention.js';
import type { ChannelNames } from '../core/i18n/index.js';
import { foldFor, MAX_CAS_ATTEMPTS, openAsk } from './open-ask.js';
import { judgeAsk, keptOrFresh } from './kept-copy.js';
import type { EffectRunner } from './effect-runner.js';
import type { LongPolls } from './long-poll.js';
import type { ListAsksQuery } from '../core/ask-listing.js';
import { listPendingAsks, type AskListing } from './ask-listing.js';
import { recordGuardBlocked } from './guard-blocked.js';
import type { ExtendBy, TimeoutBounds } from '../core/deadline.js';
import { extendAsk } from './extend-ask.js';

/** Tunables of the gateway, all in one place (filled from config.ts). */
export interface GatewaySettings extends WorkSettings {
  /** The bounds of an ask's wait: default, least, most without and with a way back (core/deadline.ts). */
  timeouts: TimeoutBounds;
  /** How long terminal records are kept for late taps, GET and audit. */
  retentionMs: number;
  /** The language of asks without a locale (ASKGATE_DEFAULT_LOCALE); English when absent. */
  defaultLocale?: string;
  /** How the chat channels are named in outcome lines and notices (main.ts: the channel registry's). */
  channelNames?: ChannelNames;
}

/** What the gateway talks to. */
export interface GatewayDeps {
  /**
   * `ordered` (standalone Redis, memory): index writes ride inside the create or commit
   * ({@link foldFor}) instead of being awaited before or run after it.
   */
  store: Pick<
    AskStore,
    'ordered' | 'claimIdempotencyKey' | 'create' | 'get' | 'kept' | 'getRun' | 'history' | 'commit' | 'pendingAsks'
  >;
  /** Interprets the effects of every change. */
  runner: Pick<EffectRunner, 'strict' | 'settle' | 'ahead'>;
  polls: LongPolls;
  clock: Clock;
  /** Names of the enabled channels. */
  channels: { has(name: string): boolean; keys(): Iterable<string> };
  newId: () => string;
  logger: Pick<Logger, 'warn'>;
  settings: GatewaySettings;
  /** Checks callbackUrls; without it, asks with a `callbackUrl` are refused. */
  webhooks?: Pick<WebhookSender, 'refusal'>;
}

/** Result of applying an event: the record after it (null when unknown) and what it meant. */
export interface Applied {
  record: AskRecord | null;
  outcome: TransitionOutcome | { code: 'not_found' };
}

/**
 * The imperative shell around the pure lifecycle: reads a record, computes the transition and
 * its plan (core/work.ts), commits it with one compare-and-set and hands the effects to the runner.
 */
export class Gateway {
  private readonly polls: LongPolls;

  constructor(private readonly deps: GatewayDeps) {
    this.polls = deps.polls;
  }

  /**
   * Creates an ask (superseding the run's pending one), schedules its timeout and queues its
   * delivery. With an idempotency key, every request carrying it returns the same record.
   */
  async ask(
    request: AskRequest,
    idempotency?: { key: string; requestHash: string },
    presetId?: string,
    /** How an A2A client wants its result pushed to the callbackUrl. */
    push?: PushConfig,
  ): Promise<{ record: AskRecord; created: boolean }> {
    return openAsk(this.deps, request, idempotency, presetId, push);
  }

  /** Moves a pending ask's deadline (`POST /v1/asks/:id/extend`); 409 `not_pending` once it ended. */
  async extend(askId: string, by: ExtendBy, who: Responder): Promise<AskRecord> {
    return extendAsk(this.deps, this, askId, by, who);
  }

  /** Reads an ask or throws 404. */
  async get(askId: string): Promise<AskRecord> {
    const record = await this.deps.store.get(askId);
    if (!record) throw noAsk(askId);
    return record;
  }

  /**
   * Answers (or skips) through the API; every question must be covered. With `agree` > 1 the
   * answer is one response (the ask may stay open) and a skip is refused.
   */
  async answer(askId: string, request: AnswerRequest, by: Responder): Promise<AskRecord> {
    // A kept copy's questions never change; one that says the ask ended is read again (judgeAsk:
    // the record may be gone, a 404 rather than a 409).
    const pending = (r: AskRecord | null) => r !== null && !isTerminal(r);
    const record = await judgeAsk(this.deps.store, askId, (r) => r, pending);
    if (!record) throw noAsk(askId);
    if (isTerminal(record)) throw alreadyResolved(record);
    let event: AskEvent;
    if ('decide' in request && request.decide) event = decideEvent(record, request.decide, by);
    else if ('skip' in request) event = { type: 'skip', by };
    else {
      const strict = strictContext(record.timeZone, this.deps.clock.now());
      const checked = normalizeAnswers(record.questions, request.answers, true, strict);
      if (!checked.ok)
        throw invalid(
          'invalid_answer',
          checked.issues.map((i) => asSent(i, request.valueIds)),
        );
      event = { type: 'answer', answers: checked.answers, by, ...(checked.raw ? { raw: checked.raw } : {}) };
    }
    return this.expectResolved(await this.apply(askId, event), askId);
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
    const applied = await this.apply(current.id, { type: 'cancel' });
    return { cancelled: applied.outcome.code === 'resolved' ? applied.record : null };
  }

  /** One page of pending asks, oldest first (`GET /v1/asks`). */
  list(query: ListAsksQuery): Promise<AskListing> {
    return listPendingAsks(this.deps.store, query);
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
      return (await waiter.woken) ?? (await this.afterWake(askId));
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
      if (asked.record.id !== askId)
        return { record: await this.wait(asked.record.id, waitMs, signal), created: asked.created };
      if (!waiter || isTerminal(asked.record)) return asked;
      const ended = await waiter.woken;
      return { record: ended ?? (await this.afterWake(askId)), created: asked.created };
    } finally {
      waiter?.close();
    }
  }

  /**
   * The ask once its long poll woke: the store's kept copy when it says the ask ended (the commit
   * of this process that ended it wrote it; an ended ask's result never changes), else read; 404
   * when it is gone.
   */
  private async afterWake(askId: string): Promise<AskRecord> {
    const record = await judgeAsk(
      this.deps.store,
      askId,
      (r) => r,
      (r) => r !== null && isTerminal(r),
    );
    if (!record) throw noAsk(askId);
    return record;
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

  /** Applies the timeout; called by the timeout job (see {@link step}). */
  async expire(askId: string, seen?: AskRecord): Promise<void | NotYet> {
    return this.step(askId, 'timeout', seen);
  }

  /**
   * Runs a step: the timeout, a reminder or an escalation step (called by its job, or by the
   * reconciler when the job was lost). Whether it is due is core's `stepCall`, judged like any kept
   * copy ({@link keptOrFresh}): a step found due on the store's copy goes on to the commit, one
   * found early or needless there is judged again on a fresh read. A job that fires early (step
   * jobs are queued a little ahead) gets the step's time back with the record it judged, and its
   * scheduler calls again then with that record as `seen`, the kept copy of that call. A reminder
   * or escalation fires once: the transition's compare-and-set on `reminded`/`escalated`.
   */
  async step(askId: string, step: Step, seen?: AskRecord): Promise<void | NotYet> {
    const { store, clock } = this.deps;
    const judge = (record: AskRecord | null) => record && { record, call: stepCall(record, step, clock.now()) };
    const kept = seen?.id === askId ? seen : store.kept(askId);
    const judged = await keptOrFresh(
      kept,
      () => store.get(askId),
      judge,
      (v) => v?.call.kind === 'apply',
    );
    if (!judged) return;
    const { record, call } = judged;
    if (call.kind === 'wait') return { notBefore: call.notBefore, seen: record };
    if (call.kind === 'apply') await this.apply(askId, call.event);
  }

  /**
   * Reads, transitions and commits with compare-and-set, retrying on conflicts; then runs the
   * effects. Every state change of an ask goes through here. The first attempt starts from the
   * store's kept copy ({@link judgeAsk}: the record as this process last wrote or read it, so the
   * tap or answer that ends an ask this process delivered makes one round trip, the commit): the
   * compare-and-set rejects a stale one, and an outcome that changes nothing is only ever
   * reported from a fresh read. After a conflict the copy was stale: the record is read.
   */
  async apply(askId: string, event: AskEvent): Promise<Applied> {
    const { store, clock, settings, runner } = this.deps;
    const judge = (prev: AskRecord | null) => {
      const now = clock.now();
      return prev && { prev, now, result: transition(prev, event, now) };
    };
    const changes = (judged: ReturnType<typeof judge>) => judged?.result.kind === 'changed';
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const judged = await judgeAsk(store, askId, judge, changes, attempt === 0);
      if (!judged) return { record: null, outcome: { code: 'not_found' } };
      const { prev, now, result } = judged;
      if (result.kind === 'unchanged') return { record: prev, outcome: result.outcome };
      const next = result.record;
      const plan = foldFor(this.deps, commitPlan(prev, next, result.effects, now, settings));
      const ttlMs = recordTtlMs(next, now, settings.retentionMs);
      const publish = result.effects.some((e) => e.type === 'publish');
      const commit = () => store.commit(prev, next, { ttlMs, publish, ...(plan.along && { along: plan.along }) });
      const committed = await runner.ahead(askId, plan.ahead, commit);
      if (committed === 'conflict') continue;
      if (committed === 'missing') return { record: null, outcome: { code: 'not_found' } };
      if (isTerminal(next) && !isTerminal(prev)) this.polls.ended(askId);
      await runner.settle(askId, plan.after);
      return { record: next, outcome: result.outcome };
    }
    throw new AskgateError('internal', 'too much contention on this ask; retry');
  }

  /** Notes a tool call the run's guard did not run on the run's open ask (app/guard-blocked.ts). */
  guardBlocked(runId: string, tool: string): Promise<{ askId: string }> {
    return recordGuardBlocked(this.deps.store, this, runId, tool);
  }

  /** Adds a note to an ask's history (a rejected reply, a hint); best effort, never throws. */
  async note(askId: string, entry: Extract<AskEvent, { type: 'note' }>['entry']): Promise<void> {
    try {
      await this.apply(askId, { type: 'note', entry });
    } catch (error) {
      this.deps.logger.warn({ askId, err: (error as Error).message }, 'could not record a history note');
    }
  }

  private expectResolved(applied: Applied, askId: string): AskRecord {
    if (!applied.record) throw noAsk(askId);
    // `counted`: an ask that needs several matching answers recorded this one and stays open.
    if (applied.outcome.code === 'resolved' || applied.outcome.code === 'counted') return applied.record;
    if (applied.outcome.code === 'invalid') throw invalid('invalid_answer', applied.outcome.issues);
    throw alreadyResolved(applied.record);
  }
}

/** The 404 for an ask that does not exist (or no longer does). */
const noAsk = (askId: string) => new AskgateError('not_found', `no ask with id "${askId}"`);

/** The 409 for an ask that already has its result. */
export function alreadyResolved(record: AskRecord): AskgateError {
  const why =
    record.result?.status === 'no_answer'
      ? `ended without an answer (${record.result.reason})`
      : 'was already answered';
  return new AskgateError('already_resolved', `ask ${record.id} ${why}`, undefined, { result: record.result });
}
