// The files below a folder of the build, for the build steps.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

export async function* filesUnder(dir: string, wanted: (name: string) => boolean): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(full, wanted);
    else if (entry.isFile() && wanted(entry.name)) yield full;
  }
}
