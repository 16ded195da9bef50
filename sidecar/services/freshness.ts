// Per-entity freshness: the database's change log tells each sidecar exactly what changed, so one owner's edit
// evicts that owner's pages and nothing else. The cheap "has anything changed at all?" check (the store's version:
// SQLite's data_version and a stat, the change log's last sequence on PostgreSQL) runs at most every `pollMs`, and
// the log itself is read only when it moves, so an idle database costs nothing. Another database (a replaced file, a restore), a
// sequence that goes backwards, or a log pruned past what this sidecar has seen, drops everything.
import type { Change, Store } from '../store/store.ts';

export type FreshnessEvent = { reset: true } | { reset: false; changes: Change[] };

/** Changes read in one go; more than this pending (a sidecar far behind) is treated as everything. */
const BATCH = 10_000;

export class Freshness {
  private readonly store: Store;
  private readonly pollMs: number;
  private readonly listeners: ((event: FreshnessEvent) => void)[] = [];
  private epoch: string | undefined;
  private lastSeq = 0;
  /** When the change log was last read to its end (metrics: how far behind the log this reader may be). */
  syncedAt = 0;
  private seenVersion: string | undefined;
  private checkedAt = -Infinity;
  private pending: Promise<void> | undefined;

  constructor(store: Store, pollMs: number) {
    this.store = store;
    this.pollMs = pollMs;
  }

  listen(listener: (event: FreshnessEvent) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Brings every listener up to date with the database, or throws StoreUnavailableError when it cannot be read
   * (so nothing cached is served from a database that is gone). Concurrent callers share one read.
   */
  async sync(now = Date.now()): Promise<void> {
    if (this.pending) return this.pending;
    if (now - this.checkedAt < this.pollMs) return;
    this.checkedAt = now;
    this.pending = this.check().then(
      () => {
        this.pending = undefined;
      },
      (err: unknown) => {
        this.pending = undefined;
        // Asked again on the next request: while the database cannot be read, nothing is served from the cache.
        this.checkedAt = -Infinity;
        throw err;
      },
    );
    return this.pending;
  }

  /** The change log's sequence this reader has seen up to. */
  get position(): number {
    return this.lastSeq;
  }

  private async check(): Promise<void> {
    const version = await this.store.version();
    this.syncedAt = Date.now();
    if (version === this.seenVersion) return;
    const batch = await this.store.changesSince(this.lastSeq, BATCH);
    const reset =
      batch.epoch !== this.epoch ||
      batch.last < this.lastSeq ||
      (batch.first > this.lastSeq + 1 && batch.last > this.lastSeq) ||
      !batch.complete;
    this.epoch = batch.epoch;
    this.lastSeq = batch.last;
    this.seenVersion = version;
    const event: FreshnessEvent = reset ? { reset: true } : { reset: false, changes: batch.changes };
    if (!reset && batch.changes.length === 0) return;
    for (const listener of this.listeners) listener(event);
  }
}
