// Per-entity freshness: the database's change log tells each sidecar exactly what changed, so one owner's edit
// evicts that owner's pages and nothing else. The cheap "has anything changed at all?" check (the store's version:
// SQLite's data_version and a stat, a sequence read on PostgreSQL) runs first, so an idle database costs nothing;
// only when it moves is the log read, at most every `pollMs`. Another database (a replaced file, a restore), a
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
  private seenVersion: string | undefined;
  private polledAt = -Infinity;
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
    const version = await this.store.version();
    if (version === this.seenVersion) return;
    // Within the interval the change stays pending: the version is not marked seen, so a later call reads it.
    if (now - this.polledAt < this.pollMs) return;
    this.pending ??= this.poll(version, now).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async poll(version: string, now: number): Promise<void> {
    this.polledAt = now;
    const batch = await this.store.changesSince(this.lastSeq, BATCH);
    const reset =
      batch.epoch !== this.epoch || batch.last < this.lastSeq || (batch.first > this.lastSeq + 1 && batch.last > this.lastSeq) || !batch.complete;
    this.epoch = batch.epoch;
    this.lastSeq = batch.last;
    this.seenVersion = version;
    const event: FreshnessEvent = reset ? { reset: true } : { reset: false, changes: batch.changes };
    if (!reset && batch.changes.length === 0) return;
    for (const listener of this.listeners) listener(event);
  }
}
