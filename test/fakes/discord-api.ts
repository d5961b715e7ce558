import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import * as P from './discord-payloads.js';
import { modalErrors, storeModal, submission, type ModalValues, type StoredModal } from './discord-modals.js';

/** One REST call the fake received (path without `/api/v10`). */
export interface DiscordCall {
  method: string;
  path: string;
  body: any;
  status: number;
  at: number;
  authorized: boolean;
  /** For calls on an interaction token (callback, `webhooks/{app}/{token}`): the token's age in ms (the fake's clock). */
  tokenAgeMs?: number;
  /** True when the call used an interaction token older than 15 min (refused). */
  expiredToken?: boolean;
  /** The Discord JSON error code of a refused call (e.g. 40060, 50035). */
  code?: number;
}

/** Options of {@link FakeDiscord.start}. */
export interface FakeDiscordOptions {
  /**
   * The fake's clock in epoch ms, for interaction windows and lifetimes (3 s to ack, 15 min for
   * the token). Default `Date.now`; a test drives it to simulate long waits on virtual time.
   */
  now?: () => number;
}

/** A tap or a modal submission the fake dispatched, and what the bot did with it. */
export interface FakeInteraction {
  id: string;
  token: string;
  /** `component`: a button tap (type 3); `modal_submit`: a submitted modal (type 5). */
  kind: 'component' | 'modal_submit';
  /** The button's or the modal's custom_id. */
  customId: string;
  user: P.ApiUser;
  messageId: string;
  dispatchedAt: number;
  ackedAt?: number;
  ackType?: number;
  /** The modal the bot answered with (callback type 9), ids filled in as Discord does; open on the person's screen. */
  modal?: StoredModal;
  /** Replies (callback type 4) and follow-ups, in order; `messageId`: the message Discord made of it (an ephemeral one is tappable by this interaction's person only). */
  followUps: FakeFollowUp[];
}

/** A reply or follow-up the bot sent on an interaction. */
export interface FakeFollowUp {
  content: string;
  flags: number;
  allowed_mentions: unknown;
  components: any[];
  messageId: string;
}

interface Fault {
  method: string;
  route: RegExp;
  status: number;
  code: number;
  message: string;
  retryAfter?: number;
}

const MESSAGE_CONTENT = 1 << 15;
/** Message flag EPHEMERAL: only the interaction's person sees it. */
const EPHEMERAL = 1 << 6;
const ACK_WINDOW_MS = 3000;
/** How long an interaction token is valid for follow-ups and edits (Discord: 15 min). */
export const INTERACTION_TOKEN_LIFETIME_MS = 15 * 60_000;
const TOKEN_LIFETIME_MS = INTERACTION_TOKEN_LIFETIME_MS;

/**
 * A fake Discord: REST under `/api/v10` and a gateway WebSocket on the same port. It enforces the
 * platform's rules (3 s ack window → 10062, second ack → 40060, layout limits → 50035, 15-minute
 * interaction tokens), injects 429s and refusals, and logs every call. Interaction windows and token
 * lifetimes run on its clock ({@link FakeDiscordOptions.now}); a call on a token older than 15 min
 * (callback → 10062, `webhooks/{app}/{token}` follow-ups and edits → 401 50027) is marked
 * `expiredToken` and listed by {@link FakeDiscord.expiredTokenCalls}.
 */
