// The store on PostgreSQL (beyond one machine): each sidecar reads a hot standby of the primary through a bounded
// pool with a statement timeout. Before every read, the standby's probe (standby-probe.ts) says whether it can be
// read; while it cannot, every query fails at once (live routes answer 503 without waiting on a dead pool) and
// health says degraded; it recovers by itself.
//
// The pool is shared between clients fairly (issue 46): a read waits for a connection in its client's line
// (fair-slots.ts, clients.ts' currentClient), so one client's hundreds of reads delay another's one by a read a
// client, not by all of them; a read that waited its longest is refused (Overloaded: 503 with Retry-After). The
// store's own reads, which every request waits on (the probe, and the change log that freshness.ts checks before a
// cached page is served), have a connection of their own and wait behind no client: with one shared pool, a reader's
// cached page waited behind a stranger's fifty reads for the change log's.
import pg from 'pg';
import { clientGone, currentClient } from '../../admission/clients.ts';
import { FairSlots, Overloaded } from '../../admission/fair-slots.ts';
import { LIMITS } from '../../admission/limits.ts';
import type { Card, Profile } from '../../../src/lib/live-content.ts';
import { namedReadsFor, type Read } from '../reads.ts';
import { StandbyProbe } from './standby-probe.ts';
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

/**
 * The server's reads (reads.ts), compiled for PostgreSQL once, and prepared by each connection of the pool the first
 * time it runs them (by name): the standby parses and plans a read once a connection, not once a request.
 */
const READS = namedReadsFor('postgres');

/** A query run by a caller: a read, with its parameters by name. */
type Query = <P extends Record<string, unknown>, Row>(read: Read<P, Row>, values: P) => Promise<Row[]>;

export interface PgStoreOptions {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  /** Replay lag past which the standby counts as stale, while it has WAL to replay. */
  maxReplicaLagMs: number;
  /** How often the probe runs. */
  probeMs?: number;
  /** The longest a read waits for a connection (in its client's line, or for the pool to open one). */
  connectionWaitMs?: number;
  /** Reads that may wait for a connection, every client's together, per connection of the pool. */
  waitingPerConnection?: number;
  /** The pool's connections in turn between clients, as the app's admission made them (else of the two above). */
  slots?: FairSlots;
}

export class PgStore implements Store {
  /** The clients' reads: `poolSize` connections, taken through `slots`. */
  private readonly pool: pg.Pool;
  private readonly slots: FairSlots;
  /** The store's own reads (the probe, the change log): one connection that no client's read waits for. */
  private readonly own: pg.Pool;
  /** Whether the database can be read now (standby-probe.ts): asked before every read. */
  private readonly standby: StandbyProbe;
  private identity: string | undefined;

  constructor(options: PgStoreOptions) {
    const connectionWaitMs = options.connectionWaitMs ?? LIMITS.pgConnectionWaitMs.default;
    const waitingPerConnection = options.waitingPerConnection ?? LIMITS.pgWaitingPerConnection.default;
    const pool = (max: number, name: string) => {
      const made = new pg.Pool({
        connectionString: options.url,
        max,
        // A stuck database must never pile requests up: bounded waits for a connection and for each statement.
        connectionTimeoutMillis: connectionWaitMs,
        statement_timeout: options.statementTimeoutMs,
        query_timeout: options.statementTimeoutMs + 500,
        idleTimeoutMillis: 30_000,
        application_name: name,
        // What is asked before an answer comes is sent at once (snapshot(): a profile's reads in one round trip).
        pipeline: true,
      });
      // An idle client whose server went away emits an error: it is dropped from the pool, and the probe notices.
      made.on('error', () => undefined);
      return made;
    };
    this.pool = pool(options.poolSize, 'bio-sidecar');
    this.own = pool(1, 'bio-sidecar-own');
    this.slots =
      options.slots ??
      new FairSlots({
        capacity: options.poolSize,
        maxWaiting: options.poolSize * waitingPerConnection,
        maxWaitMs: connectionWaitMs,
      });
    this.standby = new StandbyProbe(this.own, options);
  }

  /** A cheap token that changes with every commit that touched the change log (its sequence), per database. */
  async version(): Promise<string> {
    const [row] = await this.ownQuery(READS.lastChange, {});
    return `${await this.identityOf()}:${row?.last ?? 0}`;
  }

  async isAvailable(): Promise<boolean> {
    return (await this.standby.health()).ok;
  }

  async profile(slug: string): Promise<Profile | undefined> {
    // Three reads in one snapshot: a standby replaying an owner's edit between them must not give the page half of it.
    // The rows are judged outside it: a corrupt one is another writer's mistake (500), not the database failing.
    const rows = await this.snapshot(async (query) => {
      const [[row], links, socials] = await Promise.all([
        query(READS.profile, { slug }),
        query(READS.links, { slug }),
        query(READS.socials, { slug }),
      ]);
      return row && { row, links, socials };
    });
    return rows && profileFromRows(rows.row, rows.links, rows.socials);
  }

  async card(cardId: string): Promise<Card | undefined> {
    const [row] = await this.query(READS.card, { cardId });
    return row && cardFromRow(row);
  }

  async image(file: string): Promise<Buffer | undefined> {
    const [row] = await this.query(READS.image, { name: file });
    return row && Buffer.from(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength);
  }

  async alias(alias: string): Promise<AliasTarget | undefined> {
    const [row] = await this.query(READS.alias, { alias });
    return row && aliasTargetOf(row);
  }

  async domain(host: string): Promise<OwnerDomain | undefined> {
    const [row] = await this.query(READS.domain, { host });
    return (row && ownerDomainOf(row)) ?? undefined;
  }

