import { BoundedMap } from '../../core/bounded-map.js';

/**
 * A map of recently seen ids with a size bound: past `max` entries the oldest one is forgotten, so
 * a busy server costs bounded memory. Per process; for what must hold across replicas use `SeenEvents`.
 */
export class RecentIds<V> {
  private readonly entries: BoundedMap<string, V>;

  constructor(max: number) {
    this.entries = new BoundedMap(max);
  }

  /** The value remembered for `id`, or undefined. */
  get(id: string): V | undefined {
    return this.entries.get(id);
  }

  /** Remembers `value` for `id` (as the newest), forgetting the oldest entry past the bound. */
  set(id: string, value: V): void {
    this.entries.set(id, value);
  }

  /** How many ids are remembered. */
  get size(): number {
    return this.entries.size;
  }
}
