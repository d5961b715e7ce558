import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InboundRoute } from '../../src/core/ports.js';
import type { FakeMessage, FakeSlackApi } from './slack-api.js';
import { fillModal, type FakeView, type ModalFill } from './slack-views.js';
import type { ViewSubmitAction } from '@slack/bolt';

/** How a signed request is built: forged signature, skewed timestamp, Events API retry headers. */
export interface SignOptions {
  badSignature?: boolean;
  /** Added to the current time for `X-Slack-Request-Timestamp` (e.g. -301 for stale, +301 for future). */
  skewSeconds?: number;
  retryNum?: number;
  retryReason?: string;
}

/** Slack's v0 signature of a request body. */
export function slackSignature(secret: string, timestamp: number, rawBody: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
}

/** Slack sends typed `&`, `<`, `>` in message text as entities. */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

let seq = 0;
const nextTs = () => `${1_750_000_000 + ++seq}.${String(seq).padStart(6, '0')}`;

/**
 * Acts as Slack towards askgate: builds form-encoded `block_actions` payloads and JSON
 * `event_callback` messages, signs them (v0 HMAC) and POSTs them to `/slack/events`.
 */
export class SlackInjector {
  constructor(
    readonly eventsUrl: string,
    readonly signingSecret: string,
    readonly fake: FakeSlackApi,
  ) {}

