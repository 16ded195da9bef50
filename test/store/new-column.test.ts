// A new field, added as docs/architecture.md says ("Adding a field", worked: a profile's pronouns), in a scratch copy
// of the code: the two snippets that page shows are read from it and put where it says (a column in the table's
// declaration, a field in the import format): two edits, none to a query. The copy then type-checks, migrates a
// database made before the edit, imports a profile with the field and reads it back through the server's store, on a
// SQLite file and on a PostgreSQL standby. When the code moves, this test fails until the page says how again.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../sidecar/store/migrations.ts';
import { cleanEnv, projectRoot } from '../helpers/env.ts';
import { grantReader, ports, url, withClient } from '../helpers/postgres.ts';

const dir = mkdtempSync(join(tmpdir(), 'new-column-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The code blocks of the architecture page's "Adding a field", in order. */
function snippets(): string[] {
  const page = readFileSync(join(projectRoot, 'docs/architecture.md'), 'utf8');
  const section = page.slice(page.indexOf('### Adding a field'));
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/^\s+/gm, '').trim());
}

/** Puts `line` on the line after `anchor` in a file of the copy, failing when the anchor is not there. */
function insertAfter(file: string, anchor: string, line: string) {
  const path = join(dir, file);
  const text = readFileSync(path, 'utf8');
  if (!text.includes(anchor))
    throw new Error(`${file} no longer holds ${JSON.stringify(anchor)}: update this test and docs/architecture.md`);
  writeFileSync(path, text.replace(anchor, `${anchor}\n    ${line}`));
}

describe('adding a field', () => {
  it('is a column declared and a field in the import format, no query, and both backends then store and read it', async () => {
    const [column, field] = snippets();
    expect(column, 'the declaration of the column').toMatch(/^pronouns: optionalOwnerText\(/);
    expect(field, 'the field of the import format').toMatch(/^pronouns: /);
    // The page names the version the column would come with: the next one.
    expect(column).toContain(`since: ${SCHEMA_VERSION + 1} }`);

    // .astro holds the content collections' types (npm test runs astro sync first).
    for (const entry of ['sidecar', 'src', 'scripts', 'content', 'package.json', 'tsconfig.json', '.astro'])
      cpSync(join(projectRoot, entry), join(dir, entry), { recursive: true });
    symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));

    // A database made by the code as it is, before the edit: the copy must migrate it.
    const before = join(dir, 'before.db');
    const seeded = spawnSync(process.execPath, [join(dir, 'scripts/db.ts'), 'seed-demo'], {
      cwd: dir,
      env: cleanEnv({ DATABASE_PATH: before }),
      encoding: 'utf8',
    });
    expect(seeded.status, seeded.stdout + seeded.stderr).toBe(0);

    // 1. The column, in the profiles' declaration. 2. The field, in the profile's import schema.
    insertAfter('src/lib/live-schema.ts', '  profiles: {', column!);
    insertAfter('sidecar/store/import-format.ts', 'const profile = z\n  .object({', field!);

    // The copy type-checks as the project does.
    const tsc = spawnSync(join(projectRoot, 'node_modules/.bin/tsc'), ['--noEmit', '-p', join(dir, 'tsconfig.json')], {
      cwd: dir,
      encoding: 'utf8',
    });
    const ownErrors = (tsc.stdout + tsc.stderr).split('\n').filter((line) => /^(sidecar|src\/lib)\//.test(line));
    expect(ownErrors).toEqual([]);

    // Both backends: write with the writer (which migrates first), read with the server's store.
    const { primary, standby } = ports();
    const database = `column_${Math.random().toString(36).slice(2, 10)}`;
    await withClient(url(primary, 'postgres'), (c) => c.query(`CREATE DATABASE ${database}`));
    writeFileSync(
      join(dir, 'check.ts'),
      `import { openWriter } from './sidecar/store/writer.ts';
import { openStore } from './sidecar/store/open-store.ts';
import { loadConfig } from './sidecar/config.ts';
const data = { profiles: [{ slug: 'sam', name: 'Sam', lang: 'en', pronouns: 'they/them' }] };
const backends = [
  ['sqlite', { DATABASE_PATH: ${JSON.stringify(before)} }, { DATABASE_PATH: ${JSON.stringify(before)} }],
  ['postgres', { DATABASE_URL: process.env.PRIMARY }, { DATABASE_URL: process.env.STANDBY }],
] as const;
const out: Record<string, unknown> = {};
for (const [, writeTo] of backends) {
  const writer = await openWriter(loadConfig(writeTo));
  const outcome = await writer.importData(data);
  await writer.close();
  if (!outcome.ok) throw new Error(outcome.errors.join('; '));
}
for (const [name, , readFrom] of backends) {
  const store = openStore(loadConfig(readFrom));
  for (let i = 0; i < 100 && !(await store.isAvailable()); i++) await new Promise((r) => setTimeout(r, 100));
  let profile;
  for (let i = 0; i < 100 && !(profile = await store.profile('sam')); i++) await new Promise((r) => setTimeout(r, 50));
  // The demo's profiles, written before the column existed, read with it empty.
  out[name] = { sam: profile?.pronouns, layla: (await store.profile('layla'))?.pronouns };
  await store.close();
}
console.log(JSON.stringify(out));
process.exit(0);
`,
    );
    await withClient(url(primary, database), grantReader);
    const run = spawnSync(process.execPath, [join(dir, 'check.ts')], {
      cwd: dir,
      env: cleanEnv({ PRIMARY: url(primary, database), STANDBY: url(standby, database) }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}')).toEqual({
      sqlite: { sam: 'they/them', layla: null },
      postgres: { sam: 'they/them' },
    });
  }, 120_000);
});
