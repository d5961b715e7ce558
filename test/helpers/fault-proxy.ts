import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** How the proxy treats traffic; every field can be changed while it runs. */
export interface FaultMode {
  /** Added before each chunk is forwarded, in ms, in both directions. */
  latencyMs: number;
  /** Probability (0–1) that a chunk makes the proxy destroy both sides of its connection instead. */
  resetRate: number;
  /**
   * Forward nothing, answer nothing (a partition): new connections are accepted and never
   * connected upstream; bytes on existing ones are held, in order, until the mode ends (as TCP
   * retransmission would deliver them), so no stream is ever corrupted.
   */
  blackhole: boolean;
  /**
   * Forward nothing and hold nothing (a path that silently lost the connection's state, e.g. a
   * middlebox that forgot the flow): bytes on existing connections are discarded, and new ones are
   * accepted and never connected upstream. Unlike {@link blackhole}, what was sent meanwhile is lost.
   */
  lose: boolean;
  /** Destroy every new connection at once (a refused port, as the client sees it). */
  refuse: boolean;
  /**
   * Resets (RST, both sides) the connection a chunk travels on when this returns true, before the
   * chunk is forwarded: a cut at an exact point of a protocol exchange, e.g. while the client's
   * `INFO` ready check is in flight. `up` is client → upstream, `down` upstream → client.
   */
  resetWhen?: ((chunk: Buffer, direction: 'up' | 'down') => boolean) | undefined;
}

/** One proxied connection: the client side and the upstream side (null while blackholed). */
interface Link {
  client: Socket;
  upstream: Socket | null;
}

/** Counters of what the proxy did, for the history log. */
export interface FaultProxyStats {
  connections: number;
  resets: number;
  refused: number;
  chunks: number;
}

const CLEAN: FaultMode = {
  latencyMs: 0,
  resetRate: 0,
  blackhole: false,
  lose: false,
  refuse: false,
  resetWhen: undefined,
};

/**
 * A small TCP fault proxy on 127.0.0.1 (Toxiproxy-like) for tests: per-chunk latency, random
 * resets, blackhole, refuse and switching the upstream port. Chunks keep their order: each
 * direction has one promise chain and each chunk is due `latencyMs` after it arrived, so latency
 * delays a stream without reordering it or stacking up.
 */
export class FaultProxy {
  readonly stats: FaultProxyStats = { connections: 0, resets: 0, refused: 0, chunks: 0 };
  private mode: FaultMode = { ...CLEAN };
  private readonly links = new Set<Link>();
  private gate: { open: Promise<void>; release: () => void } | null = null;
  private constructor(
    private readonly server: Server,
    private upstreamPort: number,
    private readonly random: () => number,
  ) {}

  /** Starts a proxy to `127.0.0.1:upstreamPort` on a free loopback port. */
  static async start(upstreamPort: number, random: () => number = Math.random): Promise<FaultProxy> {
    let proxy: FaultProxy | null = null;
    const server = createServer((socket) => proxy!.accept(socket));
    proxy = new FaultProxy(server, upstreamPort, random);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** The port clients connect to. */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `redis://127.0.0.1:<port>` for convenience. */
  get redisUrl(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Changes the fault mode (fields not given keep their value). */
  set(mode: Partial<FaultMode>): void {
    this.mode = { ...this.mode, ...mode };
    if (this.mode.blackhole && !this.gate) {
      let release: () => void = () => {};
      const open = new Promise<void>((r) => (release = r));
      this.gate = { open, release };
    } else if (!this.mode.blackhole && this.gate) {
      this.gate.release();
      this.gate = null;
    }
  }

  /** Back to a transparent proxy (existing connections are kept; held bytes flow again). */
  heal(): void {
    this.set({ ...CLEAN });
  }

  /** The current mode. */
  current(): FaultMode {
    return { ...this.mode };
  }

  /** New connections go to `port`; with `cut`, existing ones are destroyed (clients reconnect). */
  switchUpstream(port: number, cut = true): void {
    this.upstreamPort = port;
    if (cut) this.cutAll();
  }

  /** Destroys every open connection (a network blip); returns how many were cut. */
  cutAll(): number {
    const n = this.links.size;
    for (const link of [...this.links]) this.drop(link, true);
    return n;
  }

  /** Stops listening and destroys every connection. */
  async close(): Promise<void> {
    this.heal();
    this.cutAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (this.mode.refuse) {
      this.stats.refused++;
      client.destroy();
      return;
    }
    this.stats.connections++;
    const link: Link = { client, upstream: null };
    this.links.add(link);
    client.on('error', () => this.drop(link, false));
    client.on('close', () => this.drop(link, false));
    if (this.mode.blackhole || this.mode.lose) {
      // Never connected: the client sees a peer that accepted and then went silent.
      client.on('data', () => {});
      return;
    }
    const upstream = connect(this.upstreamPort, '127.0.0.1');
    link.upstream = upstream;
    upstream.on('error', () => this.drop(link, false));
    upstream.on('close', () => this.drop(link, false));
    this.pipe(link, client, upstream);
    this.pipe(link, upstream, client);
  }

  private pipe(link: Link, from: Socket, to: Socket): void {
    let tail: Promise<void> = Promise.resolve();
    from.on('data', (chunk: Buffer) => {
      this.stats.chunks++;
      if (this.mode.resetWhen?.(chunk, from === link.client ? 'up' : 'down')) {
        this.stats.resets++;
        this.drop(link, true);
        return;
      }
      if (this.mode.resetRate > 0 && this.random() < this.mode.resetRate) {
        this.stats.resets++;
        this.drop(link, true);
        return;
      }
      if (this.mode.lose) return;
      const due = Date.now() + this.mode.latencyMs;
      const gate = this.gate?.open;
      tail = tail.then(async () => {
        if (gate) await gate;
        const wait = due - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (!to.destroyed) to.write(chunk);
      });
    });
  }

  private drop(link: Link, reset: boolean): void {
    if (!this.links.delete(link)) return;
    if (reset) {
      link.client.resetAndDestroy();
      link.upstream?.resetAndDestroy();
    } else {
      link.client.destroy();
      link.upstream?.destroy();
    }
  }
}
