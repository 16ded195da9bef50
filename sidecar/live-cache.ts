// Rendered live pages (and what a card or alias resolves to) held in memory: bounded in entries and in bytes (least
// recently used goes first), each entry tagged with the entity it was built from (services/entities.ts) and evicted
// when the change log names that entity (services/freshness.ts), or when its content would change by the clock (a
// link window). The bytes matter more than the count: 5,000 link-preview pictures of 60 KB are 300 MB, and a crawl of
// them kept the process near 570 MB (issue 46).
interface Entry<V> {
  value: V;
  expiresAt: number;
  tag: string | undefined;
  /** What it holds, as its maker counted it. */
  bytes: number;
  /** When it was last moved to the back (a count of moves): moved again only once others have passed it. */
  movedAt: number;
}

export class LiveCache<V> {
  private readonly max: number;
  private readonly maxBytes: number;
  private readonly entries = new Map<string, Entry<V>>();
  /** The keys of the entries built from each entity. */
  private readonly byTag = new Map<string, Set<string>>();
  private moves = 0;
  private held = 0;

  constructor(max = 5000, maxBytes = Infinity) {
    this.max = max;
    this.maxBytes = maxBytes;
  }

  /** The bytes the entries hold, as their makers counted them. */
  get bytes(): number {
    return this.held;
  }

  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.delete(key);
      return undefined;
    }
    // Map keeps insertion order: re-inserting marks the entry as most recently used. An entry among the most recent
    // quarter stays where it is: moving it on every hit was a tenth of a cached page's answer, and it is far from
    // being the one evicted next.
    if (this.moves - entry.movedAt > this.max / 4) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      entry.movedAt = ++this.moves;
    }
    return entry.value;
  }

  /** Keeps `value` (which holds `bytes`) under `key`; one larger than the whole byte bound is not kept. */
  set(key: string, value: V, expiresAt = Infinity, tag?: string, bytes = 0): void {
    if (this.max === 0 || bytes > this.maxBytes) return;
    this.delete(key);
    while (this.entries.size > 0 && (this.entries.size >= this.max || this.held + bytes > this.maxBytes)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt, tag, bytes, movedAt: ++this.moves });
    this.held += bytes;
    if (tag !== undefined) {
      const keys = this.byTag.get(tag) ?? new Set<string>();
      keys.add(key);
      this.byTag.set(tag, keys);
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.held -= entry.bytes;
    if (entry.tag === undefined) return;
    const keys = this.byTag.get(entry.tag);
    keys?.delete(key);
    if (keys?.size === 0) this.byTag.delete(entry.tag);
  }

  /** Evicts every entry built from the entity `tag` names. */
  deleteTagged(tag: string): void {
    for (const key of [...(this.byTag.get(tag) ?? [])]) this.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.byTag.clear();
    this.held = 0;
  }

  get size(): number {
    return this.entries.size;
  }
}
