// Real SQLite files for tests: migrated and filled through the same code the CLI uses.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from '../../sidecar/store/migrations.ts';
import { validateImport } from '../../sidecar/store/import-format.ts';
import { applyImport } from '../../sidecar/store/import-writer.ts';
import { projectRoot } from './env.ts';

export const demoData = JSON.parse(readFileSync(join(projectRoot, 'scripts/demo-data.json'), 'utf8')) as Record<string, unknown>;

/** A new database file in a temporary folder, holding `data` (the demo data by default). */
export function createDatabase(data: unknown = demoData): string {
  const path = join(mkdtempSync(join(tmpdir(), 'bio-db-')), 'bio.db');
  writeDatabase(path, data);
  return path;
}

export function writeDatabase(path: string, data: unknown): void {
  const db = new Database(path);
  try {
    db.pragma('foreign_keys = ON');
    migrate(db);
    const { data: valid, errors } = validateImport(data, (slug) => db.prepare('SELECT 1 FROM profiles WHERE slug = ?').get(slug) !== undefined);
    if (!valid) throw new Error(errors.join('\n'));
    applyImport(db, valid);
  } finally {
    db.close();
  }
}
