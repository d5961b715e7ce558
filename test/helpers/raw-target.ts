import { connect } from 'node:net';

/** A response read off the socket: status (0 when none came), lower-cased headers, body text. */
export interface RawTargetResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** True when the server kept the response open past the time limit (a stream). */
  open: boolean;
}

/**
 * Sends one request byte for byte (`<METHOD> <target> HTTP/1.1`, headers as given (with
 * `connection: close` and the body's `content-length` unless they are given too), no
 * normalisation of the target: percent-encodings, dot segments and absolute forms reach the
 * server as spelled) and reads the answer until the server closes or `timeoutMs` passes.
 */
export function sendRaw(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string>,
  body = '',
  timeoutMs = 1500,
): Promise<RawTargetResponse> {
  const all = {
    connection: 'close',
    ...(body || method === 'POST' ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
    ...headers,
  };
  const lines = [`${method} ${target} HTTP/1.1`, ...Object.entries(all).map(([k, v]) => `${k}: ${v}`)];
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let open = false;
    const timer = setTimeout(() => {
      open = true;
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (error) => (chunks.length > 0 ? undefined : reject(error)));
    socket.on('close', () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks).toString('utf8');
      const split = all.indexOf('\r\n\r\n');
      const head = split >= 0 ? all.slice(0, split) : all;
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headersOut: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        if (colon > 0) headersOut[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
      const text = split >= 0 ? all.slice(split + 4) : '';
      resolve({
        status,
        headers: headersOut,
        text: headersOut['transfer-encoding'] === 'chunked' ? dechunk(text) : text,
        open,
      });
    });
    socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  });
}

/** Joins the chunks of a chunked body (as far as it arrived). */
function dechunk(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    if (eol < 0) return out + rest;
    const size = Number.parseInt(rest.slice(0, eol), 16);
    if (!Number.isFinite(size) || size === 0) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}
