import type { FastifyReply } from 'fastify';
import { frameBytes, type Frame, type FrameSink } from './stream-followers.js';

/** How the event routes' streams are bounded. */
export interface EventStreamTimes {
  /** Interval of `: keep-alive` comments, in ms. */
  heartbeatMs: number;
  /** The longest a stream stays open, in ms; then it ends and the client resumes with `Last-Event-ID`. */
  maxAgeMs: number;
  /** A stream whose unsent backlog is above this many bytes when a batch is due is closed (a client that does not read). */
  maxBacklogBytes: number;
}

/** An open server-sent event stream. */
export interface EventStream extends FrameSink {
  /** True once either side ended it. */
  readonly closed: boolean;
}

/**
 * Switches `reply` to a server-sent event stream. `cleanup` runs once when it ends, whichever side
 * ends it; `registry` holds the end function of every open stream (the server ends them on close).
 */
export function openEventStream(
  reply: FastifyReply,
  times: EventStreamTimes,
  registry: Set<() => void>,
  cleanup: () => void,
): EventStream {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write('retry: 3000\n\n');
  let closed = false;
  const end = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    clearTimeout(expiry);
    registry.delete(end);
    cleanup();
    res.end();
  };
  /** Writes `chunks` unless the client has left more than the bound unread: then it is cut off. */
  const write = (...chunks: (string | Buffer)[]) => {
    if (closed) return;
    if (res.writableLength > times.maxBacklogBytes) {
      end();
      res.destroy();
      return;
    }
    // One chunk: the shared bytes as they are (no copy); several: one write, not one per frame.
    res.write(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks.map((c) => Buffer.from(c))));
  };
  const heartbeat = setInterval(() => write(': keep-alive\n\n'), times.heartbeatMs);
  const expiry = setTimeout(end, times.maxAgeMs);
  registry.add(end);
  // The response's 'close' fires when the client goes away (the request's fires once its body is read).
  res.once('close', end);
  // A client that left during the stream's first read has already closed: no 'close' will come.
  if (res.destroyed || !res.socket || res.socket.destroyed) end();
  return {
    get closed() {
      return closed;
    },
    write(frames: Frame[]) {
      write(...frames.map(frameBytes));
    },
    end,
  };
}