  async changesSince(seq: number, limit: number): Promise<ChangeBatch> {
    const [bounds] = await this.ownQuery(READS.changeBounds, {});
    const rows = (await this.ownQuery(READS.changes, { after: seq, limit: limit + 1 })) as Change[];
    return {
      epoch: await this.identityOf(),
      first: Number(bounds?.first ?? 0),
      last: Number(bounds?.last ?? 0),
      changes: rows.slice(0, limit),
      complete: rows.length <= limit,
    };
  }

  async replayed(lsn: string): Promise<boolean> {
    return this.reading(async () => {
      const { rows } = await this.own.query<{ replayed: boolean }>({
        name: 'replayed',
        // NULL on a primary, which has everything it wrote.
        text: 'SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, true) AS replayed',
        values: [lsn],
      });
      return rows[0]?.replayed ?? false;
    });
  }

  async liveKeyAfter(kind: LivePageKind, after: string, offset: number): Promise<string | undefined> {
    const [row] = await this.query(READS.liveKeyAfter[kind], { after, offset });
    return row?.key;
  }

  async liveCountAfter(kind: LivePageKind, after: string, max: number): Promise<{ rows: number; translated: number }> {
    const [row] = await this.query(READS.liveCountAfter[kind], { after, max });
    return { rows: Number(row?.n ?? 0), translated: Number(row?.translated ?? 0) };
  }

  async livePagesFrom(kind: LivePageKind, start: string, limit: number): Promise<LivePage[]> {
    return livePagesOf(kind, await this.query(READS.liveFrom[kind], { start, limit }));
  }

  async cardsOfProfile(slug: string, limit: number): Promise<LivePage[]> {
    return livePagesOf('card', await this.query(READS.cardsOfProfile, { slug, limit }));
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.own.end()]);
  }

  stats() {
    return {
      replicaLagMs: this.standby.lagMs,
      newestCommitAt: this.standby.newestCommitAt,
      poolTotal: this.pool.totalCount,
      poolIdle: this.pool.idleCount,
      poolWaiting: this.slots.waiting,
    };
  }

  private async identityOf(): Promise<string> {
    if (!this.identity) {
      const [row] = await this.ownQuery(READS.identity, {});
      this.identity = row?.id ?? 'none';
    }
    return this.identity;
  }

  /** Runs a client's read once the probe says the database can be read; every failure is StoreUnavailableError. */
  private query: Query = (read, values) =>
    this.reading(async () => (await this.pool.query(statement(read, values))).rows, this.slots);

  /** Runs one of the store's own reads on its own connection, like query() otherwise. */
  private ownQuery: Query = (read, values) =>
    this.reading(async () => (await this.own.query(statement(read, values))).rows);

  /**
   * Runs reads on one connection in one read-only snapshot (REPEATABLE READ), like query() otherwise, in one round
   * trip: the pool's connections pipeline (pg's `pipeline`), so the transaction's begin, every read `reads` asks before
   * it first awaits, and the commit go to the standby together, and their answers come back together.
   */
  private snapshot<T>(reads: (query: Query) => Promise<T>): Promise<T> {
    return this.reading(async () => {
      const client = await this.pool.connect();
      let failed = false;
      try {
        // Written to the socket at once, too: a write to the standby's socket is a system call that wakes it (five
        // of them were a tenth of the sidecar's busy time in the PostgreSQL render crawl's profile).
        const socket = client.connection.stream;
        socket.cork();
        let sent: [Promise<unknown>, Promise<T>, Promise<unknown>];
        try {
          sent = [
            client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'),
            reads(async (read, values) => (await client.query(statement(read, values))).rows),
            client.query('COMMIT'),
          ];
        } finally {
          socket.uncork();
        }
        return (await Promise.all(sent))[1];
      } catch (err) {
        failed = true;
        throw err;
      } finally {
        // A connection that failed inside its transaction is not given back to the pool as it is.
        client.release(failed);
      }
    }, this.slots);
  }

  /**
   * Runs `attempt` once the probe says the database can be read, and, for a client's read, once its turn in `slots`
   * comes; every failure is StoreUnavailableError, a read refused its turn Overloaded.
   */
  private async reading<T>(attempt: () => Promise<T>, slots?: FairSlots): Promise<T> {
    const health = await this.standby.health();
    if (!health.ok) throw new StoreUnavailableError(`database unavailable: ${health.problem}`);
    const release = slots && (await slots.acquire(currentClient(), clientGone()));
    if (release === undefined && slots) throw new Overloaded(`${slots.waiting} reads are waiting for the database`);
    try {
      try {
        return await attempt();
      } catch (err) {
        // A hot standby may cancel a read that conflicts with what it replays, and a pooled connection may have
        // been closed under it: both pass on a second try.
        if (!isTransient(err)) throw err;
        return await attempt();
      }
    } catch (err) {
      // The next probe decides again; until then this request fails, and the next ones only if the probe does.
      this.standby.askAgain();
      throw new StoreUnavailableError(`database query failed: ${(err as Error).message}`, { cause: err });
    } finally {
      release?.();
    }
  }
}

/** A read as a named statement, with its parameters. */
function statement<P extends Record<string, unknown>>(read: Read<P, unknown>, values: P): pg.QueryConfig {
  return { name: read.name, text: read.sql, values: read.args(values) };
}

/** Errors that a second try may not meet: a conflict with recovery, a connection that went away. */
function isTransient(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  const message = (err as Error).message ?? '';
  return (
    code === '40001' ||
    code === '57P01' ||
    code.startsWith('08') ||
    /Connection terminated|ECONNRESET|conflict with recovery/i.test(message)
  );
}
