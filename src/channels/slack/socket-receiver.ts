import {
  SocketModeReceiver,
  type App,
  type Logger as BoltLogger,
  type Receiver,
  type ReceiverEvent,
} from '@slack/bolt';
import type { Logger } from '../../core/ports.js';
import { isEventInProgress } from './inbound.js';
import { describeError as describe } from './limits.js';

/** What the Socket Mode client hands a `slack_event` listener, for each envelope. */
interface SocketEnvelope {
  ack: (response?: Record<string, unknown>) => Promise<void>;
  envelope_id: string;
  type: string;
  body: Record<string, unknown>;
  retry_num?: number;
  retry_reason?: string;
}

/** Settings of {@link SlackSocketReceiver}. */
export interface SlackSocketReceiverOptions {
  /** App-level token (`xapp-…`). */
  appToken: string;
  /** Web API base URL for apps.connections.open (default Slack's). */
  apiUrl?: string;
  /** bolt's logger (passed to the Socket Mode client). */
  boltLogger: BoltLogger;
  logger: Logger;
}

/**
 * Socket Mode for bolt, with Events API envelopes acknowledged once processed (as the HTTP
 * receiver answers events): bolt's own Socket Mode receiver acks an event before any listener
 * runs, so a thread reply whose processing failed (Redis unavailable) or whose process died
 * before the commit was lost for good, since Slack re-sends only envelopes it has no ack for.
 * Here an event's ack waits until bolt has processed it, and a failed event is never acked, so
 * Slack re-sends it (`retry_attempt`, seen by listeners as `context.retryNum`). There is no
 * 2.5 s cap as in HTTP mode, where Slack drops the request at 3 s anyway: a store failure can
 * take longer than that to surface, and acking first would lose the reply. Processing that
 * outlasts Slack's timeout only gets a re-send, de-duplicated by `event_id` (not acked while the
 * first attempt still runs, acked without effect once it settled).
 * Interactive envelopes are acked when the listener calls `ack()`, as before (askgate acks taps
 * first), or once processed if no listener did.
 */
export class SlackSocketReceiver implements Receiver {
  private readonly inner: SocketModeReceiver;
  private app: App | null = null;

  constructor(private readonly options: SlackSocketReceiverOptions) {
    const { appToken, apiUrl, boltLogger } = options;
    // apps.connections.open goes through installerOptions.clientOptions, not clientOptions.
    this.inner = new SocketModeReceiver({
      appToken,
      logger: boltLogger,
      installerOptions: { clientOptions: apiUrl ? { slackApiUrl: apiUrl } : {} },
    });
    // The connection handling (hello, disconnect, reconnect, pings) stays the client's; only the
    // dispatch of envelopes to bolt is replaced.
    this.inner.client.removeAllListeners('slack_event');
    this.inner.client.on('slack_event', (envelope: SocketEnvelope) => void this.dispatch(envelope));
  }

  /** Called by bolt's App constructor. */
  init(app: App): void {
    this.app = app;
  }

  /** Opens the Socket Mode connection (resolves on Slack's `hello`). */
  start(): Promise<unknown> {
    return this.inner.start();
  }

  /** Closes the connection; no reconnect. */
  stop(): Promise<unknown> {
    return this.inner.stop();
  }

  private async dispatch(envelope: SocketEnvelope): Promise<void> {
    const app = this.app;
    if (!app) return;
    const isEvent = envelope.type === 'events_api';
    let acked = false;
    const ack = async (response?: unknown) => {
      if (acked) return;
      acked = true;
      try {
        await envelope.ack(
          typeof response === 'object' && response !== null ? (response as Record<string, unknown>) : undefined,
        );
      } catch (error) {
        // The connection dropped: Slack re-sends the envelope on the next one.
        this.options.logger.warn(
          { channel: 'slack', envelopeId: envelope.envelope_id, err: describe(error) },
          'slack envelope not acknowledged (connection lost)',
        );
      }
    };
    const event: ReceiverEvent = {
      body: envelope.body,
      ...(Number.isInteger(envelope.retry_num) && envelope.retry_num! > 0 ? { retryNum: envelope.retry_num } : {}),
      ...(envelope.retry_reason ? { retryReason: envelope.retry_reason } : {}),
      // bolt acks events before the listeners run: for events that ack is held until processed.
      ack: async (response?: unknown) => {
        if (!isEvent) await ack(response);
      },
    };
    try {
      await app.processEvent(event);
      // Processed: an event's held ack goes out now; an interaction no listener acked is acked too.
      await ack();
    } catch (error) {
      if (isEventInProgress(error)) {
        this.options.logger.info(
          { channel: 'slack', envelopeId: envelope.envelope_id },
          'slack envelope already being processed; not acknowledged, so Slack re-sends it',
        );
        return;
      }
      this.options.logger.warn(
        { channel: 'slack', envelopeId: envelope.envelope_id, err: describe(error) },
        acked
          ? 'slack envelope processing failed'
          : 'slack envelope processing failed; not acknowledged, so Slack re-sends it',
      );
    }
  }
}
