// Rendered live pages (and what a card or alias resolves to) held in memory: bounded (least recently used goes
// first), each entry evicted when the change log names it (services/freshness.ts) or when its content would change
// by the clock (a link window).
interface Entry<V> {
  value: V;
  expiresAt: number;
}

export class LiveCache<V> {
  private readonly max: number;
  private readonly entries = new Map<string, Entry<V>>();

  constructor(max = 5000) {
    this.max = max;
  }

  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    // Map keeps insertion order: re-inserting marks the entry as most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, expiresAt = Infinity): void {
    if (this.max === 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
