import { Redis } from 'ioredis';

type SentCommand = Parameters<Redis['sendCommand']>[0];
type CommandStream = Parameters<Redis['sendCommand']>[1];

/**
 * A standalone Redis connection that sends the commands issued in one turn of the event loop in
 * one socket write: the first command of a turn corks the socket, and the check phase of that
 * turn uncorks it (Node then writes everything queued with one `writev`).
 *
 * This replaces ioredis's auto-pipelining, which batched the same way but built a `Pipeline` per
 * batch, and a Pipeline defines its `length` getter on each instance: every instance gets a hidden
 * class of its own, linked from a shared one by a transition that a young-generation GC treats as
 * live until the next full GC. So each batch (its commands, arguments, replies, and the callers
 * waiting on them: a tap's whole context) outlived every scavenge, and a scavenge copied ~10 % of
 * what askgate had allocated instead of ~1 % (bench/OPTIMIZATIONS-19.md, change 30). It also lets
 * a batch go out while the previous one is still waiting for its replies, which auto-pipelining
 * did not (one pipeline in flight at a time).
 */
export class TurnBatchedRedis extends Redis {
  private corked: Redis['stream'] | null = null;

  override sendCommand(command: SentCommand, stream?: CommandStream): unknown {
    // `stream` is a pipeline or MULTI collecting its commands: it writes to the socket itself.
    if (!stream && this.corked === null && this.status === 'ready' && this.stream.writable) {
      const socket = this.stream;
      socket.cork();
      this.corked = socket;
      setImmediate(() => this.flush(socket));
    }
    return super.sendCommand(command, stream);
  }

  /** Writes the commands corked in this turn (one socket write). */
  flush(socket: Redis['stream']): void {
    if (this.corked === socket) this.corked = null;
    socket.uncork();
  }
}
