import type { ServerResponse } from 'node:http';
import type { Gateway } from '../core/gateway.js';
import { consoleView } from './view.js';

/** Asks sent to a console when it connects: every pending one among these, and the newest finished. */
const SNAPSHOT_SCAN = 300;
const SNAPSHOT_FINISHED = 100;
const HEARTBEAT_MS = 20_000;
/** A console that reads slower than this backlog is dropped (it reconnects and gets a snapshot). */
const MAX_BACKLOG_BYTES = 1 << 20;

/**
 * Server-sent events for the console. One history subscription on the result bus (so changes on
 * any replica arrive) while at least one console is connected; each change is read once and
 * sent to every console. Changes are read one at a time, so a console never gets an older
 * state after a newer one of the same ask.
 */
export class ConsoleHub {
  private readonly clients = new Set<ServerResponse>();
  private readonly dirty = new Set<string>();
  private unsubscribe: (() => void) | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private draining = false;

  constructor(private readonly gateway: Gateway) {}

  /** Streams to `res` (headers already written): a snapshot, then every change, until it closes. */
  async attach(res: ServerResponse): Promise<void> {
    this.clients.add(res);
    res.once('close', () => this.detach(res));
    if (!this.unsubscribe) {
      this.unsubscribe = this.gateway.deps.bus.subscribeHistory((askId) => this.changed(askId));
      this.heartbeat = setInterval(() => this.broadcast(': ping\n\n'), HEARTBEAT_MS);
      this.heartbeat.unref();
    }
    write(res, 'retry: 2000\n\n');
    try {
      const recent = await this.gateway.deps.store.recent(SNAPSHOT_SCAN);
      const pending = recent.filter((r) => r.status === 'pending');
      const finished = recent.filter((r) => r.status !== 'pending').slice(0, SNAPSHOT_FINISHED);
      const asks = [...pending, ...finished].map(consoleView);
      write(res, event('snapshot', { now: new Date(this.gateway.deps.clock.now()).toISOString(), asks }));
    } catch (error) {
      this.gateway.deps.logger.warn({ err: (error as Error).message }, 'console snapshot failed');
      res.end(); // the browser reconnects after `retry`
    }
  }

  /** Ends every stream (server shutdown). */
  close(): void {
    for (const res of this.clients) res.end();
    this.clients.clear();
    this.stop();
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
    this.dirty.clear();
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
          const record = await this.gateway.deps.store.get(next);
          this.broadcast(record ? event('ask', consoleView(record)) : event('gone', { id: next }));
        } catch (error) {
          this.gateway.deps.logger.warn({ askId: next, err: (error as Error).message }, 'console update failed');
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private broadcast(chunk: string): void {
    for (const res of this.clients) write(res, chunk);
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
