// One read-only connection to the SQLite file and its prepared statements: opened on first use, reopened when the
// file at the path is another one, closed on any driver failure. A lock another process holds (a commit in progress)
// is waited out without blocking: the driver's own wait is synchronous and would stall every request, so it is off,
// and a query that finds the file locked is tried again on a timer; past lockWaitMs the store counts as unavailable
// and every query fails at once for lockBackoffMs, so that a lock held for long does not pile up waiting requests.
import Database from 'better-sqlite3';
import { schemaProblem } from '../migrations.ts';
import { readsFor, type Read } from '../reads.ts';
import { StoreUnavailableError } from '../store.ts';

export type Statements = ReturnType<typeof prepare>;

export interface ConnectionOptions {
  /** How long a query waits (without blocking) for a lock held by another process before the store counts as unavailable. */
  lockWaitMs?: number;
  /** After such a wait, how long every query fails at once instead of waiting again. */
  lockBackoffMs?: number;
}

/** The longest pause between two tries of a locked query: a commit is usually over within a few milliseconds. */
const MAX_PAUSE_MS = 16;

/** The file is locked by another process (SQLITE_BUSY): worth trying again shortly. */
class LockedError extends StoreUnavailableError {}

export class SqliteConnection {
  private readonly path: string;
  private readonly lockWaitMs: number;
  private readonly lockBackoffMs: number;
  private db: Database.Database | undefined;
  private statements: Statements | undefined;
  private fileId = '';
  private lockedUntil = 0;
  /** Bumped on every open, so that what was cached from an earlier file is never served. */
  generation = 0;

  constructor(path: string, options: ConnectionOptions = {}) {
    this.path = path;
    // A writer's commit holds the lock through its fsync: up to 1.04 s measured on two shared cores under load
    // (the edge bench's writer), so a reader gives it about twice that before calling the store unavailable.
    this.lockWaitMs = options.lockWaitMs ?? 2000;
    this.lockBackoffMs = options.lockBackoffMs ?? 1000;
  }

  /**
   * Runs `attempt` (which runs queries with run()), trying again on a timer while the file is locked by another
   * process, up to lockWaitMs; then fails, and makes every query fail at once for lockBackoffMs.
   */
  async whenUnlocked<T>(attempt: () => T): Promise<T> {
    if (Date.now() < this.lockedUntil) throw new StoreUnavailableError('database is locked by another process');
    const deadline = performance.now() + this.lockWaitMs;
    for (let pause = 1; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
      try {
        return attempt();
      } catch (err) {
        if (!(err instanceof LockedError)) throw err;
        if (performance.now() + pause > deadline) {
          this.lockedUntil = Date.now() + this.lockBackoffMs;
          throw new StoreUnavailableError(`database is locked by another process (waited ${this.lockWaitMs} ms)`, {
            cause: err,
          });
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /**
   * Runs queries on the connection to the file `fileId` names (reopening when it is another file). What the driver
   * throws (SqliteError, or its TypeError/RangeError for a connection that went away under it) means the database
   * cannot be read: StoreUnavailableError. Callers map rows outside, so their own mistakes are not reported so.
   */
  run<T>(fileId: string, query: (s: Statements) => T): T {
    const statements = this.open(fileId);
    try {
      return query(statements);
    } catch (err) {
      if (isBusy(err)) throw new LockedError('database is locked by another process', { cause: err });
      if (err instanceof Database.SqliteError || err instanceof TypeError || err instanceof RangeError) {
        this.close();
        throw new StoreUnavailableError(`database query failed: ${err.message}`, { cause: err });
      }
      throw err;
    }
  }

  close(): void {
    try {
      this.db?.close();
    } catch {
      // Closing a connection to a vanished or corrupt file can fail; it is gone either way.
    }
    this.db = undefined;
    this.statements = undefined;
  }

  private open(fileId: string): Statements {
    // The file at the path was replaced (an atomic deploy, or a restore): read the new one.
    if (this.db && fileId !== this.fileId) this.close();
    if (this.statements) return this.statements;
    let db: Database.Database | undefined;
    try {
      db = new Database(this.path, { readonly: true, fileMustExist: true, timeout: 0 });
      const problem = schemaProblem(db.pragma('user_version', { simple: true }) as number);
      if (problem) throw new StoreUnavailableError(problem);
      this.statements = prepare(db);
    } catch (err) {
      db?.close();
      if (isBusy(err)) throw new LockedError('database is locked by another process', { cause: err });
      if (err instanceof StoreUnavailableError) throw err;
      throw new StoreUnavailableError(`cannot open database ${this.path}: ${(err as Error).message}`, { cause: err });
    }
    this.db = db;
    this.fileId = fileId;
    this.generation++;
    return this.statements;
  }
}

const isBusy = (err: unknown) => err instanceof Database.SqliteError && err.code.startsWith('SQLITE_BUSY');

/** The server's reads (reads.ts), compiled for SQLite once. */
export const READS = readsFor('sqlite');

/**
 * The reads, prepared once per connection; SQLite's commit counter is its own. A read runs with its parameters by
 * name, and its rows come back typed as its query selects them.
 */
function prepare(db: Database.Database) {
  // By the read itself: a lookup by identity, where one by its SQL compared hundreds of characters.
  const prepared = new Map<Read<never, unknown>, Database.Statement>();
  const statement = (read: Read<never, unknown>) => {
    let found = prepared.get(read);
    if (!found) prepared.set(read, (found = db.prepare(read.sql)));
    return found;
  };
  for (const read of Object.values(READS).flatMap((r) => ('sql' in r ? [r] : Object.values(r))))
    statement(read as Read<never, unknown>);
  return {
    get: <P extends Record<string, unknown>, Row>(read: Read<P, Row>, values: P): Row | undefined =>
      statement(read).get(...read.args(values)) as Row | undefined,
    all: <P extends Record<string, unknown>, Row>(read: Read<P, Row>, values: P): Row[] =>
      statement(read).all(...read.args(values)) as Row[],
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
  };
}
