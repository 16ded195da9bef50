// Per-entity freshness: the database's change log tells each sidecar exactly what changed, so one owner's edit
// evicts that owner's pages and nothing else. The cheap "has anything changed at all?" check (the store's version:
// SQLite's data_version and a stat, the change log's last sequence on PostgreSQL) runs at most every `pollMs`, and
// the log itself is read only when it moves, so an idle database costs nothing. Another database (a replaced file, a restore), a
// sequence that goes backwards, or a log pruned past what this sidecar has seen, drops everything.
// Told of a commit (a notice from the primary, store/postgres/change-notices.ts: issue 65), it reads the log as soon as
// its database has replayed the commit, without waiting for the next poll, and until then every sync asks again: a
// request that comes after the notice (an edge's, once the purger purged the page) gets the new page.
import { ChangeNotices, type ChangeNotice } from '../store/postgres/change-notices.ts';
import type { Change, Store } from '../store/store.ts';

/** How a change was found: a notice chased to the database, or the poll (a request's sync, the purger's loop). */
export type FoundBy = 'notice' | 'poll';

export type FreshnessEvent = ({ reset: true } | { reset: false; changes: Change[] }) & { via: FoundBy };

/** Changes read in one go; more than this pending (a sidecar far behind) is treated as everything. */
const BATCH = 10_000;
/** How long a notice makes every sync read (a request that comes after the purge it set off gets the new page). */
const CHASE_FOR_MS = 5_000;
/** How long a notice is chased at all: a standby that far behind is found by the poll, and /health says it lags. */
const CHASE_AT_MOST_MS = 60_000;
/** How often a notice's commit is looked for while its database has not replayed it: often at first, then less. */
const chaseEvery = (elapsed: number) => (elapsed < 1000 ? 5 : elapsed < CHASE_FOR_MS ? 50 : 250);

export class Freshness {
  private readonly store: Store;
  private readonly pollMs: number;
  private readonly listeners: ((event: FreshnessEvent) => void)[] = [];
  private epoch: string | undefined;
  private lastSeq = 0;
  /** When the change log was last read to its end (metrics: how far behind the log this reader may be). */
  syncedAt = 0;
  /** The reads of the log that found changes, by how they were set off (metrics: which path an edit took). */
  readonly found: Record<FoundBy, number> = { notice: 0, poll: 0 };
  private seenVersion: string | undefined;
  private checkedAt = -Infinity;
  private pending: Promise<void> | undefined;
  /** The latest notice's sequence and position, and when it came. */
  private announced: (ChangeNotice & { at: number }) | undefined;
  private chasing = false;

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
  async sync(now = Date.now(), via: FoundBy = 'poll'): Promise<void> {
    // A read a notice asked for is the notice's, whichever caller made it (a request's may come before the chase's).
    const told = this.behind(now, CHASE_FOR_MS);
    if (!this.pending && now - this.checkedAt < this.pollMs && !told) return;
    return this.read(told ? 'notice' : via, now);
  }

  /** Reads the database now, or joins the read under way. */
  private read(via: FoundBy, now = Date.now()): Promise<void> {
    if (this.pending) return this.pending;
    this.checkedAt = now;
    this.pending = this.check(via).then(
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

  /**
   * Reads the log at once, whenever it was last read (the notices' connection made again: what came meanwhile; an
   * edge's fetch after a purge). A read already under way may have looked before what the caller knows of was
   * committed: it is waited for, and the log read again (a read begun since is joined: it began after the call).
   */
  async catchUp(): Promise<void> {
    await this.pending?.catch(() => undefined);
    return this.read('poll');
  }

  /** The change log's sequence this reader has seen up to. */
  get position(): number {
    return this.lastSeq;
  }

  /**
   * A commit announced by the primary (store/postgres/change-notices.ts): read as soon as this database has replayed
   * it, and, until then, by every sync.
   */
  announce(notice: ChangeNotice, now = Date.now()): void {
    if (notice.seq <= this.lastSeq || (this.announced && notice.seq <= this.announced.seq)) return;
    this.announced = { ...notice, at: now };
    void this.chase();
  }

  /** Whether a notice of the last `ms` names a change this reader has not read yet (a notice is a hint). */
  private behind(now: number, ms: number): boolean {
    const announced = this.announced;
    return announced !== undefined && announced.seq > this.lastSeq && now - announced.at < ms;
  }

  /**
   * Waits for the database to replay the announced commit, then reads the log; again until it holds the change. A
   * failed look (the database away a moment) is tried again, not given up: the poll may be a minute away.
   */
  private async chase(): Promise<void> {
    if (this.chasing) return;
    this.chasing = true;
    try {
      while (this.behind(Date.now(), CHASE_AT_MOST_MS)) {
        const { lsn, at } = this.announced!;
        let failed = false;
        try {
          if (!this.store.replayed || (await this.store.replayed(lsn))) await this.read('notice');
        } catch {
          // The poll and the requests' syncs say so; the chase looks again a little later.
          failed = true;
        }
        if (!this.behind(Date.now(), CHASE_AT_MOST_MS)) break;
        const elapsed = Date.now() - at;
        await new Promise((resolve) => setTimeout(resolve, failed ? 250 : chaseEvery(elapsed)));
      }
    } finally {
      this.chasing = false;
    }
  }

  private async check(via: FoundBy): Promise<void> {
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
    const event: FreshnessEvent = reset ? { reset: true, via } : { reset: false, changes: batch.changes, via };
    if (!reset && batch.changes.length === 0) return;
    this.found[via]++;
    for (const listener of this.listeners) listener(event);
  }
}

/**
 * Notices of each commit from the primary at `url` (CHANGE_NOTIFY_URL), announced to `freshness`; when the connection
 * is made again, the log is read at once for what came while it was away. Started; stop it with the process.
 */
export function followNotices(
  freshness: Freshness,
  url: string,
  log?: (fields: Record<string, unknown>) => void,
): ChangeNotices {
  const notices = new ChangeNotices({
    url,
    onNotice: (notice) => freshness.announce(notice),
    onListening: () => void freshness.catchUp().catch(() => undefined),
    ...(log ? { log } : {}),
  });
  notices.start();
  return notices;
}
