import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/** Status and message for an error node's HTTP parser raised before any route ran. */
function describe(code: string | undefined): [status: number, message: string] {
  if (code === 'HPE_HEADER_OVERFLOW') return [431, 'request headers are too large'];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'the request was not received in time'];
  return [400, 'malformed HTTP request'];
}

/**
 * Answers a request node's HTTP parser refused (bad request line, headers too large, timeout)
 * in the API's error shape `{error: {code, message}}`, then closes the connection.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] = describe(error.code);
  const body = JSON.stringify({ error: { code: 'invalid_request', message } });
  // A response still being written on this connection must not get a second one mixed into it.
  const busy = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (socket.writable && !busy) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
