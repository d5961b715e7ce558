import type { ServerResponse } from 'node:http';
import type { AskStore, Clock, Logger, ResultBus } from '../core/ports.js';
import type { AskRecord } from '../core/schemas.js';
import { consoleView, type ConsoleAsk } from './view.js';

/** Asks sent to a console when it connects: every pending one among these, and the newest finished. */
const SNAPSHOT_SCAN = 300;
const SNAPSHOT_FINISHED = 100;
const HEARTBEAT_MS = 20_000;
/** How often open streams' sessions are checked against sign-outs made on other replicas. */
export const SESSION_CHECK_MS = 2_000;
/** A console that reads slower than this backlog is dropped (it reconnects and gets a snapshot). */
const MAX_BACKLOG_BYTES = 1 << 20;

/** What the console's event stream reads: records, their history announcements, the time. */
export interface ConsoleFeed {
  store: Pick<AskStore, 'get' | 'recent'>;
  bus: Pick<ResultBus, 'subscribeHistory' | 'onResync'>;
  clock: Clock;
  logger: Pick<Logger, 'warn'>;
}

/**
 * Server-sent events for the console. One history subscription on the result bus (so changes on
 * any replica arrive) while at least one console is connected; each change is read once and
 * sent to every console. Changes are read one at a time, so a console never gets an older
 * state after a newer one of the same ask. A record whose view cannot be built is left out (and
 * logged), never allowed to break the stream for everyone. Streams of a session signed out on
 * any replica are ended within {@link SESSION_CHECK_MS}.
 */
export class ConsoleHub {
  /** Open streams and the session each belongs to. */
  private readonly clients = new Map<ServerResponse, string>();
  private readonly dirty = new Set<string>();
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
  ) {}

  /** Streams to `res` (headers already written) for session `sid`: a snapshot, then every change, until it closes. */
  async attach(res: ServerResponse, sid: string): Promise<void> {
    this.clients.set(res, sid);
    res.once('close', () => this.detach(res));
    if (!this.unsubscribe) {
      const unsubscribe = this.feed.bus.subscribeHistory((askId) => this.changed(askId));
      // Changes may have been missed while the bus reconnected: every console reconnects (after
      // its `retry`) and gets a fresh snapshot.
      const unresync = this.feed.bus.onResync(() => this.endAll());
      this.unsubscribe = () => {
        unsubscribe();
        unresync();
      };
      this.heartbeat = setInterval(() => this.broadcast(': ping\n\n'), HEARTBEAT_MS);
      this.heartbeat.unref();
      this.sessionCheck = setInterval(() => void this.checkSessions(), SESSION_CHECK_MS);
      this.sessionCheck.unref();
    }
    write(res, 'retry: 2000\n\n');
    try {
      const recent = await this.feed.store.recent(SNAPSHOT_SCAN);
      const pending = recent.filter((r) => r.status === 'pending');
      const finished = recent.filter((r) => r.status !== 'pending').slice(0, SNAPSHOT_FINISHED);
      const asks = [...pending, ...finished].flatMap((r) => this.view(r) ?? []);
      write(res, event('snapshot', { now: new Date(this.feed.clock.now()).toISOString(), asks }));
    } catch (error) {
      this.feed.logger.warn({ err: (error as Error).message }, 'console snapshot failed');
      res.end(); // the browser reconnects after `retry`
    }
  }

  /** Ends every stream of session `sid` on this replica (it signed out). */
  endSession(sid: string): void {
    for (const [res, owner] of this.clients) if (owner === sid) res.end();
  }

  /** Ends every stream (server shutdown). */
  close(): void {
    this.endAll();
    this.clients.clear();
    this.stop();
  }

  /** Ends every open stream; the consoles reconnect and start from a snapshot. */
  private endAll(): void {
    for (const res of this.clients.keys()) res.end();
  }

  private detach(res: ServerResponse): void {
    this.clients.delete(res);
    if (this.clients.size === 0) this.stop();
  }

  private stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
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
      const ended = await this.revoked([...new Set(this.clients.values())]);
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

  private broadcast(chunk: string): void {
    for (const res of this.clients.keys()) write(res, chunk);
  }
}

function first(set: Set<string>): string | undefined {
  return set.values().next().value;
}

function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

function write(res: ServerResponse, chunk: string): void {
  if (res.writableEnded || res.destroyed) return;
  if (res.writableLength > MAX_BACKLOG_BYTES) {
    res.destroy();
    return;
  }
  res.write(chunk);
}
