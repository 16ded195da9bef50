// `npm start`: builds when the build is missing or stale, creates the demo database when there is none, then serves.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuild, projectRoot } from './ensure-build.ts';
import { loadConfigOrExit } from '../sidecar/config.ts';

const config = loadConfigOrExit();

try {
  ensureBuild(config);
} catch (err) {
  console.error(`${(err as Error).message} Nothing is served.`);
  process.exit(1);
}

// With PostgreSQL (DATABASE_URL) nothing is created or seeded: the schema and the data are the primary's, written
// with npm run db; a missing schema is a clear message and a degraded health.
if (!config.databaseUrl && !existsSync(config.databasePath)) {
  console.log(`No database at ${config.databasePath}: creating it with the demo data…`);
  const seed = spawnSync(process.execPath, [join(projectRoot, 'scripts/db.ts'), 'seed-demo'], { stdio: 'inherit' });
  if (seed.status !== 0) process.exit(seed.status ?? 1);
}

const { startServer } = await import('../sidecar/server.ts');
await startServer();
