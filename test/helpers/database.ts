// Real SQLite files for tests: migrated and filled through the same code the CLI and the bench use.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDatabase } from '../../sidecar/store/sqlite/sqlite-writer.ts';
import { projectRoot } from './env.ts';

export const demoData = JSON.parse(readFileSync(join(projectRoot, 'scripts/demo-data.json'), 'utf8')) as Record<
  string,
  unknown
>;

/** A new database file in a temporary folder, holding `data` (the demo data by default). */
export function createDatabase(data: unknown = demoData): string {
  const path = join(mkdtempSync(join(tmpdir(), 'bio-db-')), 'bio.db');
  writeDatabase(path, data);
  return path;
}

export { writeDatabase };