export class FakeDiscord {
  readonly token = `fake.${randomBytes(12).toString('hex')}`;
  readonly bot = P.user(P.snowflake(), 'askgate-bot', null, true);
  readonly applicationId = this.bot.id;
  readonly guildId = P.snowflake();
  readonly channels = new Map<string, P.ApiChannel>();
  readonly messages = new Map<string, P.ApiMessage>();
  readonly interactions = new Map<string, FakeInteraction>();
  /** Each person's client language (interaction `locale`), by user id; `en-US` when not set. */
  readonly clientLocales = new Map<string, string>();
  readonly calls: DiscordCall[] = [];
  /** False: IDENTIFY with the Message Content intent is refused with close 4014. */
  contentIntentEnabled = true;
  /** Added to interaction token ages (simulate the 15-minute expiry). */
  tokenAgeOffsetMs = 0;
  /** The fake's clock (epoch ms), see {@link FakeDiscordOptions.now}. */
  readonly now: () => number;
  /** Messages sent through interaction webhooks (follow-ups) and as interaction replies, by id. */
  readonly followUpMessages = new Map<string, P.ApiMessage>();
  /** Ephemeral messages (flag 64) by id → the one person who sees them (and so can tap their buttons). */
  private readonly ephemeralFor = new Map<string, string>();
  private faults: Fault[] = [];
  private blockedSendsUntil = 0;
  private readonly sockets = new Set<WebSocket>();
  private seq = 0;
  private readonly wss: WebSocketServer;
  /** The last dispatches sent, kept for RESUME replays. */
  private readonly sentFrames: { s: number; frame: string }[] = [];
  private replayFrom: number | null = null;
  /** RESUMEs received (op 6), with the seq each client sent. */
  readonly resumes: { seq: number; sessionId: string }[] = [];

  private constructor(
    private readonly server: Server,
    options: FakeDiscordOptions = {},
  ) {
    this.now = options.now ?? (() => Date.now());
    this.wss = new WebSocketServer({ server });
    this.wss.on('connection', (ws) => this.onSocket(ws));
  }

  /** Starts the fake on 127.0.0.1 with one guild text channel. */
  static async start(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
    let fake: FakeDiscord | null = null;
    const server = createServer((req, res) => void fake!.onRequest(req, res));
    fake = new FakeDiscord(server, options);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return fake;
  }

