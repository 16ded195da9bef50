// The store on PostgreSQL (beyond one machine): each sidecar reads a hot standby of the primary through a bounded
// pool with a statement timeout. Before every read, the standby's probe (standby-probe.ts) says whether it can be
// read; while it cannot, every query fails at once (live routes answer 503 without waiting on a dead pool) and
// health says degraded; it recovers by itself.
import pg from 'pg';
import type { Card, Profile } from '../../../src/lib/live-content.ts';
import { numbered, READS } from '../sql.ts';
import { StandbyProbe } from './standby-probe.ts';
import {
  aliasTargetOf,
  cardFromRow,
  livePagesOf,
  profileFromRows,
  type AliasRow,
  type CardRow,
  type LinkRow,
  type LivePageRow,
  type ProfileRow,
  type SocialRow,
} from '../rows.ts';
import {
  StoreUnavailableError,
  type AliasTarget,
  type Change,
  type ChangeBatch,
  type LivePage,
  type LivePageKind,
  type Store,
} from '../store.ts';

/** The shared queries (sql.ts) with PostgreSQL's numbered placeholders, made once. */
const NUMBERED_READS = Object.fromEntries(
  Object.entries(READS).map(([name, sql]) => [
    name,
    typeof sql === 'string' ? numbered(sql) : (kind: LivePageKind) => numbered(sql(kind)),
  ]),
) as { [K in keyof typeof READS]: (typeof READS)[K] extends string ? string : (kind: LivePageKind) => string };

export interface PgStoreOptions {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  /** Replay lag past which the standby counts as stale, while it has WAL to replay. */
  maxReplicaLagMs: number;
  /** How often the probe runs. */
  probeMs?: number;
}

export class PgStore implements Store {
  private readonly pool: pg.Pool;
  /** Whether the database can be read now (standby-probe.ts): asked before every read. */
  private readonly standby: StandbyProbe;
  private identity: string | undefined;

  constructor(options: PgStoreOptions) {
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize,
      // A stuck database must never pile requests up: bounded waits for a connection and for each statement.
      connectionTimeoutMillis: 2000,
      statement_timeout: options.statementTimeoutMs,
      query_timeout: options.statementTimeoutMs + 500,
      idleTimeoutMillis: 30_000,
      application_name: 'bio-sidecar',
    });
    // An idle client whose server went away emits an error: it is dropped from the pool, and the probe notices.
    this.pool.on('error', () => undefined);
    this.standby = new StandbyProbe(this.pool, options);
  }

  /** A cheap token that changes with every commit that touched the change log (its sequence), per database. */
  async version(): Promise<string> {
    const rows = await this.query<{ last: string }>('SELECT coalesce(max(seq), 0) AS last FROM changes');
    return `${await this.identityOf()}:${rows[0]?.last ?? 0}`;
  }

  async isAvailable(): Promise<boolean> {
    return (await this.standby.health()).ok;
  }

  async profile(slug: string): Promise<Profile | undefined> {
    // Three reads in one snapshot: a standby replaying an owner's edit between them must not give the page half of it.
    return this.snapshot(async (query) => {
      const [row] = await query<ProfileRow>(NUMBERED_READS.profile, [slug]);
      if (!row) return undefined;
      const links = await query<LinkRow>(NUMBERED_READS.links, [row.id]);
      const socials = await query<SocialRow>(NUMBERED_READS.socials, [row.id]);
      return profileFromRows(row, links, socials);
    });
  }

  async card(cardId: string): Promise<Card | undefined> {
    const [row] = await this.query<CardRow>(NUMBERED_READS.card, [cardId]);
    return row && cardFromRow(row);
  }

  async image(file: string): Promise<Buffer | undefined> {
    const [row] = await this.query<{ bytes: Buffer }>(NUMBERED_READS.image, [file]);
    return row?.bytes;
  }

  async alias(alias: string): Promise<AliasTarget | undefined> {
    const [row] = await this.query<AliasRow>(NUMBERED_READS.alias, [alias]);
    return row && aliasTargetOf(row);
  }

  async changesSince(seq: number, limit: number): Promise<ChangeBatch> {
    const [bounds] = await this.query<{ first: string; last: string }>(NUMBERED_READS.changeBounds);
    const rows = await this.query<Change>(NUMBERED_READS.changes, [seq, limit + 1]);
    return {
      epoch: await this.identityOf(),
      first: Number(bounds?.first ?? 0),
      last: Number(bounds?.last ?? 0),
      changes: rows.slice(0, limit),
      complete: rows.length <= limit,
    };
  }

  async liveKeyAfter(kind: LivePageKind, after: string, offset: number): Promise<string | undefined> {
    const [row] = await this.query<{ key: string }>(NUMBERED_READS.liveKeyAfter(kind), [after, offset]);
    return row?.key;
  }

  async liveCountAfter(kind: LivePageKind, after: string, max: number): Promise<number> {
    const [row] = await this.query<{ n: string }>(NUMBERED_READS.liveCountAfter(kind), [after, max]);
    return Number(row?.n ?? 0);
  }

  async livePagesFrom(kind: LivePageKind, start: string, limit: number): Promise<LivePage[]> {
    return livePagesOf(kind, await this.query<LivePageRow>(NUMBERED_READS.liveFrom(kind), [start, limit]));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  stats() {
    return {
      replicaLagMs: this.standby.lagMs,
      newestCommitAt: this.standby.newestCommitAt,
      poolTotal: this.pool.totalCount,
      poolIdle: this.pool.idleCount,
      poolWaiting: this.pool.waitingCount,
    };
  }

  private async identityOf(): Promise<string> {
    if (!this.identity) {
      const [row] = await this.query<{ id: string }>(NUMBERED_READS.identity);
      this.identity = row?.id ?? 'none';
    }
    return this.identity;
  }

  /** Runs a query once the probe says the database can be read; every failure is StoreUnavailableError. */
  private query<T>(text: string, values: unknown[] = []): Promise<T[]> {
    return this.reading(async () => (await this.pool.query(text, values)).rows as T[]);
  }

  /** Runs reads on one connection in one read-only snapshot (REPEATABLE READ), like query() otherwise. */
  private snapshot<T>(read: (query: <R>(text: string, values: unknown[]) => Promise<R[]>) => Promise<T>): Promise<T> {
    return this.reading(async () => {
      const client = await this.pool.connect();
      let failed = false;
      try {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const result = await read(
          async <R>(text: string, values: unknown[]) => (await client.query(text, values)).rows as R[],
        );
        await client.query('COMMIT');
        return result;
      } catch (err) {
        failed = true;
        throw err;
      } finally {
        // A connection that failed inside its transaction is not given back to the pool as it is.
        client.release(failed);
      }
    });
  }

  /** Runs `attempt` once the probe says the database can be read; every failure is StoreUnavailableError. */
  private async reading<T>(attempt: () => Promise<T>): Promise<T> {
    const health = await this.standby.health();
    if (!health.ok) throw new StoreUnavailableError(`database unavailable: ${health.problem}`);
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
    }
  }
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
