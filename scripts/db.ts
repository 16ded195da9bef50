// `npm run db -- migrate | import FILE.json | seed-demo`: the only writer of the database.
import { readFileSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { ConfigError, loadConfig } from '../src/lib/site-config.ts';
import { importInto, openForWriting as open } from '../sidecar/store/import.ts';

const USAGE = `Usage:
  npm run db -- migrate            create the database or bring its schema up to date
  npm run db -- import FILE.json   validate FILE and write it (all or nothing)
  npm run db -- seed-demo          load the demo profiles, cards and aliases
The database is DATABASE_PATH (default data/bio.db).`;

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

function openForWriting(path: string): Database.Database {
  const { db, migrated } = open(path);
  if (migrated.length > 0) console.log(`Migrated ${path} to schema version ${migrated.at(-1)}.`);
  return db;
}

function importJson(path: string, json: unknown, label: string) {
  const db = openForWriting(path);
  try {
    const outcome = importInto(db, json);
    if (!outcome.ok) fail(`${label}: nothing was written; ${outcome.errors.length} problem${outcome.errors.length === 1 ? '' : 's'}:\n  - ${outcome.errors.join('\n  - ')}`);
    const { counts } = outcome;
    console.log(`Imported ${label} into ${path}: ${counts.profiles} profiles, ${counts.cards} cards, ${counts.aliases} aliases.`);
  } finally {
    db.close();
  }
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    fail(`Cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    fail(`${file} is not valid JSON: ${(err as Error).message}; nothing was written.`);
  }
}

let config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  fail(err.message);
}

const [command, arg] = process.argv.slice(2);
switch (command) {
  case 'migrate':
    openForWriting(config.databasePath).close();
    console.log(`${config.databasePath} is up to date.`);
    break;
  case 'import':
    if (!arg) fail(USAGE);
    importJson(config.databasePath, readJson(arg), arg);
    break;
  case 'seed-demo':
    importJson(config.databasePath, readJson(new URL('./demo-data.json', import.meta.url).pathname), 'the demo data');
    break;
  default:
    fail(USAGE);
}
