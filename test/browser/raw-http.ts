import { request, type IncomingHttpHeaders } from 'node:http';

/** A raw HTTP response: status, headers and the body as text. */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json(): any;
}

/** One request with full control of the headers (fetch forbids setting `Host`). */
export function raw(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<RawResponse> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const all = { ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...headers };
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers: all }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** One server-sent event. */
export interface SseEvent {
  event: string;
  data: any;
}

/** An open event stream: the events so far, a way to wait for one, and close. */
export interface SseStream {
  status: number;
  events: SseEvent[];
  /** Settles when the server ends the stream. */
  ended: Promise<void>;
  next(match: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  close(): void;
}

/** Opens `GET path` as an event stream and parses `event:`/`data:` blocks. */
export function openSse(base: string, path: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, base),
      { method: 'GET', headers: { accept: 'text/event-stream', ...headers } },
      (res) => {
        const events: SseEvent[] = [];
        const waiters: Array<() => void> = [];
        let buffer = '';
        const ended = new Promise<void>((done) => res.once('close', () => done()));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const name = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (name && data) events.push({ event: name, data: JSON.parse(data) });
          }
          for (const wake of waiters.splice(0)) wake();
        });
        resolve({
          status: res.statusCode ?? 0,
          events,
          ended,
          async next(match, timeoutMs = 5000) {
            const until = Date.now() + timeoutMs;
            for (;;) {
              const found = events.find(match);
              if (found) return found;
              if (Date.now() > until)
                throw new Error(
                  `no matching event within ${timeoutMs} ms; got ${events.map((e) => e.event).join(', ')}`,
                );
              await new Promise<void>((wake) => {
                waiters.push(wake);
                setTimeout(wake, 100);
              });
            }
          },
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
