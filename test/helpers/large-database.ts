// A database large enough for a sitemap index (60,000 profiles: three parts), with the demo data beside them, on a
// SQLite file or in a database of its own on the shared PostgreSQL primary, read from the standby with the read-only
// role. For the suites that send the costliest requests (test/faults).
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bulkPostgres, bulkSqlite } from '../../scripts/bench/bulk-data.ts';
import { openWriter } from '../../sidecar/store/writer.ts';
import { demoData, demoDataFile } from './database.ts';
import { grantReader, ports, replayed, url, withClient } from './postgres.ts';

const LARGE_PROFILES = 60_000;

/** The environment a sidecar reads the database from: DATABASE_PATH, or DATABASE_URL of the standby. */
export async function largeDatabase(
  backend: 'sqlite' | 'postgres',
  profiles = LARGE_PROFILES,
): Promise<Record<string, string>> {
  if (backend === 'sqlite') {
    const path = join(mkdtempSync(join(tmpdir(), 'bio-large-')), 'bio.db');
    bulkSqlite(path, profiles);
    await fill({ databasePath: path });
    return { DATABASE_PATH: path };
  }
  const { primary, standby } = ports();
  const name = `t_${randomBytes(6).toString('hex')}`;
  await withClient(url(primary, 'postgres'), (c) => c.query(`CREATE DATABASE ${name}`));
  await bulkPostgres(url(primary, name), profiles);
  await fill({ databasePath: '', databaseUrl: url(primary, name) });
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
