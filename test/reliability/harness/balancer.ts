import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { History } from './history.js';
import type { AskgateNode } from './node.js';

/**
 * A round-robin HTTP load balancer in front of askgate replicas (the public webhook URL Telegram
 * posts to). It skips replicas that are down or refuse the connection, and records which replica
 * got each update (`platform` events with `route`), so the checker can tell cross-replica wakes.
 */
export class Balancer {
  private next = 0;
  private constructor(
    private readonly server: Server,
    private readonly nodes: AskgateNode[],
    private readonly history: History,
  ) {}

  /** Starts the balancer on `port` (0 = any free port) in front of `nodes`. */
  static async start(nodes: AskgateNode[], history: History, port = 0): Promise<Balancer> {
    let self: Balancer | null = null;
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const out = await self!.forward(req.method ?? 'POST', req.url ?? '/', req.headers, Buffer.concat(chunks));
      res.writeHead(out.status, { 'content-type': 'application/json' }).end(out.body);
    });
    self = new Balancer(server, nodes, history);
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    return self;
  }

  /** The balancer's base URL. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Stops the balancer. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private async forward(
    method: string,
    path: string,
    headers: Record<string, string | string[] | undefined>,
    body: Buffer,
  ): Promise<{ status: number; body: string }> {
    let update: { update_id?: number; callback_query?: { id: string } } = {};
    try {
      update = JSON.parse(body.toString('utf8')) as typeof update;
    } catch {
      // not JSON: forwarded as is
    }
    for (let tries = 0; tries < this.nodes.length; tries++) {
      const node = this.nodes[this.next++ % this.nodes.length]!;
      if (!node.up) continue;
      try {
        const res = await fetch(node.url + path, {
          method,
          headers: {
            'content-type': 'application/json',
            'x-telegram-bot-api-secret-token': String(headers['x-telegram-bot-api-secret-token'] ?? ''),
          },
          body: new Uint8Array(body),
          signal: AbortSignal.timeout(10_000),
        });
        this.history.observe('platform', {
          platform: 'telegram',
          result: res.status,
          data: { call: 'webhook', route: node.name, updateId: update.update_id, tapId: update.callback_query?.id },
        });
        return { status: res.status, body: await res.text() };
      } catch {
        // refused or timed out: the next replica
      }
    }
    return { status: 502, body: '{"error":"no replica"}' };
  }
}
