// The store on the embedded SQLite file (the default, one machine): read-only, reopening the file when it is
// replaced or comes back, and telling a change by SQLite's data_version and the file's identity.
import type { Card, Profile } from '../../../src/lib/live-content.ts';
import { aliasTargetOf, cardFromRow, livePagesOf, ownerDomainOf, profileFromRows } from '../rows.ts';
import type { OwnerDomain } from '../../../src/lib/owner-domains.ts';
import {
  StoreUnavailableError,
  type AliasTarget,
  type Change,
  type ChangeBatch,
  type LivePage,
  type LivePageKind,
  type Store,
} from '../store.ts';
import { READS, SqliteConnection, type ConnectionOptions, type Statements } from './connection.ts';
import { RECHECK_MS, WatchedFile } from './watched-file.ts';

export class SqliteStore implements Store {
  private readonly file: WatchedFile;
  private readonly connection: SqliteConnection;
  /** The version last read from SQLite, with the file's state and the folder's event count it was read at. */
  private known: { fileState: string; events: number; version: string; checkedAt: number } | undefined;

  constructor(path: string, options: ConnectionOptions = {}) {
    this.file = new WatchedFile(path);
    this.connection = new SqliteConnection(path, options);
  }

  /**
   * A token that changes whenever the data may have changed: another process committed (SQLite's data_version),
   * or the file was replaced. Asking SQLite (a shared lock and a read of the file header) on every request was 11%
   * of the CPU of a cached live page, and half the throughput while a writer commits ten times a second. Any commit
   * writes into the database's folder (the file, its journal or its WAL), which is watched: while no event came
   * since SQLite was last asked, the answer holds. SQLite is still asked once a second, so that a lock held by
   * another process shows as it did, and on every request when the folder cannot be watched.
   */
  async version(): Promise<string> {
    return this.run((s, fileState) => {
      const now = Date.now();
      const known = this.known;
      const events = this.file.events;
      if (
        this.file.watching &&
        known?.fileState === fileState &&
        known.events === events &&
        now - known.checkedAt < RECHECK_MS
      )
        return known.version;
      const version = `${this.connection.generation}:${s.dataVersion.get() as number}`;
      this.known = { fileState, events, version, checkedAt: now };
      return version;
    });
  }

  async isAvailable(): Promise<boolean> {
    try {
      await this.run((s) => s.get(READS.check, {}));
      return true;
    } catch (err) {
      if (err instanceof StoreUnavailableError) return false;
      throw err;
    }
  }

  async profile(slug: string): Promise<Profile | undefined> {
    const found = await this.run((s) => {
      const row = s.get(READS.profile, { slug });
      return (
        row && {
          row,
          links: s.all(READS.links, { slug }),
          socials: s.all(READS.socials, { slug }),
        }
      );
    });
    return found && profileFromRows(found.row, found.links, found.socials);
  }

  async card(cardId: string): Promise<Card | undefined> {
    const row = await this.run((s) => s.get(READS.card, { cardId }));
    return row && cardFromRow(row);
  }

  async image(file: string): Promise<Buffer | undefined> {
    const row = await this.run((s) => s.get(READS.image, { name: file }));
    return row && Buffer.from(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength);
  }

  async alias(alias: string): Promise<AliasTarget | undefined> {
    const row = await this.run((s) => s.get(READS.alias, { alias }));
    return row && aliasTargetOf(row);
  }

  async domain(host: string): Promise<OwnerDomain | undefined> {
    const row = await this.run((s) => s.get(READS.domain, { host }));
    return (row && ownerDomainOf(row)) ?? undefined;
  }

  async changesSince(seq: number, limit: number): Promise<ChangeBatch> {
    return this.run((s, fileState) => {
      const bounds = s.get(READS.changeBounds, {});
      const rows = s.all(READS.changes, { after: seq, limit: limit + 1 }) as Change[];
      return {
        epoch: `${fileState.split(':').slice(0, 2).join(':')}:${s.get(READS.identity, {})?.id ?? 'none'}`,
        first: Number(bounds?.first ?? 0),
        last: Number(bounds?.last ?? 0),
        changes: rows.slice(0, limit),
        complete: rows.length <= limit,
      };
    });
  }

  async liveKeyAfter(kind: LivePageKind, after: string, offset: number): Promise<string | undefined> {
    return this.run((s) => s.get(READS.liveKeyAfter[kind], { after, offset })?.key);
  }

  async liveCountAfter(kind: LivePageKind, after: string, max: number): Promise<{ rows: number; translated: number }> {
    const row = await this.run((s) => s.get(READS.liveCountAfter[kind], { after, max }));
    return { rows: Number(row?.n ?? 0), translated: Number(row?.translated ?? 0) };
  }

  async livePagesFrom(kind: LivePageKind, start: string, limit: number): Promise<LivePage[]> {
    return livePagesOf(kind, await this.run((s) => s.all(READS.liveFrom[kind], { start, limit })));
  }

  async cardsOfProfile(slug: string, limit: number): Promise<LivePage[]> {
    return livePagesOf('card', await this.run((s) => s.all(READS.cardsOfProfile, { slug, limit })));
  }

  async close(): Promise<void> {
    this.file.close();
    this.connection.close();
  }

  /**
   * Queries the file as it is now (a file that is gone or unreadable closes the connection first), waiting without
   * blocking while another process holds its lock.
   */
  private run<T>(query: (s: Statements, fileState: string) => T): Promise<T> {
    return this.connection.whenUnlocked(() => {
      let state;
      try {
        state = this.file.current();
      } catch (err) {
        this.connection.close();
        this.known = undefined;
        throw err;
      }
      return this.connection.run(state.id, (s) => query(s, state.state));
    });
  }
}
