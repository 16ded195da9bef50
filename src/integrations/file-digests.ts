// The SHA-256 of the built site's files, remembered between builds by each file's identity: its device and inode, its
// size and the moment it was last written (what git, make and rsync trust to say a file did not change). A rebuild
// after one edit puts thousands of files in place by linking them from a cache (Astro's own pages, reuse-pages.ts;
// the twins and compressed copies, build-cache.ts), so the same inodes come back build after build: the steps that
// key or list files by their bytes (the twins, the search index, the compressed copies, the publish manifest) look
// them up instead of reading and hashing every file again. A file written less than two seconds before this build started is hashed
// every time until it is older (a write in the same tick of the clock would not move its time), and only files
// looked up in a build are kept for the next one. Identities hold on one file system as it was left: a cache copied or
// restored from an archive (a CI's cache step) brings files back under other inodes, with their times as the archive
// kept them, so the digests are trusted only while a marker file beside them is the very file they were saved with
// (its inode and the moment it was made, which no copy keeps); else every file is hashed again.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCacheDir, writeEntry } from './build-cache.ts';

interface Digest {
  /** Bytes. */
  size: number;
  /** The SHA-256 of the bytes, base64url. */
  sha256: string;
}

export interface FileDigests {
  /** The size and SHA-256 of the file at `path`. */
  of(path: string): Digest;
  /** Keeps what this build learnt for the next one (the files looked up in it, and no others). */
  save(): void;
}

/** The SHA-256 of `bytes`, base64url, as FileDigests gives it. */
export const sha256Of = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('base64url');

/** When a file was written (nanoseconds, as text: beyond a double's precision), its size and its hash. */
type Remembered = [written: string, size: number, sha256: string];

/** What is kept: the marker's identity when it was saved, and each file's by its device and inode. */
interface Kept {
  marker: string;
  files: Record<string, Remembered>;
}

const FILE = 'digests.json';
const MARKER = 'marker';
/** How much older than the build a file must be to be remembered. */
const SETTLED_NS = 2_000_000_000n;

/** The digests of `projectRoot`'s build, remembered in its build cache (.cache/bio-build/). */
function openDigests(projectRoot: string): FileDigests {
  const dir = buildCacheDir(projectRoot, 'files');
  const file = join(dir, FILE);
  const markerFile = join(dir, MARKER);
  if (!existsSync(markerFile)) writeFileSync(markerFile, 'The digests beside this file hold while it is this file.\n');
  const { dev, ino, birthtimeNs, ctimeNs } = statSync(markerFile, { bigint: true });
  // Its inode, and when it was made (birth where the file system keeps it, else the last change of its inode).
  const marker = `${dev}:${ino}:${birthtimeNs || ctimeNs}`;
  let known: Record<string, Remembered> = {};
  try {
    const kept = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Kept) : undefined;
    if (kept?.marker === marker) known = kept.files;
  } catch {
    // A cache that cannot be read is a cache that is empty: every file is hashed.
  }
  // When this process started, in nanoseconds since the epoch: files this build wrote are younger.
  const started = BigInt(Math.floor(performance.timeOrigin)) * 1_000_000n;
  const learnt = new Map<string, Remembered>();
  return {
    of(path) {
      const stat = statSync(path, { bigint: true });
      const id = `${stat.dev}:${stat.ino}`;
      const written = String(stat.mtimeNs);
      const size = Number(stat.size);
      const seen = learnt.get(id) ?? known[id];
      if (seen && seen[0] === written && seen[1] === size) {
        learnt.set(id, seen);
        return { size, sha256: seen[2] };
      }
      const sha256 = sha256Of(readFileSync(path));
      if (stat.mtimeNs < started - SETTLED_NS) learnt.set(id, [written, size, sha256]);
      return { size, sha256 };
    },
    save() {
      writeEntry(file, JSON.stringify({ marker, files: Object.fromEntries(learnt) } satisfies Kept));
    },
  };
}

/**
 * One set of digests per build and project, shared by astro.config.mjs between the steps that use it (as page-facts.ts
 * shares what the pages say).
 */
export function fileDigests(): (projectRoot: string) => FileDigests {
  const open = new Map<string, FileDigests>();
  return (projectRoot) => {
    let digests = open.get(projectRoot);
    if (!digests) open.set(projectRoot, (digests = openDigests(projectRoot)));
    return digests;
  };
}
