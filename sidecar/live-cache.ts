// Rendered live pages (and what a card resolves to) held in memory: bounded (least recently used goes first), emptied whenever the store's
// version changes, and each entry expiring when its content would change by the clock (a link window).
interface Entry<V> {
  value: V;
  expiresAt: number;
}

export class LiveCache<V> {
  private readonly max: number;
  private readonly entries = new Map<string, Entry<V>>();
  private version: string | undefined;

  constructor(max = 5000) {
    this.max = max;
  }

  get(key: string, version: string, now: number): V | undefined {
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
      return undefined;
    }
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

  set(key: string, version: string, value: V, expiresAt = Infinity): void {
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    if (this.max === 0) return;
    if (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt });
  }

  get size(): number {
    return this.entries.size;
  }
}
