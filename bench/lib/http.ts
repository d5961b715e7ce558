import { Agent, request } from 'node:http';

/** Reply of {@link HttpClient.request}. */
export interface HttpReply {
  status: number;
  body: string;
}

/**
 * A lean keep-alive HTTP/1.1 client for the load generator (lighter on CPU than fetch). Every
 * request has a deadline, so no bench loop can hang on a lost reply.
 */
export class HttpClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 4096 });
  private readonly host: string;
  private readonly port: number;

  constructor(base: string) {
    const url = new URL(base);
    this.host = url.hostname;
    this.port = Number(url.port);
  }

  request(
    method: string,
    path: string,
    body?: string,
    headers: Record<string, string> = {},
    timeoutMs = 30_000,
  ): Promise<HttpReply> {
    return new Promise((resolve, reject) => {
      const h: Record<string, string | number> = { ...headers };
      if (body !== undefined) {
        h['content-length'] = Buffer.byteLength(body);
        h['content-type'] ??= 'application/json';
      }
      const req = request({ host: this.host, port: this.port, method, path, headers: h, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path} timed out after ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  async json<T = any>(
    method: string,
    path: string,
    body?: unknown,
    timeoutMs?: number,
  ): Promise<{ status: number; body: T }> {
    const reply = await this.request(
      method,
      path,
      body === undefined ? undefined : JSON.stringify(body),
      {},
      timeoutMs,
    );
    let parsed: unknown = reply.body;
    try {
      parsed = JSON.parse(reply.body);
    } catch {
      // leave non-JSON bodies as text
    }
    return { status: reply.status, body: parsed as T };
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Runs at most `limit` tasks at once. */
export class Semaphore {
  private active = 0;
  private readonly queue: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((r) => this.queue.push(r));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }
}

/**
 * Runs `work(i)` for i = 0..count−1 in order on `width` loops at once: the same as a semaphore
 * over `count` tasks, without a promise or closure per task (a million items stay cheap).
 */
export async function lanes(count: number, width: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      for (let i = next++; i < count; i = next++) await work(i);
    }),
  );
}

export const sleep = (msec: number) => new Promise<void>((r) => setTimeout(r, msec));
