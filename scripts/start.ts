// `npm start`: builds when the build is missing or stale, then serves.
import { ensureBuild } from './ensure-build.ts';
import { ConfigError, loadConfig } from '../src/lib/site-config.ts';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(1);
}

try {
  ensureBuild(config);
} catch (err) {
  console.error(`${(err as Error).message} Nothing is served.`);
  process.exit(1);
}

const { startServer } = await import('../sidecar/server.ts');
await startServer();
