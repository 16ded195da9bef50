// `npm run db -- migrate | import FILE.json | seed-demo`: the only writer of the database.
import { readFileSync } from 'node:fs';
import { loadConfigOrExit } from '../sidecar/config.ts';
import { parseImportBytes } from '../sidecar/store/import-format.ts';
import { openWriter } from '../sidecar/store/writer.ts';
import { backup, restore } from './backup.ts';
import type { IntakeOptions } from '../sidecar/store/image-intake.ts';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const USAGE = `Usage:
  npm run db -- migrate            create the database or bring its schema up to date
  npm run db -- import FILE.json [--allow-private-hosts]
                                   validate FILE, take the images it names, and write it (all or nothing);
                                   --allow-private-hosts fetches images from loopback and private addresses too
  npm run db -- seed-demo          load the demo profiles, cards and aliases
  npm run db -- backup FILE        an online, consistent copy of the database, its images included
  npm run db -- restore FILE       put a backup in place of the database (SQLite: atomically; PostgreSQL: pg_restore)
The database is DATABASE_URL (postgres://…, the primary) when it is set, else the SQLite file DATABASE_PATH
(default data/bio.db).`;

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

function problems(label: string, errors: string[]): string {
  return `${label}: nothing was written; ${errors.length} problem${errors.length === 1 ? '' : 's'}:\n  - ${errors.join('\n  - ')}`;
}

async function importJson(json: unknown, label: string, images: IntakeOptions) {
  const writer = await openWriter(config);
  try {
    const outcome = await writer.importData(json, images);
    if (!outcome.ok) fail(problems(label, outcome.errors));
    const { counts, notices } = outcome;
    console.log(
      `Imported ${label} into ${writer.target}: ${counts.profiles} profiles, ${counts.cards} cards, ${counts.aliases} aliases.`,
    );
    // Written as given; drawn otherwise where a colour would not read (theme.ts).
    if (notices.length > 0)
      console.log(`Colours drawn otherwise, so that every page reads:\n  - ${notices.join('\n  - ')}`);
  } finally {
    await writer.close();
  }
}

function readJson(file: string): unknown {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    fail(`Cannot read ${file}: ${(err as Error).message}`);
  }
  const parsed = parseImportBytes(bytes);
  if (!parsed.ok) fail(problems(file, parsed.errors));
  return parsed.json;
}

const config = loadConfigOrExit();

const [command, arg, ...flags] = process.argv.slice(2);
const unknownFlag = flags.find((f) => f !== '--allow-private-hosts');
if (unknownFlag) fail(`Unknown option ${unknownFlag}\n${USAGE}`);
const allowPrivateHosts = flags.includes('--allow-private-hosts');
switch (command) {
  case 'migrate': {
    const writer = await openWriter(config);
    try {
      const migrated = await writer.migrate();
      if (migrated.length > 0) console.log(`Migrated ${writer.target} to schema version ${migrated.at(-1)}.`);
      console.log(`${writer.target} is up to date.`);
    } finally {
      await writer.close();
    }
    break;
  }
  case 'import':
    if (!arg) fail(USAGE);
    await importJson(readJson(arg), arg, { from: resolve(arg), allowPrivateHosts });
    break;
  case 'backup':
  case 'restore': {
    if (!arg) fail(USAGE);
    try {
      console.log(command === 'backup' ? await backup(config, arg) : restore(config, arg));
    } catch (err) {
      const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
      fail(`Could not ${command} ${arg}: ${stderr || (err as Error).message}`);
    }
    break;
  }
  case 'seed-demo': {
    const file = fileURLToPath(new URL('./demo-data.json', import.meta.url));
    await importJson(readJson(file), 'the demo data', { from: file });
    break;
  }
  default:
    fail(USAGE);
}
