// Where the benchmark records live: one file a mode in docs/benchmarks/, listed on that folder's README.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../ensure-build.ts';

export const RECORDS = join(projectRoot, 'docs', 'benchmarks');

/** Writes a mode's record, `docs/benchmarks/{file}`, ending it with one line break. */
export function writeRecord(file: string, text: string): void {
  writeFileSync(join(RECORDS, file), text.endsWith('\n') ? text : text + '\n');
}
