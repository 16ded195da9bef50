// The configuration every test builds and serves with: the defaults, whatever the caller's environment says.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../sidecar/config.ts';
import { projectRoot } from '../../scripts/ensure-build.ts';

export const testConfig = { ...loadConfig({}), port: 0 };
export const distDir = join(projectRoot, 'dist');
export const clientDir = join(distDir, 'client');
export { projectRoot };

export { cleanEnv } from '../../scripts/sidecar-process.ts';

/**
 * What /livez says of the tests' build (#61), read from its manifest: the version, the commit it was built from (a
 * commit's 40 hex digits, `-dirty` when the work tree had changes) and the build's fingerprint's first twelve digits.
 */
export function expectedLiveness(dist = distDir) {
  const manifest = JSON.parse(readFileSync(join(dist, 'build-manifest.json'), 'utf8')) as {
    fingerprint: string;
    revision?: string;
  };
  const { version } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
  if (!/^[0-9a-f]{40}(-dirty)?$/.test(manifest.revision ?? ''))
    throw new Error(`the build names no commit: ${String(manifest.revision)}`);
  return { status: 'alive', version, revision: manifest.revision!, build: manifest.fingerprint.slice(0, 12) };
}
