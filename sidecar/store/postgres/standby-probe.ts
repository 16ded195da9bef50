// Whether a PostgreSQL standby can be read, asked at most once a second (concurrent callers share one probe): it
// answers, its replay is not behind by more than the limit while WAL is pending, and its schema is this code's. What
// it measures on the way (the replay lag, when the newest commit it replayed was made) is what /health and the
// metrics report.
import type pg from 'pg';
import type { Result } from '../../../src/lib/result.ts';
import { schemaProblem } from '../migrations.ts';

/** Whether the standby can be read, or why not; `at`: when the probe answered. */
export type Health = Result<{ at: number }, { problem: string; at: number }>;

export class StandbyProbe {
  private readonly pool: pg.Pool;
  private readonly options: { maxReplicaLagMs: number; probeMs?: number | undefined };
  private last: Health = { ok: false, problem: 'not probed yet', at: 0 };
  private probing: Promise<Health> | undefined;
  /** Probes in a row that found the replay behind the limit with WAL pending: one alone may be a commit in flight. */
  private behind = 0;
  /** Where replay stood when WAL was first seen pending there: replay that does not move is lag too. */
  private stall: { lsn: string; since: number } | undefined;
  /** The replay lag the last probe measured while WAL was pending (0 when none was). */
  lagMs = 0;
  /** When the newest commit this standby has replayed was made on the primary (ISO 8601; null on a primary). */
  newestCommitAt: string | null = null;

  constructor(pool: pg.Pool, options: { maxReplicaLagMs: number; probeMs?: number | undefined }) {
    this.pool = pool;
    this.options = options;
  }

  /** A read failed: the next caller probes again instead of trusting the last answer. */
  askAgain(): void {
    this.last = { ...this.last, at: 0 };
  }

  /** The current health, probed again when older than probeMs; concurrent callers share one probe. */
  health(now = Date.now()): Promise<Health> {
    if (now - this.last.at < (this.options.probeMs ?? 1000)) return Promise.resolve(this.last);
    this.probing ??= this.check(now).then(
      (health) => {
        this.last = health;
        this.probing = undefined;
        return health;
      },
      () => {
        this.probing = undefined;
        return this.last;
      },
    );
    return this.probing;
  }

  private async check(now: number): Promise<Health> {
    try {
      const { rows } = await this.pool.query<{
        recovery: boolean;
        pending: boolean | null;
        lag_ms: number | null;
        replayed_at: Date | null;
        replay: string | null;
        version: number | null;
      }>(
        `SELECT pg_is_in_recovery() AS recovery,
                pg_last_wal_replay_lsn()::text AS replay,
                -- More than a WAL page received and not replayed: when idle, the received position may rest on a page
                -- boundary just past the last replayed record, which is nothing pending.
                coalesce(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()) > 8192, false) AS pending,
                (extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS lag_ms,
                pg_last_xact_replay_timestamp() AS replayed_at,
                (SELECT max(version) FROM schema_version) AS version`,
      );
      const row = rows[0]!;
      // A standby cut off from its primary cannot see what it misses; how old its newest data is, it can say.
      this.newestCommitAt = row.recovery && row.replayed_at ? row.replayed_at.toISOString() : null;
      const problem = schemaProblem(row.version ?? 0);
      if (problem) return { ok: false, problem: `${problem} on the primary`, at: now };
      // The lag while WAL is pending: since the last replayed commit was made on the primary, or since replay last
      // moved (after a standby restart nothing may have been replayed yet, and the first measure is unknown).
      if (row.recovery && row.pending && row.replay) {
        if (this.stall?.lsn !== row.replay) this.stall = { lsn: row.replay, since: now };
      } else {
        this.stall = undefined;
      }
      const lag = row.recovery && row.pending ? Math.max(row.lag_ms ?? 0, this.stall ? now - this.stall.since : 0) : 0;
      this.lagMs = lag;
      this.behind = lag > this.options.maxReplicaLagMs ? this.behind + 1 : 0;
      if (this.behind >= 2) {
        return {
          ok: false,
          problem: `the standby's replay is ${Math.round(lag)} ms behind (limit ${this.options.maxReplicaLagMs})`,
          at: now,
        };
      }
      return { ok: true, at: now };
    } catch (err) {
      const missing = /relation "schema_version" does not exist/.test((err as Error).message);
      if (missing)
        return { ok: false, problem: 'the database has no schema: run npm run db -- migrate on the primary', at: now };
      // Unreachable, or too slow to answer: asked again soon rather than after a whole probe interval.
      return {
        ok: false,
        problem: `cannot reach the database: ${(err as Error).message}`,
        at: now - (this.options.probeMs ?? 1000) + 200,
      };
    }
  }
}
