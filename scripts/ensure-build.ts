// Builds the site when dist/ is missing or was built from other sources or another configuration.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { buildFingerprint, readManifest } from '../src/lib/build-manifest.ts';
import type { PublicConfig } from '../src/lib/site-config.ts';

import { projectRoot } from './project-root.ts';

export { projectRoot };

/** Returns true when it had to build. Throws when the build fails. */
export function ensureBuild(config: PublicConfig, env: NodeJS.ProcessEnv = process.env): boolean {
  const manifest = readManifest(join(projectRoot, 'dist'));
  if (manifest?.fingerprint === buildFingerprint(projectRoot, config)) return false;
  console.log(
    manifest ? 'Sources or configuration changed since the last build: rebuilding…' : 'No build yet: building…',
  );
  const build = spawnSync(join(projectRoot, 'node_modules', '.bin', 'astro'), ['build'], {
    cwd: projectRoot,
    stdio: 'inherit',
    env,
  });
  if (build.status !== 0) throw new Error(`The build failed (exit ${build.status ?? build.signal}); see above.`);
  return true;
}