  /** REST api root for discord.js (`rest.api`). */
  get apiUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api`;
  }

  /** Adds a guild text channel (sent in GUILD_CREATE on the next IDENTIFY). */
  addTextChannel(): string {
    const id = P.snowflake();
    this.channels.set(id, { id, type: 0, name: `chan-${id.slice(-4)}`, guild_id: this.guildId });
    return id;
  }

  /** Adds a DM channel with `u`. */
  addDm(u: P.ApiUser): string {
    const id = P.snowflake();
    this.channels.set(id, { id, type: 1, recipients: [u] });
    return id;
  }

  /** Starts a thread on message `messageId` (the thread's id is the message id) and dispatches THREAD_CREATE. */
  startThread(messageId: string, by: P.ApiUser): string {
    const parent = this.messages.get(messageId)!.channel_id;
    this.channels.set(messageId, {
      id: messageId,
      type: 11,
      guild_id: this.guildId,
      parent_id: parent,
      name: 'answer',
    });
    this.dispatch('THREAD_CREATE', { ...P.thread(messageId, this.guildId, parent, by.id), newly_created: true });
    return messageId;
  }

  /** The next `count` matching calls fail with `status`/`code` (e.g. 403/50001). */
  failNext(method: string, route: RegExp, status: number, code: number, message: string, count = 1): void {
    for (let i = 0; i < count; i++) this.faults.push({ method, route, status, code, message });
  }

  /** The next matching call gets a 429 with `retry_after` = `seconds`. */
  rateLimitNext(method: string, route: RegExp, seconds: number): void {
    this.faults.push({
      method,
      route,
      status: 429,
      code: 0,
      message: 'You are being rate limited.',
      retryAfter: seconds,
    });
  }

  /** Every message create answers 429 until `seconds` from now. */
  blockMessageCreate(seconds: number): void {
    this.blockedSendsUntil = Date.now() + seconds * 1000;
  }

  /**
   * Dispatches a button tap on message `messageId` by `u` (`ageMs` old: a replayed event); returns
   * the interaction. The message may be a follow-up; an ephemeral one only its person sees (throws
   * for anyone else), and only a button it has can be tapped on it.
   */
  tap(messageId: string, customId: string, u: P.ApiUser, id = P.snowflake(), ageMs = 0): FakeInteraction {
    const seer = this.ephemeralFor.get(messageId);
    if (seer !== undefined && seer !== u.id) throw new Error('only its person sees an ephemeral message');
    const shown = this.followUpMessages.get(messageId);
    const ids = (shown?.components ?? []).flatMap((r: any) => (r.components ?? []).map((b: any) => b.custom_id));
    if (shown && !ids.includes(customId)) throw new Error(`the follow-up has no button ${customId}`);
    const { interaction, source } = this.newInteraction('component', messageId, customId, u, id, ageMs);
    this.dispatch('INTERACTION_CREATE', P.buttonInteraction({ ...source, customId }));
    return interaction;
  }

  /**
   * The person who saw `opened`'s modal submits it with `values` (by field custom_id: a radio
   * value or null, checkbox values, text), as their client would send it: MODAL_SUBMIT with every
   * field of the modal. Throws when no modal is open there or the client would not allow the values.
   */
  submitModal(opened: FakeInteraction, values: ModalValues, opts: { ageMs?: number } = {}): FakeInteraction {
    if (!opened.modal) throw new Error('no modal was opened by this interaction');
    const components = submission(opened.modal, values);
    return this.rawModalSubmit(opened.messageId, opened.modal.custom_id, components, opened.user, opts);
  }

  /** Dispatches a MODAL_SUBMIT with exactly these `components` (forged or hand-made payloads). */
  rawModalSubmit(
    messageId: string,
    customId: string,
    components: unknown[],
    u: P.ApiUser,
    opts: { ageMs?: number } = {},
  ): FakeInteraction {
    const { interaction, source } = this.newInteraction(
      'modal_submit',
      messageId,
      customId,
      u,
      P.snowflake(),
      opts.ageMs ?? 0,
    );
    this.dispatch('INTERACTION_CREATE', P.modalSubmitInteraction({ ...source, customId, components }));
    return interaction;
  }

  private newInteraction(
    kind: FakeInteraction['kind'],
    messageId: string,
    customId: string,
    u: P.ApiUser,
    id: string,
    ageMs: number,
  ): { interaction: FakeInteraction; source: P.InteractionSource } {
    const msg = this.messageById(messageId)!;
    const channel = this.channels.get(msg.channel_id)!;
    const interaction = this.interactions.get(id) ?? {
      id,
      token: `itok.${randomBytes(24).toString('base64url')}`,
      kind,
      customId,
      user: u,
      messageId,
      dispatchedAt: this.now() - ageMs,
      followUps: [],
    };
    this.interactions.set(id, interaction);
    const guildId = channel.type === 1 ? undefined : this.guildId;
    const source: P.InteractionSource = {
      id,
      token: interaction.token,
      applicationId: this.applicationId,
      channel,
      ...(guildId ? { guildId } : {}),
      user: u,
      message: msg,
      locale: this.clientLocales.get(u.id) ?? 'en-US',
    };
    return { interaction, source };
  }

  /** Dispatches MESSAGE_CREATE from `u` in `channelId`, replying to `replyTo` when given; returns its id. */
  say(
    channelId: string,
    u: P.ApiUser,
    content: string,
    opts: { replyTo?: string; mentions?: P.ApiUser[] } = {},
  ): string {
    const channel = this.channels.get(channelId)!;
    const id = P.snowflake();
    const referenced = opts.replyTo ? this.messages.get(opts.replyTo) : undefined;
    const guildId = channel.type === 1 ? undefined : this.guildId;
    const msg = P.userMessage({
      id,
      channel,
      ...(guildId ? { guildId } : {}),
      user: u,
      content,
      ...(referenced ? { referenced } : {}),
      ...(opts.mentions ? { mentions: opts.mentions } : {}),
    });
    this.messages.set(id, msg);
    this.dispatch('MESSAGE_CREATE', msg);
    return id;
  }

  /** A channel message or an interaction's reply or follow-up, by id. */
  messageById(id: string): P.ApiMessage | undefined {
    return this.messages.get(id) ?? this.followUpMessages.get(id);
  }

  /** Calls made with an interaction token older than 15 min (interaction callbacks and `webhooks/{app}/{token}` routes). */
  get expiredTokenCalls(): DiscordCall[] {
    return this.calls.filter((c) => c.expiredToken);
  }

  /** Messages the bot sent to `channelId`, oldest first. */
  sentTo(channelId: string): P.ApiMessage[] {
    return [...this.messages.values()].filter((m) => m.channel_id === channelId && m.author.id === this.bot.id);
  }

  /** Sends a gateway dispatch to every identified connection. */
  dispatch(t: string, d: unknown): void {
    const frame = JSON.stringify({ op: 0, t, s: ++this.seq, d });
    this.sentFrames.push({ s: this.seq, frame });
    if (this.sentFrames.length > 500) this.sentFrames.shift();
    for (const ws of this.sockets) ws.send(frame);
  }

  /** The sequence number of the last dispatch sent. */
  get lastSeq(): number {
    return this.seq;
  }

  /**
   * Tells every connection to reconnect (op 7 Reconnect); the client then RESUMEs (op 6) and gets
   * the dispatches after the seq it sends, or after `replayFrom` when given: events it already
   * had are delivered again, as an overlapping replay would.
   */
  requestReconnect(replayFrom?: number): void {
    this.replayFrom = replayFrom ?? null;
    for (const ws of this.sockets) ws.send(JSON.stringify({ op: 7, d: null, s: null, t: null }));
  }

  /** Closes the gateway connections and the server. */
  async close(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((r) => this.wss.close(() => r()));
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private onSocket(ws: WebSocket): void {
    ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 45_000 }, s: null, t: null }));
    ws.on('close', () => this.sockets.delete(ws));
    ws.on('message', (raw) => {
      const frame = JSON.parse(String(raw)) as { op: number; d: any };
      if (frame.op === 1) ws.send(JSON.stringify({ op: 11 }));
      if (frame.op === 6) return this.onResume(ws, frame.d);
      if (frame.op !== 2) return;
      if (frame.d.token !== this.token) return ws.close(4004, 'Authentication failed.');
      if (frame.d.intents & MESSAGE_CONTENT && !this.contentIntentEnabled)
        return ws.close(4014, 'Disallowed intent(s).');
      this.sockets.add(ws);
      const url = `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
      ws.send(
        JSON.stringify({
          op: 0,
          t: 'READY',
          s: ++this.seq,
          d: P.ready(this.bot, this.applicationId, [this.guildId], url),
        }),
      );
      const guildChannels = [...this.channels.values()].filter((c) => c.guild_id === this.guildId);
      ws.send(
        JSON.stringify({
          op: 0,
          t: 'GUILD_CREATE',
          s: ++this.seq,
          d: P.guildCreate(this.guildId, this.bot.id, guildChannels),
        }),
      );
    });
  }

  private onResume(ws: WebSocket, d: { token: string; session_id: string; seq: number }): void {
    if (d.token !== this.token) return ws.close(4004, 'Authentication failed.');
    this.resumes.push({ seq: d.seq, sessionId: d.session_id });
    this.sockets.add(ws);
    const from = this.replayFrom ?? d.seq;
    this.replayFrom = null;
    for (const sent of this.sentFrames) if (sent.s > from) ws.send(sent.frame);
    ws.send(JSON.stringify({ op: 0, t: 'RESUMED', s: ++this.seq, d: {} }));
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString();
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname.replace(/^\/api\/v10/, '');
    const method = req.method ?? 'GET';
    const body = raw && String(req.headers['content-type']).includes('json') ? JSON.parse(raw) : raw;
    const call: DiscordCall = {
      method,
      path,
      body,
      status: 0,
      at: Date.now(),
      authorized: req.headers.authorization === `Bot ${this.token}`,
    };
    this.calls.push(call);
    const send = (status: number, payload?: unknown, headers: Record<string, string> = {}) => {
      call.status = status;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(payload === undefined ? undefined : JSON.stringify(payload));
    };
    const error = (status: number, code: number, message: string, extra: object = {}) => {
      call.code = code;
      send(status, { code, message, ...extra });
    };
    const interactionRoute = /^\/(interactions|webhooks)\//.test(path);
    if (!interactionRoute && !call.authorized) return error(401, 0, '401: Unauthorized');
    const fault = this.faults.findIndex((f) => f.method === method && f.route.test(path));
    if (fault >= 0) {
      const [f] = this.faults.splice(fault, 1);
      if (f!.retryAfter !== undefined) return this.tooMany(send, f!.retryAfter);
      return error(f!.status, f!.code, f!.message);
    }
    let m: RegExpExecArray | null;
    if (method === 'GET' && path === '/gateway/bot') {
      const wsUrl = `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
      return send(200, {
        url: wsUrl,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
      });
    }
    if (method === 'GET' && path === '/users/@me') return send(200, this.bot);
    if ((m = /^\/channels\/(\d+)$/.exec(path)) && method === 'GET') {
      const channel = this.channels.get(m[1]!);
      return channel ? send(200, channel) : error(404, 10003, 'Unknown Channel');
    }
    if ((m = /^\/channels\/(\d+)\/messages$/.exec(path)) && method === 'POST') {
      const channel = this.channels.get(m[1]!);
      if (!channel) return error(404, 10003, 'Unknown Channel');
      if (Date.now() < this.blockedSendsUntil) return this.tooMany(send, (this.blockedSendsUntil - Date.now()) / 1000);
      const invalid = layoutErrors(body) ?? referenceErrors(body, channel.id, this.messages);
      if (invalid) return error(400, 50035, 'Invalid Form Body', { errors: invalid });
      const msg = P.message({
        id: P.snowflake(),
        channel_id: channel.id,
        author: this.bot,
        content: body.content ?? '',
        components: body.components ?? [],
        flags: body.flags ?? 0,
        ...(channel.guild_id ? { guild_id: channel.guild_id } : {}),
      });
      if (body.message_reference)
        Object.assign(msg, {
          type: 19,
          message_reference: { type: 0, ...body.message_reference, channel_id: channel.id },
        });
      this.messages.set(msg.id, msg);
      return send(200, msg);
    }
    if ((m = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path))) {
      const msg = this.messages.get(m[2]!);
      if (!msg || msg.channel_id !== m[1]) return error(404, 10008, 'Unknown Message');
      if (method === 'GET') return send(200, msg);
      if (method !== 'PATCH') return error(405, 0, '405: Method Not Allowed');
      if (msg.author.id !== this.bot.id) return error(403, 50005, 'Cannot edit a message authored by another user');
      const invalid = layoutErrors({ content: msg.content, components: msg.components, ...body });
      if (invalid) return error(400, 50035, 'Invalid Form Body', { errors: invalid });
      Object.assign(msg, {
        content: body.content ?? msg.content,
        components: body.components ?? msg.components,
        edited_timestamp: new Date().toISOString(),
      });
      return send(200, msg);
    }
    if ((m = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(path)) && method === 'POST') {
      const i = this.interactions.get(m[1]!);
      if (i && i.token === m[2]) this.noteTokenAge(call, i);
      if (!i || i.token !== m[2] || this.now() - i.dispatchedAt > ACK_WINDOW_MS)
        return error(404, 10062, 'Unknown interaction');
      const invalid = callbackErrors(i, body);
      if (invalid) return error(400, 50035, 'Invalid Form Body', { errors: invalid });
      if (i.ackedAt !== undefined) return error(400, 40060, 'Interaction has already been acknowledged.');
      i.ackedAt = this.now();
      i.ackType = body.type;
      if (body.type === 9) i.modal = storeModal(body.data);
      if (body.type === 4) this.sendFollowUp(i, body.data ?? {});
      res.writeHead(204).end();
      call.status = 204;
      return;
    }
    if ((m = /^\/webhooks\/(\d+)\/([^/]+)$/.exec(path)) && method === 'POST') {
      const i = [...this.interactions.values()].find((x) => x.token === m![2]);
      if (!i || m[1] !== this.applicationId) return error(404, 10015, 'Unknown Webhook');
      if (this.noteTokenAge(call, i)) return error(401, 50027, 'Invalid Webhook Token');
      if (i.ackedAt === undefined) return error(400, 40060, 'Interaction has not been acknowledged.');
      const invalid = layoutErrors(body);
      if (invalid) return error(400, 50035, 'Invalid Form Body', { errors: invalid });
      return send(200, this.sendFollowUp(i, body));
    }
    // Interaction-token edits (`interaction.update` after a deferral, `editReply`, editing a follow-up).
    if ((m = /^\/webhooks\/(\d+)\/([^/]+)\/messages\/(@original|\d+)$/.exec(path))) {
      const i = [...this.interactions.values()].find((x) => x.token === m![2]);
      if (!i || m[1] !== this.applicationId) return error(404, 10015, 'Unknown Webhook');
      if (this.noteTokenAge(call, i)) return error(401, 50027, 'Invalid Webhook Token');
      // For a component interaction, @original is the message the button was on.
      const target = m[3] === '@original' ? this.messageById(i.messageId) : this.followUpMessages.get(m[3]!);
      if (!target) return error(404, 10008, 'Unknown Message');
      if (method === 'GET') return send(200, target);
      if (method === 'DELETE') {
        this.messages.delete(target.id);
        this.followUpMessages.delete(target.id);
        res.writeHead(204).end();
        call.status = 204;
        return;
      }
      if (method !== 'PATCH') return error(405, 0, '405: Method Not Allowed');
      const invalid = layoutErrors({ content: target.content, components: target.components, ...body });
      if (invalid) return error(400, 50035, 'Invalid Form Body', { errors: invalid });
      Object.assign(target, {
        content: body.content ?? target.content,
        components: body.components ?? target.components,
        edited_timestamp: new Date(this.now()).toISOString(),
      });
      return send(200, target);
    }
    return error(404, 0, '404: Not Found');
  }

  /** Keeps a reply or follow-up of `i` as the message Discord makes of it (ephemeral: seen by `i`'s person only). */
  private sendFollowUp(i: FakeInteraction, body: any): P.ApiMessage {
    const source = this.messageById(i.messageId)!;
    const sent = P.message({
      id: P.snowflake(),
      channel_id: source.channel_id,
      author: this.bot,
      content: body.content ?? '',
      components: body.components ?? [],
      flags: body.flags ?? 0,
      webhook_id: this.applicationId,
      ...(source.guild_id ? { guild_id: source.guild_id } : {}),
    });
    this.followUpMessages.set(sent.id, sent);
    if ((sent.flags & EPHEMERAL) !== 0) this.ephemeralFor.set(sent.id, i.user.id);
    i.followUps.push({
      content: sent.content,
      flags: sent.flags,
      allowed_mentions: body.allowed_mentions,
      components: sent.components as any[],
      messageId: sent.id,
    });
    return sent;
  }

  /** Records the age of the interaction token a call used; true when it is past its 15 minutes. */
  private noteTokenAge(call: DiscordCall, i: FakeInteraction): boolean {
    call.tokenAgeMs = this.now() + this.tokenAgeOffsetMs - i.dispatchedAt;
    call.expiredToken = call.tokenAgeMs > TOKEN_LIFETIME_MS;
    return call.expiredToken;
  }

  private tooMany(send: (s: number, p: unknown, h: Record<string, string>) => void, seconds: number): void {
    const s = Math.max(0.001, seconds);
    send(
      429,
      { message: 'You are being rate limited.', retry_after: s, global: false },
      {
        'retry-after': String(Math.ceil(s)),
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset-after': s.toFixed(3),
        'x-ratelimit-bucket': 'fake-messages-bucket',
        'x-ratelimit-scope': 'user',
      },
    );
  }
}

/**
 * The 50035 `errors` of an interaction callback: MODAL (9) is not available for a MODAL_SUBMIT
 * and its data must pass Discord's modal checks; the component types (6, 7) need a message.
 */
function callbackErrors(i: FakeInteraction, body: any): Record<string, string> | null {
  if (![4, 5, 6, 7, 9].includes(body?.type)) return { type: 'Value must be one of {4, 5, 6, 7, 9}.' };
  if (body.type === 9) {
    if (i.kind === 'modal_submit') return { type: 'A modal cannot answer a modal submission.' };
    return modalErrors(body.data);
  }
  if (body.type === 4) return layoutErrors(body.data ?? {});
  return null;
}

/**
 * The 50035 `errors` of a reply whose referenced message is not in the channel (Discord: "Unknown
 * message"), unless `fail_if_not_exists` is false (then the reply is sent without the reference check).
 */
function referenceErrors(
  body: any,
  channelId: string,
  messages: Map<string, P.ApiMessage>,
): Record<string, string> | null {
  const ref = body?.message_reference;
  if (!ref || ref.fail_if_not_exists === false) return null;
  const target = messages.get(String(ref.message_id));
  return target && target.channel_id === channelId ? null : { 'message_reference.message_id': 'Unknown message' };
}

/** The 50035 `errors` object for a message body over Discord's limits, or null when it is valid. */
export function layoutErrors(body: any): Record<string, string> | null {
  const errors: Record<string, string> = {};
  if (typeof body.content === 'string' && body.content.length > 2000)
    errors.content = 'Must be 2000 or fewer in length.';
  const rows: any[] = body.components ?? [];
  if (rows.length > 5) errors.components = 'Must be 5 or fewer in length.';
  rows.forEach((row, r) => {
    const buttons: any[] = row.components ?? [];
    if (row.type !== 1 || buttons.length < 1 || buttons.length > 5)
      errors[`components.${r}`] = 'An action row holds 1 to 5 components.';
    const seen = new Set<string>();
    buttons.forEach((b, i) => {
      if (typeof b.label === 'string' && b.label.length > 80)
        errors[`components.${r}.components.${i}.label`] = 'Must be 80 or fewer in length.';
      // A link button (ButtonStyle.Link 5): a url of 1-512 characters and no custom_id; it sends no interaction.
      if (b.style === 5) {
        if (typeof b.url !== 'string' || b.url.length < 1 || b.url.length > 512)
          errors[`components.${r}.components.${i}.url`] = 'Must be between 1 and 512 in length.';
        if (b.custom_id !== undefined)
          errors[`components.${r}.components.${i}.custom_id`] = 'A link button cannot have a custom_id.';
        return;
      }
      // discord-api-types ButtonStyle: Primary 1, Secondary 2, Success 3, Danger 4 take a custom_id (Link 5 and Premium 6 do not).
      if (![1, 2, 3, 4].includes(b.style))
        errors[`components.${r}.components.${i}.style`] =
          'Value must be one of {1, 2, 3, 4} for a button with a custom_id.';
      if (typeof b.custom_id !== 'string' || b.custom_id.length < 1 || b.custom_id.length > 100)
        errors[`components.${r}.components.${i}.custom_id`] = 'Must be between 1 and 100 in length.';
      if (seen.has(b.custom_id))
        errors[`components.${r}.components.${i}.custom_id`] = 'Component custom id is duplicated.';
      seen.add(b.custom_id);
    });
  });
  return Object.keys(errors).length > 0 ? errors : null;
}
