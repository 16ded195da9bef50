// What a build was made for: written by the build, checked by `npm start` and by the sidecar at start-up.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { filesUnder } from './files.ts';
import { join, relative } from 'node:path';
import type { PublicConfig } from './site-config.ts';

export interface BuildManifest {
  baseUrl: string;
  serviceName: string;
  contactEmail: string;
  /** Hash of every build input and of the configuration the pages embed. */
  fingerprint: string;
  /** CSP sources (`'sha256-…'`) of every inline style element of the pages, for style-src. */
  styleHashes: string[];
  builtAt: string;
  /**
   * The source's commit (`git rev-parse HEAD`, `-dirty` when the work tree has changes), or SOURCE_REVISION where the
   * build has no repository (a CI that exports it); `unknown` without either. Older builds have none.
   */
  revision?: string;
}

export const MANIFEST_FILE = 'build-manifest.json';
const INPUTS = ['src', 'content', 'public', 'astro.config.mjs', 'package-lock.json'];

/** The files an input names: itself when it is a file, else every file below it. */
function files(root: string, input: string): string[] {
  const full = join(root, input);
  if (!existsSync(full)) return [];
  return statSync(full).isFile() ? [input] : filesUnder(full).map((file) => join(input, file));
}

export function buildFingerprint(projectRoot: string, config: PublicConfig): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify([config.baseUrl, config.serviceName, config.contactEmail]));
  for (const input of INPUTS) {
    for (const file of files(projectRoot, input)) {
      hash.update(relative(projectRoot, join(projectRoot, file)) + '\0');
      hash.update(readFileSync(join(projectRoot, file)));
    }
  }
  return hash.digest('hex');
}

/** The commit `projectRoot` was built from (BuildManifest.revision). */
export function sourceRevision(projectRoot: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.SOURCE_REVISION) return env.SOURCE_REVISION;
  const git = (args: string[]) =>
    execFileSync('git', ['-C', projectRoot, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const commit = git(['rev-parse', 'HEAD']);
    return git(['status', '--porcelain', '--untracked-files=no']) === '' ? commit : `${commit}-dirty`;
  } catch {
    return 'unknown';
  }
}

/** The CSP source that allows an inline style element whose text is `css` (CSP 3, hash-source). */
export function styleHash(css: string): string {
  return `'sha256-${createHash('sha256').update(css).digest('base64')}'`;
}

export function readManifest(distDir: string): BuildManifest | undefined {
  try {
    return JSON.parse(readFileSync(join(distDir, MANIFEST_FILE), 'utf8')) as BuildManifest;
  } catch {
    return undefined;
  }
}

/** The CSP sources of the build's inline styles (none for a build without a manifest: its pages then fail the CSP). */
export function buildStyleHashes(distDir: string): string[] {
  return readManifest(distDir)?.styleHashes ?? [];
}

/** A reason the build in distDir cannot be served with this configuration, or undefined when it can. */
export function manifestMismatch(manifest: BuildManifest | undefined, config: PublicConfig): string | undefined {
  if (!manifest) return 'there is no build (dist/build-manifest.json is missing)';
  for (const key of ['baseUrl', 'serviceName', 'contactEmail'] as const) {
    if (manifest[key] !== config[key]) {
      return `the build was made for ${key} "${manifest[key]}" but the configuration says "${config[key]}"`;
    }
  }
  return undefined;
}
