// `npm run db -- migrate | import FILE.json | seed-demo`: the only writer of the database.
import { readFileSync } from 'node:fs';
import { loadConfigOrExit } from '../sidecar/config.ts';
import { parseImportBytes } from '../sidecar/store/import-format.ts';
import { openWriter } from '../sidecar/store/writer.ts';
import { backup, restore } from './backup.ts';
import type { IntakeOptions } from '../sidecar/store/image-intake.ts';
import { resolve } from 'node:path';
import { t } from '../src/lib/i18n.ts';
import { DEFAULT_LANG, isLang, LOCALES } from '../src/lib/locales.ts';
import { scheduleOf } from '../src/lib/opening-hours.ts';
import { clockTime, isWholeDay, weekdayName, type Place } from '../src/lib/place.ts';
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

/**
 * How long a PostgreSQL that does not answer yet (refused, its name not found yet, starting up) is waited for, saying so:
 * a compose file's database makes its cluster on its first start, while `migrate` and an import start beside it.
 */
const DATABASE_WAIT_MS = 30_000;

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function problems(label: string, errors: string[]): string {
  return `${label}: nothing was written; ${errors.length} problem${errors.length === 1 ? '' : 's'}:\n  - ${errors.join('\n  - ')}`;
}

async function importJson(json: unknown, label: string, images: IntakeOptions) {
  const writer = await openWriter({ ...config, waitForDatabaseMs: DATABASE_WAIT_MS });
  try {
    const outcome = await writer.importData(json, images);
    if (!outcome.ok) fail(problems(label, outcome.errors));
    const { counts, notices } = outcome;
    console.log(
      `Imported ${label} into ${writer.target}: ${count(counts.profiles, 'profile')}, ${count(counts.cards, 'card')}, ${count(counts.aliases, 'alias', 'aliases')}${counts.domains > 0 ? `, ${count(counts.domains, 'domain')}` : ''}.`,
    );
    // Written as given; drawn otherwise where a colour would not read (theme.ts).
    if (notices.length > 0)
      console.log(`Colours drawn otherwise, so that every page reads:\n  - ${notices.join('\n  - ')}`);
    for (const week of weeksRead(json)) console.log(week);
  } finally {
    await writer.close();
  }
}

/**
 * The coming week of every record with hours, as its page will draw it, in the record's language (issue 62): what
 * the rule was read as, for the owner to check before a visitor does.
 */
function weeksRead(json: unknown): string[] {
  const data = json as { profiles?: unknown[]; cards?: unknown[] };
  const records = [
    ...(data.profiles ?? []).map((r) => ({ r, key: 'slug' })),
    ...(data.cards ?? []).map((r) => ({ r, key: 'cardId' })),
  ];
  const now = Date.now();
  return records.flatMap(({ r, key }) => {
    const record = r as Record<string, unknown> & { lang?: string; place?: Partial<Place> };
    const place = record.place;
    if (!place?.openingHours || !place.timeZone) return [];
    const lang = isLang(record.lang) ? record.lang : DEFAULT_LANG;
    const schedule = scheduleOf(
      { address: null, geo: place.geo ?? null, openingHours: place.openingHours, timeZone: place.timeZone },
      now,
    );
    if (!schedule) return [];
    const strings = t(lang);
    const locale = LOCALES[lang].dateLocale;
    const days = schedule.days.map((day) => {
      const spans = day.spans.map((span) =>
        // A whole day in words, not 00:00–00:00.
        isWholeDay(span, schedule.zone)
          ? strings.wholeDay
          : `${clockTime(span.from, schedule.zone, locale)}–${clockTime(span.to, schedule.zone, locale)}`,
      );
      return `  ${weekdayName(day.noon, schedule.zone, locale)}: ${spans.length === 0 ? strings.closedAllDay : spans.join(strings.listComma)}`;
    });
    return [`Hours of ${String(record[key])} as read, the coming week (${schedule.zone}):`, ...days];
  });
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
    const writer = await openWriter({ ...config, waitForDatabaseMs: DATABASE_WAIT_MS });
    try {
      const migrated = await writer.migrate();
      if (migrated.length > 0) console.log(`Migrated ${writer.target} to schema version ${migrated.at(-1)}.`);
      console.log(`${writer.target} is up to date.`);
    } catch (err) {
      // A database newer than this release (issue 64): one line, the same words a restore uses, no stack trace.
      fail(`Could not migrate ${writer.target}: ${(err as Error).message}; nothing was changed`);
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
      console.log(command === 'backup' ? await backup(config, arg) : await restore(config, arg));
    } catch (err) {
      const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
      fail(`Could not ${command === 'backup' ? 'back up to' : 'restore'} ${arg}: ${stderr || (err as Error).message}`);
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
