import type { ResultBus } from '../core/ports.js';
import { Listeners } from './listeners.js';

const ALL = '*';

/** In-process {@link ResultBus}; listeners run on a microtask, as a Redis message would arrive after the commit. */
export class MemoryResultBus implements ResultBus {
  private readonly results = new Listeners();
  private readonly history = new Listeners<[string, string]>();

  subscribe(askId: string, listener: () => void): () => void {
    return this.results.add(askId, listener);
  }

  /** Wakes the ask's subscribers; the memory store calls it inside its atomic sections. */
  announce(askId: string): void {
    // Snapshot now; an unsubscribe between publish and delivery is honoured, as with Redis.
    const snapshot = this.results.snapshot(askId);
    if (snapshot.length > 0) queueMicrotask(() => this.results.emit(askId, [], snapshot));
  }

  subscribeHistory(listener: (askId: string, runId: string) => void): () => void {
    return this.history.add(ALL, listener);
  }

  /** Never fires: an in-process bus loses nothing. */
  onResync(_listener: () => void): () => void {
    return () => {};
  }

  async notifyHistory(askId: string, runId: string): Promise<void> {
    const snapshot = this.history.snapshot(ALL);
    if (snapshot.length > 0) queueMicrotask(() => this.history.emit(ALL, [askId, runId], snapshot));
  }

  async close(): Promise<void> {
    this.results.clear();
    this.history.clear();
  }
}
