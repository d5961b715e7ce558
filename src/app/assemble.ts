import type {
  AskIndexes,
  AskStore,
  Channel,
  Clock,
  FormDraftStore,
  Logger,
  Metrics,
  Outbox,
  ResultBus,
  SeenEvents,
  StepHandlers,
  StepScheduler,
  WebhookSender,
} from '../core/ports.js';
import { STEPS } from '../core/effects.js';
import type { AskRecord } from '../core/schemas.js';
import type { NoticeOptions } from '../core/outcome-view.js';
import { EffectRunner } from './effect-runner.js';
import { Gateway, type GatewaySettings } from './gateway.js';
import { InboundHandler } from './inbound.js';
import { LongPolls } from './long-poll.js';
import { OutboxWork, type OutboxWorkDeps } from './outbox-work.js';

/** Every port the shell is built over (main.ts fills it; tests rebuild the shell with one swapped). */
export interface AppPorts {
  store: AskStore;
  /** The sweep, conversation and message indexes beside the records. */
  indexes: AskIndexes;
  bus: ResultBus;
  /** Every step of an ask (timeout, reminders, escalation) as a delayed job. */
  steps: StepScheduler;
  outbox: Outbox;
  /**
   * The durable queue alone, when `outbox` runs jobs in-process (queue/inline-outbox.ts): the
   * reconciler's re-drives go there, where a job id already waiting or retrying is not added
   * twice (and not at all while the same job runs in-process here).
   */
  queuedOutbox?: Pick<Outbox, 'enqueue'>;
  clock: Clock;
  channels: ReadonlyMap<string, Channel>;
  newId: () => string;
  metrics: Metrics;
  logger: Logger;
  settings: GatewaySettings;
  /** Sends signed webhooks; without it, asks with a `callbackUrl` are refused. */
  webhooks?: WebhookSender;
  /** Renders a result webhook in an A2A client's push format (see OutboxWorkDeps.renderPush). */
  renderPush?: OutboxWorkDeps['renderPush'];
  /** The answer page's link of a delivery (see OutboxWorkDeps.pageLink); absent: no links. */
  pageLink?: OutboxWorkDeps['pageLink'];
  /** The drafts of forms answered step by step on a message (the inbound handler's form sessions). */
  drafts: FormDraftStore;
}

/** The shell over one set of ports: each piece gets only the ports it uses. */
export interface App {
  gateway: Gateway;
  /** Outbox jobs and the reconciler's sweep. */
  work: OutboxWork;
  /** The handler of each step: run by its job, or by the reconciler when the job was lost. */
  steps: StepHandlers;
  /** An inbound handler for the channels. */
  inbound(notice?: NoticeOptions, seen?: SeenEvents): InboundHandler;
}

/** Wires the effect runner, gateway, outbox work and inbound handler over `ports`. */
export function assemble(ports: AppPorts): App {
  const { store, indexes, clock, logger, settings, channels, metrics, webhooks, drafts } = ports;
  const runner = new EffectRunner({ indexes, outbox: ports.outbox, steps: ports.steps, metrics, logger, clock });
  const sweepRunner = ports.queuedOutbox
    ? new EffectRunner({ indexes, outbox: ports.queuedOutbox, steps: ports.steps, metrics, logger, clock })
    : runner;
  const gateway = new Gateway({
    store,
    runner,
    polls: new LongPolls(ports.bus, (askIds) => store.getMany(askIds)),
    clock,
    channels,
    newId: ports.newId,
    logger,
    settings,
    webhooks,
  });
  // Every step runs through Gateway.step (the timeout through expire): a new step needs no line here.
  const steps = Object.fromEntries(
    STEPS.map((step) => [step, (askId: string, seen?: AskRecord) => gateway.step(askId, step, seen)]),
  ) as StepHandlers;
  const work = new OutboxWork({
    gateway,
    store,
    indexes,
    runner: sweepRunner,
    steps,
    channels,
    clock,
    metrics,
    logger,
    settings,
    webhooks,
    ...(ports.renderPush ? { renderPush: ports.renderPush } : {}),
    ...(ports.pageLink ? { pageLink: ports.pageLink } : {}),
  });
  return {
    gateway,
    work,
    steps,
    inbound: (notice = {}, seen) =>
      new InboundHandler(
        {
          gateway,
          store,
          indexes,
          clock,
          retentionMs: settings.retentionMs,
          defaultLocale: settings.defaultLocale,
          drafts,
          channelNames: settings.channelNames,
          capabilitiesOf: (channel) => channels.get(channel)?.capabilities,
        },
        notice,
        seen,
      ),
  };
}
