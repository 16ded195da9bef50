// Publishing a build to a bucket behind a CDN: the manifest the build writes (every file with a hash of its bytes),
// and the plan that takes a bucket from the last published build to the next one, in an order that never leaves a
// page pointing at a missing asset and invalidates only what changed. Run by scripts/publish.ts.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENCODING_SUFFIX } from '../compression.ts';
import { filesUnder } from '../files.ts';
import { cacheControlOf, isFingerprinted as isFingerprintedUrl } from '../surface.ts';
import { pageOfTwin, twinPath, urlOfBuildFile } from '../urls.ts';

/** Beside dist/client; kept in the bucket under MANIFEST_KEY, where the next publish reads it. */
export const PUBLISH_MANIFEST_FILE = 'publish-manifest.json';
export const MANIFEST_KEY = '.publish/manifest.json';
/**
 * How long an asset no page of the published build uses any more stays in the bucket: far longer than a page may
 * be kept by a browser or an edge (CACHE.page, five minutes), so a page served stale still finds its stylesheet.
 */
export const RETAIN_MS = 24 * 3600 * 1000;

export interface PublishManifest {
  version: 1;
  /**
   * Files of dist/client (not the .gz/.br copies, which are for nginx fronts), by path, with their SHA-256; a
   * fingerprinted file (isFingerprinted) with "fingerprinted", its name being its hash.
   */
  files: Record<string, string>;
  /** Fingerprinted assets the bucket still holds that the build no longer uses, with when they were retired. */
  retired?: Record<string, string>;
}

/** The SHA-256 of a file's bytes, base64url. */
const sha256OfFile = (path: string) => createHash('sha256').update(readFileSync(path)).digest('base64url');

/**
 * The manifest of a built dist/client; `sha256Of` gives a file's hash (the build's step passes one that remembers the
 * files it hashed before, src/integrations/file-digests.ts).
 */
export function manifestOf(clientDir: string, sha256Of: (path: string) => string = sha256OfFile): PublishManifest {
  const compressed = Object.values(ENCODING_SUFFIX);
  const files: Record<string, string> = {};
  for (const file of filesUnder(clientDir)) {
    if (compressed.some((suffix) => file.endsWith(suffix))) continue;
    // A fingerprinted file's name already changes with its bytes: not read again (the Open Graph images alone are
    // hundreds of megabytes at 2,000 articles a language).
    files[file] = isFingerprinted(file) ? 'fingerprinted' : sha256Of(join(clientDir, file));
  }
  return { version: 1, files };
}

/** Files of the build (`_astro/x.css`) whose name changes when their bytes do (surface.ts): never overwritten, never invalidated. */
export function isFingerprinted(file: string): boolean {
  return isFingerprintedUrl(urlOfBuildFile(file));
}

/** The URLs an edge must forget when a file changes: its own, and a twin's page too (it answers Accept: text/markdown). */
function urlsToForget(file: string): string[] {
  const url = urlOfBuildFile(file);
  const page = pageOfTwin(url);
  return page !== undefined && twinPath(page) === url ? [url, page] : [url];
}

export interface PublishPlan {
  /** 1. New fingerprinted assets, before any page that uses them. */
  uploadAssets: string[];
  /** 2. Pages, twins and every other file whose bytes changed or that is new, together. */
  uploadPages: string[];
  /** 3. Files of the last build that this one no longer has (a page and its twin alike). */
  deletePages: string[];
  /** 4. URLs whose bytes changed or disappeared. */
  invalidate: string[];
  /** 5. The manifest to keep in the bucket, with the assets retired by this publish. */
  manifest: PublishManifest;
  /** 6. Assets retired long enough ago (RETAIN_MS) that no cached page can still use them. */
  deleteAssets: string[];
  /** Cache-Control per file uploaded. */
  cacheControl: (file: string) => string;
}

/** What to do to a bucket holding `previous` (undefined: an empty bucket) so that it serves `next`. */
export function publishPlan(
  next: PublishManifest,
  previous: PublishManifest | undefined,
  now = new Date(),
): PublishPlan {
  const before = previous?.files ?? {};
  const changed = (file: string) => before[file] !== next.files[file];
  const files = Object.keys(next.files).sort();
  const retired: Record<string, string> = {};
  const deleteAssets: string[] = [];
  // Assets the last build used and this one does not start their wait now; those retired earlier keep their date.
  for (const file of Object.keys(before))
    if (isFingerprinted(file) && !(file in next.files)) retired[file] = now.toISOString();
  for (const [file, since] of Object.entries(previous?.retired ?? {})) {
    if (file in next.files) continue;
    if (now.getTime() - Date.parse(since) >= RETAIN_MS) deleteAssets.push(file);
    else retired[file] = since;
  }
  const gone = Object.keys(before)
    .filter((file) => !(file in next.files) && !isFingerprinted(file))
    .sort();
  const edited = files.filter((file) => !isFingerprinted(file) && file in before && changed(file));
  return {
    uploadAssets: files.filter((file) => isFingerprinted(file) && changed(file)),
    uploadPages: files.filter((file) => !isFingerprinted(file) && changed(file)),
    deletePages: gone,
    invalidate: [...new Set([...edited, ...gone].flatMap(urlsToForget))].sort(),
    manifest: { ...next, retired },
    deleteAssets: deleteAssets.sort(),
    cacheControl: (file) => cacheControlOf(urlOfBuildFile(file)),
  };
}
