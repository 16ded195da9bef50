// Temporary folders the suites make (database copies above all), gone when the run ends: in the run's folder, which
// the global setup makes and removes (test/setup/build.ts), or, in a process of its own (the unit tier, a script), in
// the system's, removed when the process exits. Left behind, a CI run left some 400 MB in /tmp (111 copies of the demo
// database, seven 46 MB copies of the large one), and a machine that runs CI again and again filled its disk.
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../scripts/project-root.ts';

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

/**
 * A copy of the project's sources in `dir` (what builds it, serves it and runs its npm scripts), its node_modules
 * linked, and no build: a suite that builds, previews or starts the project there never touches the suites' dist/.
 */
export function projectCopy(dir: string): string {
  for (const entry of [
    'src',
    'content',
    'public',
    'scripts',
    'sidecar',
    'astro.config.mjs',
    'package.json',
    'tsconfig.json',
  ])
    cpSync(join(projectRoot, entry), join(dir, entry), { recursive: true });
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}
