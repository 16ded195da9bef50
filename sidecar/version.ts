// What this server runs: the version (package.json's, which a release raises and CHANGELOG.md describes), the commit
// its build was made from and the build itself (its fingerprint: every input, content included, so a content-only
// rebuild is another build). Read once at start; operators see them at /livez and as the `bio_build_info` metric (#50,
// #61), never in /health, whose fields the spec fixes.
import { readFileSync } from 'node:fs';
import { readManifest } from '../src/lib/build-manifest.ts';

const SERVICE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface RunningBuild {
  version: string;
  /** The source's commit (BuildManifest.revision), `unknown` for a build that does not say. */
  revision: string;
  /** The build's fingerprint, its first twelve hex digits (as image tags name it: npm run image). */
  build: string;
}

/** The version, revision and build of the build in `distDir`. */
export function runningBuild(distDir: string): RunningBuild {
  const manifest = readManifest(distDir);
  return {
    version: SERVICE_VERSION,
    revision: manifest?.revision ?? 'unknown',
    build: manifest?.fingerprint.slice(0, 12) ?? 'unknown',
  };
}