  /** A `block_actions` payload for the button with `value` on `message`, pressed by `user`. */
  blockAction(message: FakeMessage, value: string, user: string): object {
    // Slack echoes the block_id of the actions block the button is in.
    // A URL button (no value) is found by its url: Slack sends the tap without one (the browser opens it).
    const holds = (e: any) => e.value === value || (e.value === undefined && e.url === value);
    const block = message.blocks.find((b: any) => b.type === 'actions' && b.elements.some(holds)) as any;
    const button = block?.elements.find(holds);
    if (!button) throw new Error(`no button with value ${value}`);
    return {
      type: 'block_actions',
      user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: 'T0001' },
      api_app_id: 'A0001',
      token: 'legacy-verification-token',
      container: {
        type: 'message',
        message_ts: message.ts,
        channel_id: message.channel,
        is_ephemeral: false,
        ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
      },
      trigger_id: this.fake.issueTrigger(user),
      team: { id: 'T0001', domain: 'askgate-test' },
      channel: { id: message.channel, name: 'general' },
      message: {
        type: 'message',
        ts: message.ts,
        text: message.text,
        blocks: message.blocks,
        user: message.user,
        bot_id: message.bot_id,
        ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
      },
      response_url: `${this.fake.url}/response/${randomBytes(6).toString('hex')}`,
      actions: [
        {
          type: 'button',
          action_id: button.action_id,
          block_id: block.block_id,
          text: button.text,
          ...(button.value !== undefined ? { value } : {}),
          action_ts: `${Date.now() / 1000}`,
        },
      ],
    };
  }

  /**
   * A `view_submission` payload (bolt's ViewSubmitAction) for a view the fake opened, submitted by
   * the person it was opened for: `state.values` as given (raw, e.g. forged), or built from what the
   * person filled in ({@link fillModal}: option texts or typed text by block_id). `view` overrides
   * fields of the echoed view (e.g. a forged `private_metadata`).
   */
  viewSubmission(
    opened: FakeView,
    fill: ModalFill | { values: Record<string, Record<string, unknown>> },
    view: Record<string, unknown> = {},
  ): ViewSubmitAction {
    type Values = ViewSubmitAction['view']['state']['values'];
    // Raw values (a forgery) are sent as given, whatever their shape.
    const values: Values =
      'values' in fill && typeof fill.values === 'object' && !Array.isArray(fill.values)
        ? (fill.values as Values)
        : fillModal(opened.view, fill as ModalFill);
    const v = opened.view;
    const payload: ViewSubmitAction = {
      type: 'view_submission',
      team: { id: 'T0001', domain: 'askgate-test' },
      // Slack sends `username` too, beside the `name` bolt declares.
      user: {
        id: opened.user,
        name: opened.user.toLowerCase(),
        team_id: 'T0001',
        ...({ username: opened.user.toLowerCase() } as object),
      },
      api_app_id: 'A0001',
      token: 'legacy-verification-token',
      trigger_id: this.fake.issueTrigger(opened.user),
      view: {
        id: opened.id,
        team_id: 'T0001',
        type: 'modal',
        blocks: v.blocks,
        private_metadata: v.private_metadata ?? '',
        callback_id: v.callback_id ?? '',
        state: { values },
        hash: opened.hash,
        title: v.title,
        clear_on_close: false,
        notify_on_close: false,
        close: v.close ?? null,
        submit: v.submit ?? null,
        previous_view_id: null,
        root_view_id: opened.id,
        app_id: 'A0001',
        external_id: '',
        app_installed_team_id: 'T0001',
        bot_id: 'BBOT',
      },
      response_urls: [],
      is_enterprise_install: false,
      // Slack sends `enterprise: null` for a workspace install (bolt declares it optional, not nullable).
      ...({ enterprise: null } as object),
    };
    // Overrides (a forged private_metadata, say) go in after the typed payload is built.
    return { ...payload, view: { ...payload.view, ...view } };
  }

  /** Submits a view (see {@link viewSubmission}) as a signed interactivity request; resolves with Slack's view of the answer. */
  async submitView(
    opened: FakeView,
    fill: ModalFill | { values: Record<string, Record<string, unknown>> },
    view: Record<string, unknown> = {},
  ): Promise<{ status: number; text: string; body: any }> {
    const response = await this.postInteractive(this.viewSubmission(opened, fill, view));
    let body: any = null;
    try {
      body = response.text === '' ? null : JSON.parse(response.text);
    } catch {
      body = response.text;
    }
    return { ...response, body };
  }

  /** An `event_callback` for a message typed by `user` (text escaped as Slack does). */
  messageEvent(m: {
    channel: string;
    user?: string;
    text: string;
    threadTs?: string;
    channelType?: string;
    botId?: string;
    subtype?: string;
    ts?: string;
  }): object {
    const ts = m.ts ?? nextTs();
    return {
      token: 'legacy-verification-token',
      team_id: 'T0001',
      api_app_id: 'A0001',
      type: 'event_callback',
      event_id: `Ev${randomBytes(5).toString('hex').toUpperCase()}`,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: 'T0001', user_id: 'UBOT', is_bot: true }],
      event: {
        type: 'message',
        channel: m.channel,
        channel_type: m.channelType ?? 'channel',
        text: slackEscape(m.text),
        ts,
        event_ts: ts,
        ...(m.user ? { user: m.user } : {}),
        ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
        ...(m.botId ? { bot_id: m.botId } : {}),
        ...(m.subtype ? { subtype: m.subtype } : {}),
      },
    };
  }

  /** POSTs an interactivity payload as `payload=<urlencoded JSON>`. */
  postInteractive(payload: object, options: SignOptions = {}): Promise<{ status: number; text: string }> {
    return this.post(
      `payload=${encodeURIComponent(JSON.stringify(payload))}`,
      'application/x-www-form-urlencoded',
      options,
    );
  }

  /** POSTs an Events API body as JSON. */
  postEvent(body: object, options: SignOptions = {}): Promise<{ status: number; text: string }> {
    return this.post(JSON.stringify(body), 'application/json', options);
  }

  /** Signs and POSTs a raw body. */
  async post(
    rawBody: string,
    contentType: string,
    options: SignOptions = {},
  ): Promise<{ status: number; text: string }> {
    const timestamp = Math.floor(Date.now() / 1000) + (options.skewSeconds ?? 0);
    const secret = options.badSignature ? `${this.signingSecret}-forged` : this.signingSecret;
    const headers: Record<string, string> = {
      'content-type': contentType,
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature(secret, timestamp, rawBody),
    };
    if (options.retryNum !== undefined) {
      headers['x-slack-retry-num'] = String(options.retryNum);
      headers['x-slack-retry-reason'] = options.retryReason ?? 'http_timeout';
    }
    const response = await fetch(this.eventsUrl, { method: 'POST', headers, body: rawBody });
    return { status: response.status, text: await response.text() };
  }
}

/** Serves channel routes on a tiny node:http server (for tests that run a channel without askgate). */
export async function serveRoutes(routes: readonly InboundRoute[]): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const route = routes.find((r) => r.method === req.method && r.path === req.url);
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    const response = await route.handle({ headers: req.headers, rawBody: Buffer.concat(chunks) });
    const isText = typeof response.body === 'string' || response.body === undefined;
    res.writeHead(response.status, { 'content-type': isText ? 'text/plain' : 'application/json', ...response.headers });
    res.end(isText ? ((response.body as string | undefined) ?? '') : JSON.stringify(response.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
