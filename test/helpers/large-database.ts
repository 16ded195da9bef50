// A database large enough for a sitemap index (60,000 profiles: three parts), with the demo data beside them, on a
// SQLite file or in a database of its own on the shared PostgreSQL primary, read from the standby with the read-only
// role. For the suites that send the costliest requests (test/faults, and the slots suite).
//
// Three suites, on both backends, ask for the same rows: they are made once and copied. A SQLite file is made once
// per machine for the inputs that make it (as the demo database is); a PostgreSQL database once per run, on the run's
// primary, as a template every later database is created from.
import { randomBytes } from 'node:crypto';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { bulkPostgres, bulkSqlite } from '../../scripts/bench/bulk-data.ts';
import { openWriter } from '../../sidecar/store/writer.ts';
import { demoData, demoDataFile, demoInputsHash, madeOnce } from './database.ts';
import { projectRoot } from './env.ts';
import { grantReader, ports, replayed, url, withClient } from './postgres.ts';
import { temporaryFolder } from './temporary.ts';

const LARGE_PROFILES = 60_000;
/** The advisory lock under which the first file of a run makes the PostgreSQL template and the others wait for it. */
const TEMPLATE_LOCK = 741_853;

/** The environment a sidecar reads the database from: DATABASE_PATH, or DATABASE_URL of the standby. */
export async function largeDatabase(
  backend: 'sqlite' | 'postgres',
  profiles = LARGE_PROFILES,
): Promise<Record<string, string>> {
  const made = `large_${profiles}_${demoInputsHash(join(projectRoot, 'scripts/bench/bulk-data.ts'))}`;
  if (backend === 'sqlite') {
    const path = join(temporaryFolder('bio-large-'), 'bio.db');
    const template = await madeOnce(`${made}.db`, async (making) => {
      bulkSqlite(making, profiles);
      await fill({ databasePath: making });
    });
    copyFileSync(template, path);
    return { DATABASE_PATH: path };
  }
  const { primary, standby } = ports();
  const name = `t_${randomBytes(6).toString('hex')}`;
  await withClient(url(primary, 'postgres'), async (c) => {
    await c.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      const found = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [made]);
      if (found.rowCount === 0) {
        // Made under another name and renamed once whole: a run stopped half-way leaves no template to trust.
        const making = `${made}_making`;
        await c.query(`DROP DATABASE IF EXISTS ${making}`);
        await c.query(`CREATE DATABASE ${making}`);
        await bulkPostgres(url(primary, making), profiles);
        await fill({ databasePath: '', databaseUrl: url(primary, making) });
        await c.query(`ALTER DATABASE ${making} RENAME TO ${made}`);
      }
    } finally {
      await c.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
    await c.query(`CREATE DATABASE ${name} TEMPLATE ${made}`);
  });
  // The read-only role's grants, in each copy: CONNECT is granted on a database, which a copy does not inherit.
  await withClient(url(primary, name), grantReader);
  await replayed();
  return { DATABASE_URL: url(standby, name, 'bio_reader') };
}

/** The demo profiles, cards and aliases, imported beside the bulk ones as any writer would. */
async function fill(config: { databasePath: string; databaseUrl?: string }) {
  const writer = await openWriter(config);
  try {
    const outcome = await writer.importData(demoData, { from: demoDataFile });
    if (!outcome.ok) throw new Error(outcome.errors.join('\n'));
  } finally {
    await writer.close();
  }
}
