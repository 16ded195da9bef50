// The local database for `npm start` and `npm run dev`: created with the demo data when the SQLite file is missing.
// With PostgreSQL (DATABASE_URL) nothing is created or seeded: the schema and the data are the primary's, written with
// npm run db; a missing schema is a clear message and a degraded health.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerConfig } from '../sidecar/config.ts';
import { projectRoot } from './ensure-build.ts';

export function ensureDemoDatabase(config: Pick<ServerConfig, 'databaseUrl' | 'databasePath'>): void {
  if (config.databaseUrl || existsSync(config.databasePath)) return;
  console.log(`No database at ${config.databasePath}: creating it with the demo data…`);
  const seed = spawnSync(process.execPath, [join(projectRoot, 'scripts/db.ts'), 'seed-demo'], { stdio: 'inherit' });
  if (seed.status !== 0) process.exit(seed.status ?? 1);
}
