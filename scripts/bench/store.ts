// `npm run bench -- --store [--baseline REV]`: the data tier of this code against the code at REV (default c32064a,
// before issue 47's declaration and Kysely), side by side in one run on one machine, on both backends: a cold read of
// the largest profile and the largest card an import allows, a sitemap part's 50,000 rows at 1,000,000 profiles, and
// an import of 50,000 profiles into an empty database. Each measurement runs in a process of its own
// (store-probe.ts) that loads one revision's store or writer; the revisions take turns, round by round, so that what
// the machine does meanwhile falls on both. Both revisions read the same databases (the schema is the same). The goal
// (issue 47): reads no slower than 1.1x, the import no slower than 1.2x. Writes docs/benchmarks/store.md.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { projectRoot } from '../ensure-build.ts';
import { postgresBackend, sqliteBackend } from './data-tier.ts';
import { generatedProfiles, scratch, worktreeAt } from './harness.ts';
import { fmt, median } from './numbers.ts';
import { writeRecord } from './records.ts';
import { LARGEST } from './worst.ts';

const MILLION = 1_000_000;
const IMPORTED = 50_000;

/** The code at `rev` in a worktree of its own (this checkout's node_modules): its root. */
const checkout = (rev: string): string => worktreeAt(rev, `store-${rev}`);

function probe(root: string, mode: string, env: Record<string, string>, arg: string): Promise<unknown> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [join(projectRoot, 'scripts/bench/store-probe.ts'), root, mode, JSON.stringify(env), arg],
      { maxBuffer: 1 << 20 },
      (error, out, err) =>
        error ? reject(new Error(`${mode} at ${root}: ${err || error.message}`)) : resolve(JSON.parse(out)),
    ),
  );
}

export async function storeBench(options: { baseline?: string | undefined }): Promise<void> {
  const rev = options.baseline ?? 'c32064a';
  const roots = { now: projectRoot, [rev]: checkout(rev) };
  const names = Object.keys(roots);
  const importFile = join(mkdtempSync(join(scratch, 'store-')), 'import.json');
  writeFileSync(importFile, JSON.stringify(generatedProfiles(IMPORTED)));

  const lite = sqliteBackend(scratch);
  const postgres = await postgresBackend();
  const rows: string[] = [];
  try {
    const backends = [
      {
        name: 'SQLite',
        read: await lite.prepare(MILLION, LARGEST),
        fresh: async () => ({ DATABASE_PATH: join(mkdtempSync(join(scratch, 'import-')), 'bio.db') }),
      },
      {
        name: 'PostgreSQL',
        read: await postgres.prepare(MILLION, LARGEST),
        fresh: async () => {
          const name = `import_${Math.random().toString(36).slice(2, 10)}`;
          const admin = new pg.Client({ connectionString: postgres.primaryUrl('postgres') });
          await admin.connect();
          await admin.query(`CREATE DATABASE ${name}`);
          await admin.end();
          return { DATABASE_URL: postgres.primaryUrl(name) };
        },
      },
    ];
    for (const backend of backends) {
      // Both revisions' stores in one process, taking turns: the same machine's moment for both.
      const measured = (await probe(names.map((n) => roots[n]!).join(','), 'read', backend.read.env, '11')) as Record<
        string,
        number
      >[];
      const reads: Record<string, Record<string, number>> = Object.fromEntries(names.map((n, i) => [n, measured[i]!]));
      const imports: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
      for (let round = 0; round < (backend.name === 'SQLite' ? 3 : 2); round++)
        for (const name of round % 2 ? [...names].reverse() : names)
          imports[name]!.push(
            ((await probe(roots[name]!, 'import', await backend.fresh(), importFile)) as { seconds: number }).seconds,
          );
      const of = (name: string, key: string) => reads[name]![key]!;
      const line = (what: string, unit: string, now: number, then: number, goal: number) =>
        `| ${backend.name} | ${what} | ${fmt(now, unit === 's' ? 1 : 0)} ${unit} | ${fmt(then, unit === 's' ? 1 : 0)} ${unit} | ${fmt(now / then, 2)}× | ${now / then <= goal ? 'met' : `over ${goal}×`} |`;
      rows.push(
        line('the largest profile, cold', 'µs', of('now', 'profileUs'), of(rev, 'profileUs'), 1.1),
        line('the largest card, cold', 'µs', of('now', 'cardUs'), of(rev, 'cardUs'), 1.1),
        line(
          `a sitemap part (50,000 rows) at ${MILLION.toLocaleString('en')} profiles`,
          'ms',
          of('now', 'partMs'),
          of(rev, 'partMs'),
          1.1,
        ),
        line(
          `an import of ${IMPORTED.toLocaleString('en')} profiles`,
          's',
          median(imports.now!),
          median(imports[rev]!),
          1.2,
        ),
      );
      console.log(rows.slice(-4).join('\n'));
    }
    await backends[0]!.read.close();
    await backends[1]!.read.close();
  } finally {
    await postgres.stop();
  }
  writeRecord(
    'store.md',
    [
      '# The data tier against the code before its declaration',
      '',
      `\`npm run bench -- --store --baseline ${rev}\`, ${new Date().toISOString().slice(0, 10)}, on this machine kind (two cores). ` +
        `This code (now) against ${rev} (before issue 47: hand-written SQL, positional parameters, one statement an ` +
        'imported row; before issue 46 too, which judges every owner string and date on the way out): reads with ' +
        "both revisions' stores open in one process, taking turns, the median of eleven rounds (a round: 300 reads " +
        'of the profile, 1,500 of the card, one part); imports each in a process of its own, the revisions taking ' +
        'turns, the median of three rounds (SQLite) and two (PostgreSQL). Both read ' +
        `the same databases: ${MILLION.toLocaleString('en')} generated profiles and the largest profile and card an ` +
        'import allows (100 links and 20 socials of the longest; 5 phones and e-mails), the sidecar reading a ' +
        'PostgreSQL standby. Goal (issue 47): reads no slower than 1.1×, the import no slower than 1.2×.',
      '',
      `| Backend | What | Now | ${rev} | Now ÷ ${rev} | Goal |`,
      '|---|---|---:|---:|---:|---|',
      ...rows,
      '',
      'The cached path does not touch the database at all: a cached page is answered from the live cache, whose ' +
        'check of the change log costs nothing while the folder is quiet (SQLite) or is a poll apart (PostgreSQL).',
      '',
    ].join('\n'),
  );
}
