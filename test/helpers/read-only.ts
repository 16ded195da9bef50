// Makes a database file and its folder read-only for real, root included: the HTTP suite runs a second time on
// such files (vitest project "read-only database") to show that the server never writes.
import { spawnSync } from 'node:child_process';
import { chmodSync, openSync, closeSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const isRoot = process.getuid?.() === 0;

/** chmod a-w, and for root (whom modes do not stop) the immutable attribute. Throws unless writing now fails. */
export function makeReadOnly(file: string): () => void {
  const dir = dirname(file);
  chmodSync(file, 0o444);
  chmodSync(dir, 0o555);
  if (isRoot) {
    const r = spawnSync('chattr', ['+i', file, dir], { encoding: 'utf8' });
    if (r.status !== 0)
      throw new Error(`chattr +i failed (${r.stderr || r.error}): cannot make ${file} read-only for root`);
  }
  const writable: string[] = [];
  try {
    closeSync(openSync(file, 'r+'));
    writable.push(file);
  } catch {
    // Expected: the file cannot be opened for writing.
  }
  try {
    writeFileSync(join(dir, 'probe'), '');
    writable.push(dir);
  } catch {
    // Expected: nothing can be created beside it (a journal, a WAL).
  }
  const restore = () => {
    if (isRoot) spawnSync('chattr', ['-i', file, dir]);
    chmodSync(dir, 0o755);
    chmodSync(file, 0o644);
  };
  if (writable.length > 0) {
    restore();
    throw new Error(`could not make read-only: ${writable.join(', ')}`);
  }
  return restore;
}

/** Set by the vitest project that runs the HTTP suite on read-only databases. */
export const readOnlyDatabases = process.env.BIO_TEST_READONLY_DB === '1';
