import type { ResultBus } from '../core/ports.js';

/** In-process {@link ResultBus}; listeners run on a microtask, as a Redis message would arrive after the commit. */
export class MemoryResultBus implements ResultBus {
  private readonly listeners = new Map<string, Set<() => void>>();

  subscribe(askId: string, listener: () => void): () => void {
    let set = this.listeners.get(askId);
    if (!set) this.listeners.set(askId, (set = new Set()));
    const entry = () => listener();
    set.add(entry);
    return () => {
      const current = this.listeners.get(askId);
      if (!current) return;
      current.delete(entry);
      if (current.size === 0) this.listeners.delete(askId);
    };
  }

  async publish(askId: string): Promise<void> {
    this.announce(askId);
  }

  /** Synchronous form of {@link publish} for the memory store's atomic sections. */
  announce(askId: string): void {
    const set = this.listeners.get(askId);
    if (!set) return;
    const snapshot = [...set];
    queueMicrotask(() => {
      for (const listener of snapshot) {
        // An unsubscribe between publish and delivery is honoured, as with Redis.
        if (!this.listeners.get(askId)?.has(listener)) continue;
        try {
          listener();
        } catch {
          // A failing listener must not keep the others from waking.
        }
      }
    });
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
