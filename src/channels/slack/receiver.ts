import { createHmac } from 'node:crypto';
import type { App, Receiver, ReceiverEvent } from '@slack/bolt';
import type { InboundHttpRequest, InboundHttpResponse, InboundRoute, Logger, Clock } from '../../core/ports.js';
import { isEventInProgress } from './inbound.js';
import { describeError } from './limits.js';
import { tokenMatches } from '../../security/http.js';
import { systemClock } from '../../system-clock.js';

/** Path of the Events API and interactivity request URL on askgate's HTTP port. */
export const SLACK_EVENTS_PATH = '/slack/events';
/** Largest allowed distance between Slack's request timestamp and our clock, in seconds. */
export const MAX_SKEW_SECONDS = 300;
// Interactivity not acked by a listener is answered after 2.5 s, below Slack's 3 s. Events have
// no cap: they are answered only once processed, so a failure gets Slack's retry.
const INTERACTIVE_RESPONSE_CAP_MS = 2500;

type Headers = InboundHttpRequest['headers'];

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Checks Slack's v0 signature over the exact raw body, and that the request timestamp is within
 * five minutes of `nowSeconds` in either direction (bolt checks only the past).
 */
export function verifySlackSignature(
  signingSecret: string,
  headers: Headers,
  rawBody: Buffer,
  nowSeconds: number,
): boolean {
  const timestamp = header(headers, 'x-slack-request-timestamp');
  const signature = header(headers, 'x-slack-signature');
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > MAX_SKEW_SECONDS) return false;
  const hmac = createHmac('sha256', signingSecret);
  hmac.update(`v0:${timestamp}:`);
  hmac.update(rawBody);
  return tokenMatches(signature, `v0=${hmac.digest('hex')}`);
}

/** Parses an interactivity (`payload=` form) or Events API (JSON) body; null when malformed. */
export function parseSlackBody(headers: Headers, rawBody: Buffer): Record<string, unknown> | null {
  try {
    const text = rawBody.toString('utf8');
    const type = header(headers, 'content-type') ?? '';
    if (type.includes('application/x-www-form-urlencoded')) {
      const form = new URLSearchParams(text);
      const payload = form.get('payload');
      const parsed: unknown = payload !== null ? JSON.parse(payload) : Object.fromEntries(form);
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : null;
    }
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function ackResponse(response: unknown): InboundHttpResponse {
  if (response === undefined || response === null || response === '') return { status: 200, body: '' };
  if (typeof response === 'string')
    return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: response };
  return { status: 200, headers: { 'content-type': 'application/json' }, body: response as object };
}

/**
 * A bolt Receiver without its own server: askgate's HTTP server hands it `POST /slack/events`.
 * Interactivity is answered when the listener calls `ack()` (or after 2.5 s); Events API
 * requests are answered only once processed, so a failure returns 500 and Slack retries. There
 * is no early 200 for events: a store command can take more than 2.5 s to fail (queued behind
 * another during a Redis hang), and a 200 sent before that stopped Slack's retries of a thread
 * reply that was then lost. Processing past Slack's 3 s just gets a retry (`X-Slack-Retry-Num`);
 * the listener de-duplicates it by `event_id` (503 while the first attempt still runs).
 */
export class SlackHttpReceiver implements Receiver {
  private app: App | null = null;
  private accepting = false;

  constructor(
    private readonly signingSecret: string,
    private readonly logger: Logger,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Called by bolt's App constructor. */
  init(app: App): void {
    this.app = app;
  }

  /** Starts accepting requests (there is no server to start). */
  async start(): Promise<void> {
    this.accepting = true;
  }

  /** Stops accepting requests; in-flight ones finish. */
  async stop(): Promise<void> {
    this.accepting = false;
  }

  /** The one route Slack calls, for events and interactivity alike. */
  route(): InboundRoute {
    return { method: 'POST', path: SLACK_EVENTS_PATH, handle: (request) => this.handle(request) };
  }

  private async handle({ headers, rawBody }: InboundHttpRequest): Promise<InboundHttpResponse> {
    if (!verifySlackSignature(this.signingSecret, headers, rawBody, Math.floor(this.clock.now() / 1000))) {
      return { status: 401, body: { error: 'invalid_signature' } };
    }
    const body = parseSlackBody(headers, rawBody);
    if (!body) return { status: 400, body: { error: 'invalid_body' } };
    if (body.type === 'url_verification')
      return { status: 200, body: { challenge: typeof body.challenge === 'string' ? body.challenge : '' } };
    if (body.ssl_check !== undefined) return { status: 200, body: '' };
    const app = this.app;
    if (!app || !this.accepting) return { status: 503, body: { error: 'not_ready' } };

    const retryNum = Number(header(headers, 'x-slack-retry-num'));
    const retryReason = header(headers, 'x-slack-retry-reason');
    const isEvent = body.type === 'event_callback';
    return new Promise<InboundHttpResponse>((resolve) => {
      let sent = false;
      let acked: InboundHttpResponse | null = null;
      const send = (response: InboundHttpResponse) => {
        if (sent) return;
        sent = true;
        clearTimeout(cap);
        resolve(response);
      };
      const cap = isEvent
        ? undefined
        : setTimeout(() => {
            this.logger.warn({ channel: 'slack' }, 'slack request not acknowledged within 2.5 s');
            send(acked ?? { status: 200, body: '' });
          }, INTERACTIVE_RESPONSE_CAP_MS);
      const event: ReceiverEvent = {
        body,
        ...(Number.isInteger(retryNum) && retryNum > 0 ? { retryNum } : {}),
        ...(retryReason ? { retryReason } : {}),
        ack: async (response?: unknown) => {
          acked = ackResponse(response);
          if (!isEvent) send(acked);
        },
      };
      app.processEvent(event).then(
        () => send(acked ?? { status: 200, body: '' }),
        (error: unknown) => {
          if (isEventInProgress(error)) {
            // Another attempt (a slow first delivery, maybe on another replica) holds the event.
            this.logger.info(
              { channel: 'slack', retryNum: event.retryNum ?? 0 },
              'slack event already being processed; Slack will re-send it',
            );
            return send({ status: 503, body: { error: 'in_progress' } });
          }
          this.logger.warn({ channel: 'slack', err: describeError(error) }, 'slack event processing failed');
          send({ status: 500, body: { error: 'processing_failed' } });
        },
      );
    });
  }
}
