// Real SQLite files for tests: migrated and filled through the same code the CLI and the bench use.
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDatabase } from '../../sidecar/store/writer.ts';
import { projectRoot } from './env.ts';
import { temporaryFolder } from './temporary.ts';

/** The demo data's file: its images are named relative to it. */
export const demoDataFile = join(projectRoot, 'scripts/demo-data.json');

export const demoData = JSON.parse(readFileSync(demoDataFile, 'utf8')) as Record<string, unknown>;

/**
 * What the demo database is made from: the data, its images, and the code that writes them (the schema, the import,
 * the image intake). The same inputs make the same file, so it is made once per machine, not once per test file (each
 * file has modules of its own, and taking the demo's images in keeps every core busy for a moment: suites that
 * measure time beside it need the cores). `more`: files of a database made from the demo and something else.
 */
export function demoInputsHash(...more: string[]): string {
  const hash = createHash('sha256');
  const images = join(projectRoot, 'scripts/demo-images');
  const files = [
    demoDataFile,
    ...readdirSync(images)
      .sort()
      .map((name) => join(images, name)),
    ...['migrations', 'database', 'import-format', 'import-plan', 'image-intake', 'writer', 'sqlite/sqlite-writer'].map(
      (name) => join(projectRoot, 'sidecar/store', `${name}.ts`),
    ),
    join(projectRoot, 'src/lib/image-files.ts'),
    join(projectRoot, 'src/lib/live-schema.ts'),
    ...more,
  ];
  for (const file of files) hash.update(file).update('\0').update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

/**
 * A database file made once per machine for what it is made from (`name` says that: a hash of its inputs): found where
 * an earlier test file or run left it, or written by `make` to a path aside and renamed into place, so that a file that
 * finds it finds it whole, whoever else is making it.
 */
export async function madeOnce(name: string, make: (path: string) => Promise<unknown>): Promise<string> {
  const folder = join(tmpdir(), 'bio-test-databases');
  const path = join(folder, name);
  if (existsSync(path)) return path;
  mkdirSync(folder, { recursive: true });
  const making = mkdtempSync(join(folder, 'making-'));
  try {
    await make(join(making, 'bio.db'));
    renameSync(join(making, 'bio.db'), path);
  } finally {
    rmSync(making, { recursive: true, force: true });
  }
  return path;
}

let demoTemplate: Promise<string> | undefined;

/** The demo database made from the current inputs. */
function demoDatabase(): Promise<string> {
  demoTemplate ??= madeOnce(`demo-${demoInputsHash()}.db`, (path) =>
    writeDatabase(path, demoData, { from: demoDataFile }),
  );
  return demoTemplate;
}

/** A new database file in a temporary folder, holding `data` (the demo data by default). */
export async function createDatabase(data: unknown = demoData): Promise<string> {
  const path = join(temporaryFolder('bio-db-'), 'bio.db');
  if (data === demoData) {
    copyFileSync(await demoDatabase(), path);
    return path;
  }
  return writeDatabase(path, data, { from: demoDataFile });
}

/** A database file at `path` holding `data`, its images named relative to the demo data's file. */
export function writeDatabaseFile(path: string, data: unknown): Promise<string> {
  return writeDatabase(path, data, { from: demoDataFile });
}
