import { clientKey } from '../core/client-address.js';

/** What the table needs of a session: who opened it and what of it is open now. */
export interface TableSession {
  /** The caller that opened it ({@link callerOf}). */
  caller: string;
  /** When a request of this session last started or ended. */
  lastSeen: number;
  /** Requests in progress: `calls` (POST, DELETE) and `streams` (GET, the server's event stream). */
  calls: number;
  streams: number;
}

/** Why a new session was refused: every session of this caller, or of everyone, has a call in flight. */
export type Refusal = 'caller' | 'total';

/**
 * Who opens an MCP session: the peer address of the connection. The API token cannot tell
 * callers apart (there is one, shared by every agent), and `X-Forwarded-For` is whatever the
 * client writes. An IPv4-mapped address counts as its IPv4 address; an IPv6 address by its /64,
 * the block one host is usually given ({@link clientKey}).
 */
export function callerOf(address: string | undefined): string {
  return address === undefined ? 'unknown' : clientKey(address);
}

/**
 * The open MCP sessions of this process, least recently used first, bounded in total (`max`)
 * and per caller (`perCaller`). A new session first evicts its caller's least recently used
 * session that has no call in flight when the caller is at its bound, then anyone's when the
 * table is full; when neither can make room it is refused, so one caller with calls in flight
 * can take at most `perCaller` of the `max` places.
 */
export class McpSessionTable<S extends TableSession> {
  private readonly sessions = new Map<string, S>();
  /** Initialize requests admitted but not yet answered, per caller: they count against both bounds. */
  private readonly opening = new Map<string, number>();
  private openingTotal = 0;

  constructor(
    private readonly limits: { max: number; perCaller: number },
    /** Closes an evicted or idle session (already removed from the table). */
    private readonly onEnd: (session: S, why: string) => void,
  ) {}

  /** Open sessions. */
  get size(): number {
    return this.sessions.size;
  }

  /** The open session `id`, if any. */
  get(id: string): S | undefined {
    return this.sessions.get(id);
  }

  /** Registers an initialized session (as the most recently used). */
  add(id: string, session: S): void {
    this.sessions.set(id, session);
  }

  /** Forgets a session that ended by itself (DELETE, transport closed); false when it was not there. */
  delete(id: string): boolean {
    return this.sessions.delete(id);
  }

  /** Marks a session as the most recently used. */
  touch(id: string, session: S): void {
    if (this.sessions.delete(id)) this.sessions.set(id, session);
  }

  /** Makes room for one more session of `caller` and counts it as opening; the refusal when there is none. */
  admit(caller: string): Refusal | null {
    // A caller bound as large as the total is none: the total's refusal (503) says it.
    while (this.limits.perCaller < this.limits.max && this.countOf(caller) >= this.limits.perCaller)
      if (!this.evictIdle((s) => s.caller === caller, 'caller')) return 'caller';
    while (this.sessions.size + this.openingTotal >= this.limits.max)
      if (!this.evictIdle(() => true, 'total')) return 'total';
    this.opening.set(caller, (this.opening.get(caller) ?? 0) + 1);
    this.openingTotal += 1;
    return null;
  }

  /** The initialize admitted for `caller` is over (its session registered, or it failed). */
  opened(caller: string): void {
    const left = (this.opening.get(caller) ?? 1) - 1;
    if (left > 0) this.opening.set(caller, left);
    else this.opening.delete(caller);
    this.openingTotal -= 1;
  }

  /** Closes the sessions with no request open since `now - idleMs`. */
  sweep(now: number, idleMs: number): void {
    for (const [id, s] of this.sessions) {
      if (s.calls === 0 && s.streams === 0 && now - s.lastSeen > idleMs) this.end(id, s, 'idle');
    }
  }

  /** Removes every session and returns them (shutdown). */
  clear(): S[] {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    return all;
  }

  private countOf(caller: string): number {
    let n = this.opening.get(caller) ?? 0;
    for (const s of this.sessions.values()) if (s.caller === caller) n += 1;
    return n;
  }

  /** Evicts the least recently used session matching `which` with no call in flight; false when none. */
  private evictIdle(which: (s: S) => boolean, bound: Refusal): boolean {
    for (const [id, s] of this.sessions) {
      if (s.calls > 0 || !which(s)) continue;
      this.end(id, s, bound === 'caller' ? 'evicted: too many sessions of its caller' : 'evicted: too many sessions');
      return true;
    }
    return false;
  }

  private end(id: string, s: S, why: string): void {
    this.sessions.delete(id);
    this.onEnd(s, why);
  }
}
