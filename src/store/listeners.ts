/** Listeners keyed by a string; a failing listener never keeps the others from running. */
export class Listeners<A extends unknown[] = []> {
  private readonly byKey = new Map<string, Set<(...args: A) => void>>();

  /** Adds a listener for `key`; returns its remover. The same function added twice counts twice. */
  add(key: string, listener: (...args: A) => void): () => void {
    let set = this.byKey.get(key);
    if (!set) this.byKey.set(key, (set = new Set()));
    const entry = (...args: A) => listener(...args);
    set.add(entry);
    return () => {
      const current = this.byKey.get(key);
      if (!current) return;
      current.delete(entry);
      if (current.size === 0) this.byKey.delete(key);
    };
  }

  /** The listeners of `key` right now (later removals are checked with {@link has}). */
  snapshot(key: string): ((...args: A) => void)[] {
    return [...(this.byKey.get(key) ?? [])];
  }

  /** True while `listener` is still registered under `key`. */
  has(key: string, listener: (...args: A) => void): boolean {
    return this.byKey.get(key)?.has(listener) ?? false;
  }

  /** Calls every listener of `key`, skipping ones removed meanwhile. */
  emit(key: string, args: A, snapshot = this.snapshot(key)): void {
    for (const listener of snapshot) {
      if (!this.has(key, listener)) continue;
      try {
        listener(...args);
      } catch {
        // A failing listener must not keep the others from running.
      }
    }
  }

  clear(): void {
    this.byKey.clear();
  }
}
