// `npm start`: builds when the build is missing or stale, creates the demo database when there is none, then serves.
import { ensureDemoDatabase } from './demo-database.ts';
import { ensureBuild } from './ensure-build.ts';
import { loadConfigOrExit } from '../sidecar/config.ts';

const config = loadConfigOrExit();

try {
  // An operator's DIST_DIR is served as it is (the server refuses one built for another BASE_URL).
  if (!config.distDir) ensureBuild(config);
} catch (err) {
  console.error(`${(err as Error).message} Nothing is served.`);
  process.exit(1);
}

ensureDemoDatabase(config);

const { startServer } = await import('../sidecar/server.ts');
await startServer();
