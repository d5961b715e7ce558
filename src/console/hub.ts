import type { ServerResponse } from 'node:http';
import type { AskStore, Clock, Logger, ResultBus } from '../core/ports.js';
import type { AskRecord } from '../core/schemas.js';
import { SID_OPEN } from './session.js';
import { ConsoleSnapshots } from './snapshots.js';
import { consoleView, type ConsoleAsk } from './view.js';

const HEARTBEAT_MS = 20_000;
/** How often open streams' sessions are checked against sign-outs made on other replicas (and stalls looked for). */
export const SESSION_CHECK_MS = 2_000;
/** A console that reads slower than this backlog is dropped (it reconnects and gets a snapshot). */
const MAX_BACKLOG_BYTES = 1 << 20;
/**
 * Streams one signed-in session holds at most: a browser opens one per tab (and holds at most 6
 * connections to a host over HTTP/1.1), so more is a script, not a person.
 */
export const MAX_STREAMS_PER_SESSION = 10;

/** What the console's event stream reads: records, their history announcements, the time. */
export interface ConsoleFeed {
  store: Pick<AskStore, 'get' | 'recent' | 'insights'>;
  bus: Pick<ResultBus, 'subscribeHistory' | 'onResync'>;
  clock: Clock;
  logger: Pick<Logger, 'warn' | 'info'>;
}

/** How many console streams a process holds, and how long one may leave data unread. */
export interface ConsoleStreamLimits {
  /** Streams this process holds at most (`ASKGATE_CONSOLE_MAX_STREAMS`). */
  maxStreams: number;
  /** A stream whose client leaves data unread this long (ms) is closed (`ASKGATE_CONSOLE_STALL_MS`). */
  stallMs: number;
}

/** Why a new stream is refused: the HTTP status, the error code and message, and when to retry (s). */
export interface StreamRefusal {
  status: 429 | 503;
  code: 'too_many_streams';
  message: string;
  retryAfterSeconds: number;
}

/** How long a refused console should wait before it tries again. */
const REFUSED_RETRY_SECONDS = 30;

interface Stream {
  sid: string;
  /** Changes that arrived before this stream's snapshot was written; sent right after it. Null once live. */
  queued: Buffer[] | null;
  queuedBytes: number;
  /** When data first waited unread since the socket last drained (epoch ms), or null. */
  stalledSince: number | null;
}

/**
 * Server-sent events for the console. One history subscription on the result bus (so changes on
 * any replica arrive) while at least one console is connected; each change is read once and
 * sent to every console, and the snapshot a console starts from is read once per change
 * ({@link ConsoleSnapshots}). Every event is serialized once into a Buffer that all streams
 * share, so a slow console holds references, not copies. Changes are read one at a time, so a
 * console never gets an older state after a newer one of the same ask. A record whose view cannot
 * be built is left out (and logged), never allowed to break the stream for everyone. Streams of
 * a session signed out on any replica are ended within {@link SESSION_CHECK_MS}; streams are
 * capped per process and per session, and one whose client stops reading is closed.
 */
export class ConsoleHub {
  private readonly clients = new Map<ServerResponse, Stream>();
  private readonly perSession = new Map<string, number>();
  private readonly dirty = new Set<string>();
  private readonly snapshots: ConsoleSnapshots;
  private unsubscribe: (() => void) | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private sessionCheck: NodeJS.Timeout | null = null;
  private checking = false;
  private checkFailed = false;
  private draining = false;

  constructor(
    private readonly feed: ConsoleFeed,
    /** The ids among these sessions that were signed out. */
    private readonly revoked: (sids: readonly string[]) => Promise<Set<string>>,
    private readonly limits: ConsoleStreamLimits,
  ) {
    this.snapshots = new ConsoleSnapshots(feed.store, (record) => this.view(record));
  }

  /** Why a new stream of session `sid` would be refused now, or null when it may open. */
  refusal(sid: string): StreamRefusal | null {
    if (this.clients.size >= this.limits.maxStreams)
      return {
        status: 503,
        code: 'too_many_streams',
        message: `askgate holds its most console streams (${this.limits.maxStreams}); retry later`,
        retryAfterSeconds: REFUSED_RETRY_SECONDS,
      };
    // The open console (no token) is one session for everyone on loopback: only the process cap applies.
    if (sid !== SID_OPEN && (this.perSession.get(sid) ?? 0) >= MAX_STREAMS_PER_SESSION)
      return {
        status: 429,
        code: 'too_many_streams',
        message: `this session has its most console streams open (${MAX_STREAMS_PER_SESSION}); close a tab or retry later`,
        retryAfterSeconds: REFUSED_RETRY_SECONDS,
      };
    return null;
  }

  /** Streams to `res` (headers already written) for session `sid`: a snapshot, then every change, until it closes. */
  async attach(res: ServerResponse, sid: string): Promise<void> {
    // Registered before the snapshot is asked for: every change announced from now on reaches
    // this stream (queued until its snapshot is written), and the snapshot was read after it.
    const stream: Stream = { sid, queued: null, queuedBytes: 0, stalledSince: null };
    this.clients.set(res, stream);
    this.perSession.set(sid, (this.perSession.get(sid) ?? 0) + 1);
    res.once('close', () => this.detach(res, stream));
    if (!this.unsubscribe) this.start();
    this.send(res, stream, RETRY);
    stream.queued = [];
    try {
      const shared = await this.snapshots.current();
      const queued = stream.queued ?? [];
      stream.queued = null;
      this.send(res, stream, snapshotHead(this.feed.clock.now()));
      this.send(res, stream, shared);
      for (const chunk of queued) this.send(res, stream, chunk);
    } catch (error) {
      this.feed.logger.warn({ err: (error as Error).message }, 'console snapshot failed');
      res.end(); // the browser reconnects after `retry`
    }
  }

