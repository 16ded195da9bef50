// `npm start`: builds when the build is missing or made from other sources or configuration, then serves.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFingerprint, readManifest } from '../src/lib/build-manifest.ts';
import { ConfigError, loadConfig } from '../src/lib/site-config.ts';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}

const manifest = readManifest(join(projectRoot, 'dist'));
if (manifest?.fingerprint !== buildFingerprint(projectRoot, config)) {
  console.log(manifest ? 'Sources or configuration changed since the last build: rebuilding…' : 'No build yet: building…');
  const build = spawnSync(join(projectRoot, 'node_modules', '.bin', 'astro'), ['build'], { cwd: projectRoot, stdio: 'inherit' });
  if (build.status !== 0) {
    console.error('The build failed; see above. Nothing is served.');
    process.exit(build.status ?? 1);
  }
}

const { startServer } = await import('../sidecar/server.ts');
await startServer();
