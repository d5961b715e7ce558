import type { AskgateClient } from '../client/index.js';

/** Blocked calls waiting to be recorded, at most; more are dropped (counted). */
export const RECORD_QUEUE_MAX = 32;
/** The longest tool name sent (askgate's limit). */
const TOOL_MAX = 200;

/**
 * Records blocked calls on the run's open ask (`POST /v1/runs/:runId/guard-blocked`) in the
 * background: one request at a time, at most {@link RECORD_QUEUE_MAX} waiting, so a tool loop never
 * piles up requests. Fire and forget: a failure is counted, never retried, and never changes a
 * decision (the call stays blocked). Only the tool's name is sent, never its arguments.
 */
export class BlockRecorder {
  private readonly queue: { tool: string; askId?: string }[] = [];
  private busy = false;
  private closed = false;
  /** Calls recorded, dropped (queue full) and failed (askgate refused or could not be reached). */
  readonly counts = { recorded: 0, dropped: 0, failed: 0 };

  constructor(
    private readonly client: Pick<AskgateClient, 'recordGuardBlocked'>,
    private readonly runId: string,
  ) {}

  /** Queues one blocked call of `tool` (waiting for `askId`, when known). */
  add(tool: string, askId: string | undefined): void {
    if (this.closed) return;
    if (this.queue.length >= RECORD_QUEUE_MAX) {
      this.counts.dropped++;
      return;
    }
    this.queue.push({ tool: tool.slice(0, TOOL_MAX), ...(askId === undefined ? {} : { askId }) });
    if (!this.busy) void this.drain();
  }

  /** Drops what waits; a request under way finishes on its own. */
  close(): void {
    this.closed = true;
    this.queue.length = 0;
  }

  private async drain(): Promise<void> {
    this.busy = true;
    try {
      for (let next = this.queue.shift(); next; next = this.queue.shift()) {
        try {
          await this.client.recordGuardBlocked(this.runId, next);
          this.counts.recorded++;
        } catch {
          this.counts.failed++;
        }
      }
    } finally {
      this.busy = false;
    }
  }
}
