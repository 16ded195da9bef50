// `npm start`: builds when the build is missing or stale, creates the demo database when there is none, then serves.
import { ensureDemoDatabase } from './demo-database.ts';
import { ensureBuild } from './ensure-build.ts';
import Database from 'better-sqlite3';
import { loadConfigOrExit } from '../sidecar/config.ts';

/** Whether the SQLite file holds the demo data (its first profile), read-only. */
function holdsDemo(path: string): boolean {
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return db.prepare("SELECT 1 FROM profiles WHERE slug = 'layla'").get() !== undefined;
    } finally {
      db.close();
    }
  } catch {
    return false;
  }
}

const config = loadConfigOrExit();

try {
  // An operator's DIST_DIR is served as it is (the server refuses one built for another BASE_URL).
  if (!config.distDir) await ensureBuild(config);
} catch (err) {
  console.error(`${(err as Error).message} Nothing is served.`);
  process.exit(1);
}

ensureDemoDatabase(config);

const { startServer } = await import('../sidecar/server.ts');
const url = await startServer();
// What to open first (issue 62), where the demo data is what it serves (not an operator's own database).
if (!config.databaseUrl && holdsDemo(config.databasePath)) {
  const at = url.replace('://0.0.0.0:', '://localhost:').replace('://[::]:', '://localhost:');
  console.log(
    [
      'The demo pages (npm run db -- seed-demo made them):',
      `  ${at}/p/layla               a creator's profile, in Arabic`,
      `  ${at}/p/qahwat-alnakheel    a café in Riyadh: its place, hours and menu, in Arabic and English`,
      `  ${at}/c/k7f2q9              a business card, with its QR code and vCard`,
      `  ${at}/ar/blog               the blog, in Arabic (and ${at}/en/blog)`,
    ].join('\n'),
  );
}
