// Real SQLite files for tests: migrated and filled through the same code the CLI and the bench use.
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDatabase } from '../../sidecar/store/writer.ts';
import { projectRoot } from './env.ts';

/** The demo data's file: its images are named relative to it. */
export const demoDataFile = join(projectRoot, 'scripts/demo-data.json');

export const demoData = JSON.parse(readFileSync(demoDataFile, 'utf8')) as Record<string, unknown>;

/** The demo database, imported once per process (its images taken once), copied for each test that asks for it. */
let demoTemplate: Promise<string> | undefined;

/** A new database file in a temporary folder, holding `data` (the demo data by default). */
export async function createDatabase(data: unknown = demoData): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), 'bio-db-')), 'bio.db');
  if (data === demoData) {
    demoTemplate ??= writeDatabase(join(mkdtempSync(join(tmpdir(), 'bio-demo-')), 'bio.db'), demoData, {
      from: demoDataFile,
    });
    copyFileSync(await demoTemplate, path);
    return path;
  }
  return writeDatabase(path, data, { from: demoDataFile });
}

/** A database file at `path` holding `data`, its images named relative to the demo data's file. */
export function writeDatabaseFile(path: string, data: unknown): Promise<string> {
  return writeDatabase(path, data, { from: demoDataFile });
}
