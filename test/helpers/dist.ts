// Reading the build output: every file under dist/client with its URL path.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { clientDir } from './env.ts';

export function builtFiles(ext: string): { file: string; urlPath: string }[] {
  const out: { file: string; urlPath: string }[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith(ext)) out.push({ file: full, urlPath: '/' + relative(clientDir, full).split(sep).join('/') });
    }
  };
  walk(clientDir);
  return out.sort((a, b) => a.urlPath.localeCompare(b.urlPath));
}

export const read = (file: string) => readFileSync(file, 'utf8');
export const readBuilt = (urlPath: string) => read(join(clientDir, urlPath));
