// Temporary folders the suites make (database copies above all), gone when the run ends: in the run's folder, which
// the global setup makes and removes (test/setup/build.ts), or, in a process of its own (the unit tier, a script), in
// the system's, removed when the process exits. Left behind, a CI run left some 400 MB in /tmp (111 copies of the demo
// database, seven 46 MB copies of the large one), and a machine that runs CI again and again filled its disk.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The environment variable naming the run's folder. */
export const TEMPORARY_ROOT = 'BIO_TEST_TEMPORARY';

const made: string[] = [];

/** A new folder named `prefix` and six characters, gone when the run (or this process) ends. */
export function temporaryFolder(prefix: string): string {
  const root = process.env[TEMPORARY_ROOT];
  if (root) return mkdtempSync(join(root, prefix));
  const folder = mkdtempSync(join(tmpdir(), prefix));
  if (made.length === 0) process.once('exit', removeAll);
  made.push(folder);
  return folder;
}

function removeAll(): void {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
}
