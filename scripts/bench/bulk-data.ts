// The bench's bulk path (documented in README, "Benchmarks"): profiles generated inside the database (a recursive
// CTE in SQLite, generate_series in PostgreSQL) instead of through the import, so that a million profiles load in
// seconds. The schema is the migrations' own; the change log's triggers are created after the rows (the last
// migration), so the load leaves no log behind. Every profile is published, on the paid plan, with six links.
import Database from 'better-sqlite3';
import pg from 'pg';
import { migrate } from '../../sidecar/store/sqlite/sqlite-writer.ts';
import { migratePg } from '../../sidecar/store/postgres/pg-writer.ts';

const LINKS = 6;
const STAMP = '2026-11-01T00:00:00.000Z';

function rowsSql(source: string): string[] {
  // `source` yields i = 1..n as a table s(i).
  return [
    `INSERT INTO profiles (slug, name, bio, lang, kind, plan, published, updated_at)
     SELECT 'bench-' || i, CASE WHEN i % 2 = 0 THEN 'صانع محتوى ' || i ELSE 'Creator ' || i END,
            'A profile generated for the benchmark, with a bio of a realistic length for a link-in-bio page.',
            CASE WHEN i % 2 = 0 THEN 'ar' ELSE 'en' END, 'person', 'paid', 1, '${STAMP}' FROM ${source}`,
    `INSERT INTO links (profile_id, position, title, url, enabled, pinned)
     SELECT p.id, k.k, 'Link ' || (k.k + 1), 'https://example.com/' || p.id || '/' || k.k, 1, 0
     FROM profiles p CROSS JOIN (${Array.from({ length: LINKS }, (_, k) => `SELECT ${k} AS k`).join(' UNION ALL ')}) k`,
    `INSERT INTO socials (profile_id, position, network, url) SELECT id, 0, 'instagram', 'https://instagram.com/' || slug FROM profiles`,
  ];
}

export function bulkSqlite(path: string, profiles: number): void {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = DELETE');
    migrate(db, 1);
    db.transaction(() => {
      for (const sql of rowsSql(
        `(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${profiles}) SELECT i FROM s) s`,
      ))
        db.exec(sql);
    })();
    migrate(db);
  } finally {
    db.close();
  }
}

export async function bulkPostgres(url: string, profiles: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await migratePg(client, 1);
    await client.query('BEGIN');
    for (const sql of rowsSql(`generate_series(1, ${profiles}) AS s(i)`)) await client.query(sql);
    await client.query('COMMIT');
    await migratePg(client);
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}
