// The one directory walk: every file below a folder, as paths relative to it with `/` separators, sorted. Used by
// the build steps, the build fingerprint, the sidecar's static site and the tests. A missing folder has no files.
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}
