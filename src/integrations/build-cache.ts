// The build's cache between builds (.cache/bio-build/, kept by the publish workflow): results of the
// expensive post-build steps (Markdown twins, compressed copies) stored under a hash of everything they are made from,
// the input's bytes and the code that makes them, so an unchanged page costs a read and a changed input, or changed
// code, can never be answered from the cache.
import { createHash } from 'node:crypto';
import { copyFileSync, linkSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

export function buildCacheDir(projectRoot: string, step: string): string {
  const dir = join(projectRoot, '.cache/bio-build', step);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A hash of the files (under projectRoot) whose code makes a step's output, and of the installed packages (npm's
 * record of node_modules, which copies of the project that link node_modules share).
 */
export function codeHash(projectRoot: string, files: readonly string[]): string {
  const hash = createHash('sha256');
  for (const file of [...files, 'node_modules/.package-lock.json'])
    hash.update(file + '\0').update(readFileSync(join(projectRoot, file)));
  return hash.digest('hex').slice(0, 16);
}

/**
 * Writes a cache entry whole under a name no other writer uses, then renames it into place: a build stopped half-way,
 * or two builds writing the same entry at once, never leave a partial file under the entry's name.
 */
export function writeEntry(path: string, body: string | Uint8Array): void {
  const tmp = `${path}.${process.pid}.${threadId}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, body);
  renameSync(tmp, path);
}

/** The cache key of an input for a step: its bytes and the step's code hash. */
export function keyOf(code: string, input: string | Buffer): string {
  return createHash('sha256').update(code).update(input).digest('base64url');
}

/**
 * Puts a cached file into the build: a hard link where both are on one file system (one metadata write instead of a
 * copy; tens of thousands of files at 2,000 articles a language), else a copy. Safe because nothing writes into a
 * file of the build once it is there: each build starts from an empty dist/ but for the pages linked from Astro's own
 * cache (reuse-pages.ts), which only Astro writes.
 */
export function linkOrCopy(cached: string, out: string): void {
  try {
    linkSync(cached, out);
  } catch {
    copyFileSync(cached, out);
  }
}
