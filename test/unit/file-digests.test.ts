// The built files' hashes remembered between builds (src/integrations/file-digests.ts), which the twins, the compressed
// copies and the publish manifest key by: a file's identity (device, inode, size, time written) stands for its bytes
// only when it was written well before the build, as git trusts its index; a file changed, or another put in its place,
// is hashed again, and so is every file when the cache was restored from an archive, so no step is handed a stale key.
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileDigests } from '../../src/integrations/file-digests.ts';

let project: string;
const sha = (text: string) => createHash('sha256').update(text).digest('base64url');
/** A new build's digests of the project, as a new `astro build` process opens them. */
const nextBuild = () => fileDigests()(project);
/** Writes `text` at `path`, written (by its time) `ago` seconds ago. */
function write(path: string, text: string, ago = 3600): void {
  writeFileSync(path, text);
  const at = new Date(Date.now() - ago * 1000);
  utimesSync(path, at, at);
}
/** Puts other bytes of the same length in the same file (its inode), then its times back as they were. */
function overwriteKeepingIdentity(path: string, text: string): void {
  const { atime, mtime } = statSync(path);
  writeFileSync(path, text);
  utimesSync(path, atime, mtime);
}

beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), 'file-digests-'));
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

describe("a build's file digests", () => {
  it('are the SHA-256 and the size of the bytes', () => {
    const page = join(project, 'page.html');
    write(page, '<p>one</p>');
    expect(nextBuild().of(page)).toEqual({ size: 10, sha256: sha('<p>one</p>') });
  });

  it('remember a settled file for the next build by its identity, as git does', () => {
    const page = join(project, 'page.html');
    write(page, '<p>one</p>');
    const first = nextBuild();
    first.of(page);
    first.save();
    // The next build trusts the identity: the bytes are not read again (shown by bytes changed behind its back).
    overwriteKeepingIdentity(page, '<p>two</p>');
    expect(nextBuild().of(page).sha256).toBe(sha('<p>one</p>'));
  });

  it('hash a file again when it was written again, or another file took its place', () => {
    const page = join(project, 'page.html');
    write(page, '<p>one</p>');
    const first = nextBuild();
    first.of(page);
    first.save();
    // Written again: a new time.
    write(page, '<p>two</p>', 1800);
    expect(nextBuild().of(page).sha256).toBe(sha('<p>two</p>'));
    // Another file of the same length moved into its place, with the same time: another inode.
    const second = nextBuild();
    second.of(page);
    second.save();
    const other = join(project, 'other.html');
    write(other, '<p>six</p>');
    utimesSync(other, statSync(page).atime, statSync(page).mtime);
    renameSync(other, page);
    expect(nextBuild().of(page).sha256).toBe(sha('<p>six</p>'));
  });

  it('never remember a file written just before or during the build (a write in the same tick would not move its time)', () => {
    const page = join(project, 'page.html');
    write(page, '<p>one</p>', 0);
    const first = nextBuild();
    first.of(page);
    first.save();
    overwriteKeepingIdentity(page, '<p>two</p>');
    expect(nextBuild().of(page).sha256).toBe(sha('<p>two</p>'));
  });

  it('trust nothing kept in a cache that was copied or restored from an archive, as a CI restores it', () => {
    const page = join(project, 'page.html');
    write(page, '<p>one</p>');
    const first = nextBuild();
    first.of(page);
    first.save();
    const cache = join(project, '.cache');
    cpSync(cache, `${cache}-archived`, { recursive: true, preserveTimestamps: true });
    rmSync(cache, { recursive: true });
    renameSync(`${cache}-archived`, cache);
    overwriteKeepingIdentity(page, '<p>two</p>');
    expect(nextBuild().of(page).sha256).toBe(sha('<p>two</p>'));
  });

  it('keep for the next build only the files this one looked up', () => {
    const pages = ['a', 'b', 'c'].map((name) => join(project, `${name}.html`));
    for (const page of pages) write(page, `<p>${page}</p>`);
    const first = nextBuild();
    for (const page of pages) first.of(page);
    first.save();
    const second = nextBuild();
    second.of(pages[0]!);
    second.save();
    const kept = JSON.parse(readFileSync(join(project, '.cache/bio-build/files/digests.json'), 'utf8')) as {
      files: object;
    };
    expect(Object.keys(kept.files)).toHaveLength(1);
  });

  it('start from nothing when what was kept cannot be read', () => {
    const page = join(project, 'page.html');
    write(page, '<p>one</p>');
    nextBuild().save();
    writeFileSync(join(project, '.cache/bio-build/files/digests.json'), '{"half');
    expect(nextBuild().of(page).sha256).toBe(sha('<p>one</p>'));
  });
});