  /** Ends every stream of session `sid` on this replica (it signed out). */
  endSession(sid: string): void {
    for (const [res, stream] of this.clients) if (stream.sid === sid) res.end();
  }

  /** Ends every stream (server shutdown). */
  close(): void {
    this.endAll();
    this.clients.clear();
    this.perSession.clear();
    this.stop();
  }

  private start(): void {
    const unsubscribe = this.feed.bus.subscribeHistory((askId) => this.changed(askId));
    // Changes may have been missed while the bus reconnected: every console reconnects (after
    // its `retry`) and gets a fresh snapshot.
    const unresync = this.feed.bus.onResync(() => {
      this.snapshots.invalidate();
      this.endAll();
    });
    this.unsubscribe = () => {
      unsubscribe();
      unresync();
    };
    this.heartbeat = setInterval(() => this.broadcast(PING), HEARTBEAT_MS);
    this.heartbeat.unref();
    this.sessionCheck = setInterval(() => {
      this.closeStalled();
      void this.checkSessions();
    }, SESSION_CHECK_MS);
    this.sessionCheck.unref();
  }

  /** Ends every open stream; the consoles reconnect and start from a snapshot. */
  private endAll(): void {
    for (const res of this.clients.keys()) res.end();
  }

  private detach(res: ServerResponse, stream: Stream): void {
    if (!this.clients.delete(res)) return;
    const left = (this.perSession.get(stream.sid) ?? 1) - 1;
    if (left > 0) this.perSession.set(stream.sid, left);
    else this.perSession.delete(stream.sid);
    if (this.clients.size === 0) this.stop();
  }

  private stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    // Without the subscription changes go unseen: the next console needs a fresh snapshot.
    this.snapshots.invalidate();
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    if (this.sessionCheck) clearInterval(this.sessionCheck);
    this.sessionCheck = null;
    this.dirty.clear();
  }

  private async checkSessions(): Promise<void> {
    if (this.checking || this.clients.size === 0) return;
    this.checking = true;
    try {
      const ended = await this.revoked([...new Set([...this.clients.values()].map((s) => s.sid))]);
      for (const sid of ended) this.endSession(sid);
      this.checkFailed = false;
    } catch (error) {
      // Logged once per outage, not every check; the streams stay (they get no updates meanwhile).
      if (!this.checkFailed) this.feed.logger.warn({ err: (error as Error).message }, 'console session check failed');
      this.checkFailed = true;
    } finally {
      this.checking = false;
    }
  }

  /** The console view of `record`, or null (logged) when it cannot be built. */
  private view(record: AskRecord): ConsoleAsk | null {
    try {
      return consoleView(record);
    } catch (error) {
      this.feed.logger.warn({ askId: record.id, err: (error as Error).message }, 'console view failed; ask left out');
      return null;
    }
  }

  private changed(askId: string): void {
    this.snapshots.invalidate();
    this.dirty.add(askId);
    if (!this.draining) void this.drain();
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      for (let next = first(this.dirty); next !== undefined; next = first(this.dirty)) {
        this.dirty.delete(next);
        try {
          const record = await this.feed.store.get(next);
          const view = record && this.view(record);
          // An ask that cannot be shown is dropped from the pages, as if it had expired.
          this.broadcast(view ? event('ask', view) : event('gone', { id: next }));
        } catch (error) {
          this.feed.logger.warn({ askId: next, err: (error as Error).message }, 'console update failed');
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private broadcast(chunk: Buffer): void {
    for (const [res, stream] of this.clients) this.send(res, stream, chunk);
  }

  /** Writes `chunk` to one stream (or queues it until its snapshot), closing the stream when its client does not read. */
  private send(res: ServerResponse, stream: Stream, chunk: Buffer): void {
    if (res.writableEnded || res.destroyed) return;
    if (stream.queued) {
      stream.queued.push(chunk);
      stream.queuedBytes += chunk.length;
      if (stream.queuedBytes > MAX_BACKLOG_BYTES) this.drop(res, 'backlog');
      return;
    }
    if (res.writableLength > MAX_BACKLOG_BYTES) return this.drop(res, 'backlog');
    if (this.stalled(stream)) return this.drop(res, 'stalled');
    if (!res.write(chunk) && stream.stalledSince === null) {
      stream.stalledSince = this.feed.clock.now();
      res.once('drain', () => (stream.stalledSince = null));
    }
  }

  private stalled(stream: Stream): boolean {
    return stream.stalledSince !== null && this.feed.clock.now() - stream.stalledSince >= this.limits.stallMs;
  }

  private closeStalled(): void {
    for (const [res, stream] of this.clients) if (this.stalled(stream)) this.drop(res, 'stalled');
  }

  /** Closes a stream whose client does not keep up; the browser reconnects and starts from a snapshot. */
  private drop(res: ServerResponse, reason: 'backlog' | 'stalled'): void {
    this.feed.logger.info({ reason, unsentBytes: res.writableLength }, 'console stream closed: client not reading');
    res.destroy();
  }
}

const RETRY = Buffer.from('retry: 2000\n\n');
const PING = Buffer.from(': ping\n\n');

/** The start of a snapshot event: its own `now`, so a shared snapshot never carries a stale clock. */
function snapshotHead(now: number): Buffer {
  return Buffer.from(`event: snapshot\ndata: {"now":${JSON.stringify(new Date(now).toISOString())},"asks":`);
}

function first(set: Set<string>): string | undefined {
  return set.values().next().value;
}

function event(name: string, data: unknown): Buffer {
  return Buffer.from(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
}
