// Reading the build output: every file under dist/client with its URL path.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { filesUnder } from '../../src/lib/files.ts';
import { clientDir } from './env.ts';

export function builtFiles(ext: string): { file: string; urlPath: string }[] {
  return filesUnder(clientDir)
    .filter((file) => file.endsWith(ext))
    .map((file) => ({ file: join(clientDir, file), urlPath: `/${file}` }))
    .sort((a, b) => a.urlPath.localeCompare(b.urlPath));
}

export const read = (file: string) => readFileSync(file, 'utf8');
export const readBuilt = (urlPath: string) => read(join(clientDir, urlPath));
