// PostgreSQL for the tests: the primary and standby started once for the run (test/setup/postgres.ts), and a new
// database per test server, filled with exactly the rows of the SQLite file the test made (raw writes included),
// read by the sidecar from the standby with the read-only role of deploy/postgres-roles.sql.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { inject } from 'vitest';
import { loadConfig } from '../../sidecar/config.ts';
import { migratePg } from '../../sidecar/store/postgres/pg-writer.ts';
import { projectRoot } from './env.ts';

/** Set by the vitest project that runs the HTTP and MCP suites against a standby. */
export const onPostgres = process.env.BIO_TEST_POSTGRES === '1';

export interface ClusterPorts {
  primary: number;
  standby: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: ClusterPorts;
  }
}

export const ports = (): ClusterPorts => inject('postgres');
export const url = (port: number, database: string, user = 'postgres') =>
  `postgres://${user}@127.0.0.1:${port}/${database}`;

export async function withClient<T>(connectionString: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

const TABLES = ['profiles', 'links', 'socials', 'cards', 'aliases', 'images'];
/** The advisory lock that runs deploy/postgres-roles.sql one database at a time. */
const ROLE_SCRIPT_LOCK = 741_852;

/**
 * A new database on the primary holding the rows of the SQLite file at `sqlitePath`, migrated, granted to the
 * read-only role, and replayed on the standby; returns its URLs.
 */
export async function databaseFromSqlite(
  sqlitePath: string,
): Promise<{ name: string; primary: string; standby: string }> {
  const { primary, standby } = ports();
  const name = `t_${randomBytes(6).toString('hex')}`;
  await withClient(url(primary, 'postgres'), (c) => c.query(`CREATE DATABASE ${name}`));
  await withClient(url(primary, name), async (client) => {
    await migratePg(client);
    const source = new Database(sqlitePath, { readonly: true });
    try {
      for (const table of TABLES) {
        const rows = source.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[];
        for (const row of rows) {
          const columns = Object.keys(row);
          await client.query(
            `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
            Object.values(row),
          );
        }
        if (table !== 'aliases' && table !== 'images')
          await client.query(
            `SELECT setval(pg_get_serial_sequence('${table}', 'id'), coalesce((SELECT max(id) FROM ${table}), 0) + 1, false)`,
          );
      }
    } finally {
      source.close();
    }
    await grantReader(client);
  });
  await replayed();
  return { name, primary: url(primary, name), standby: url(standby, name, 'bio_reader') };
}

/**
 * Waits until the standby has replayed everything the primary has written so far. The insert position, not the
 * write position: the test primary commits asynchronously, so a commit may still be in WAL buffers when it returns.
 */
export async function replayed(): Promise<void> {
  const { primary, standby } = ports();
  const lsn = await withClient(
    url(primary, 'postgres'),
    async (c) => (await c.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn() AS lsn')).rows[0]!.lsn,
  );
  await withClient(url(standby, 'postgres'), async (c) => {
    for (let i = 0; i < 200; i++) {
      const { rows } = await c.query<{ done: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [lsn]);
      if (rows[0]?.done) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the standby did not replay the primary within 5 s');
  });
}

/** The change-log poll interval loadConfig gives a sidecar on PostgreSQL (CHANGE_POLL_MS unset). */
export const POSTGRES_CHANGE_POLL_MS = loadConfig({ DATABASE_URL: 'postgres://reader@127.0.0.1/bio' }).changePollMs;

/**
 * Runs deploy/postgres-roles.sql in the database `client` is connected to (on the shared test primary). The script
 * alters the role, which lives in a catalog every database shares: test files running at once made PostgreSQL refuse
 * one ("tuple concurrently updated"). So one at a time, under an advisory lock held in the postgres database
 * (advisory locks belong to a database, and each test has its own).
 */
export async function grantReader(client: pg.Client): Promise<void> {
  await withClient(url(ports().primary, 'postgres'), async (lock) => {
    await lock.query('SELECT pg_advisory_lock($1)', [ROLE_SCRIPT_LOCK]);
    try {
      await client.query(readFileSync(join(projectRoot, 'deploy/postgres-roles.sql'), 'utf8'));
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1)', [ROLE_SCRIPT_LOCK]);
    }
  });
}
