// A new column, added where docs/architecture.md says ("Adding a column", worked: a profile's pronouns), in a
// scratch copy of the code: the migration, the shared SQL, the row mapping, the import's field and plan. The copy
// then writes a profile with the column and reads it back through the server's store, on a SQLite file and on a
// PostgreSQL standby: one edit per place, and both dialects have it. If the code moves, the steps here (and on the
// architecture page) must move with it.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, projectRoot } from '../helpers/env.ts';
import { grantReader, ports, url, withClient } from '../helpers/postgres.ts';

const dir = mkdtempSync(join(tmpdir(), 'new-column-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Replaces `from` by `to` in a file of the copy, failing when the text is not there (the code moved). */
function patch(file: string, from: string, to: string) {
  const path = join(dir, file);
  const text = readFileSync(path, 'utf8');
  if (!text.includes(from))
    throw new Error(`${file} no longer holds ${JSON.stringify(from)}: update this test and docs/architecture.md`);
  writeFileSync(path, text.replace(from, to));
}

describe('adding a column', () => {
  it('is one edit in each place the architecture page names, and both backends then store and read it', async () => {
    // .astro holds the content collections' types (npm test runs astro sync first).
    for (const entry of ['sidecar', 'src', 'scripts', 'content', 'package.json', 'tsconfig.json', '.astro'])
      cpSync(join(projectRoot, entry), join(dir, entry), { recursive: true });
    symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));

    // 1. The migration.
    patch(
      'sidecar/store/migrations.ts',
      '\n];\n',
      "\n  { version: 4, description: 'profile pronouns', sql: 'ALTER TABLE profiles ADD COLUMN pronouns TEXT', postgres: 'ALTER TABLE profiles ADD COLUMN pronouns TEXT' },\n];\n",
    );
    // 2. The shared SQL: the read and the upsert.
    patch(
      'sidecar/store/sql.ts',
      'avatar_image, plan, updated_at FROM profiles WHERE slug = ?',
      'avatar_image, plan, updated_at, pronouns FROM profiles WHERE slug = ?',
    );
    patch(
      'sidecar/store/sql.ts',
      'plan, published, updated_at)\n     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      'plan, published, updated_at, pronouns)\n     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    patch(
      'sidecar/store/sql.ts',
      'updated_at = excluded.updated_at\n     RETURNING id',
      'updated_at = excluded.updated_at, pronouns = excluded.pronouns\n     RETURNING id',
    );
    // 3. The row and the page's shape.
    patch(
      'sidecar/store/rows.ts',
      '  updated_at: string;\n}\n\nexport interface LinkRow',
      '  updated_at: string;\n  pronouns: string | null;\n}\n\nexport interface LinkRow',
    );
    patch(
      'sidecar/store/rows.ts',
      '    updatedAt: row.updated_at,\n    links:',
      '    updatedAt: row.updated_at,\n    pronouns: row.pronouns,\n    links:',
    );
    patch(
      'src/lib/live-content.ts',
      "  plan: 'free' | 'paid';\n  updatedAt: string;",
      "  plan: 'free' | 'paid';\n  updatedAt: string;\n  pronouns: string | null;",
    );
    // 4. The import: the field, and its parameter in the plan.
    patch(
      'sidecar/store/import-format.ts',
      '    published: z.boolean().default(true),\n    links:',
      '    published: z.boolean().default(true),\n    pronouns: line(40).optional(),\n    links:',
    );
    patch(
      'sidecar/store/import-plan.ts',
      '    published: number;\n    updatedAt: string;\n  }[];\n  links:',
      '    published: number;\n    updatedAt: string;\n    pronouns: string | null;\n  }[];\n  links:',
    );
    patch(
      'sidecar/store/import-plan.ts',
      '      published: p.published ? 1 : 0,\n      updatedAt: stamp,',
      '      published: p.published ? 1 : 0,\n      updatedAt: stamp,\n      pronouns: p.pronouns ?? null,',
    );
    patch(
      'sidecar/store/import-plan.ts',
      'p.plan, p.published, p.updatedAt]',
      'p.plan, p.published, p.updatedAt, p.pronouns]',
    );

    // The copy type-checks as the project does.
    const tsc = spawnSync(join(projectRoot, 'node_modules/.bin/tsc'), ['--noEmit', '-p', join(dir, 'tsconfig.json')], {
      cwd: dir,
      encoding: 'utf8',
    });
    const ownErrors = (tsc.stdout + tsc.stderr).split('\n').filter((line) => /^(sidecar|src\/lib)\//.test(line));
    expect(ownErrors).toEqual([]);

    // Both backends: write with the writer, read with the server's store.
    const { primary, standby } = ports();
    const database = `column_${Math.random().toString(36).slice(2, 10)}`;
    await withClient(url(primary, 'postgres'), (c) => c.query(`CREATE DATABASE ${database}`));
    writeFileSync(
      join(dir, 'check.ts'),
      `import { openWriter } from './sidecar/store/writer.ts';
import { openStore } from './sidecar/store/open-store.ts';
import { loadConfig } from './sidecar/config.ts';
const data = { profiles: [{ slug: 'sam', name: 'Sam', lang: 'en', pronouns: 'they/them' }] };
const out: Record<string, unknown> = {};
for (const [name, env] of [['sqlite', { DATABASE_PATH: '${join(dir, 'bio.db')}' }], ['postgres', { DATABASE_URL: process.env.PRIMARY }]] as const) {
  const writer = await openWriter(loadConfig(env));
  const outcome = await writer.importData(data);
  await writer.close();
  if (!outcome.ok) throw new Error(outcome.errors.join('; '));
}
await new Promise((r) => setTimeout(r, 0));
for (const [name, env] of [['sqlite', { DATABASE_PATH: '${join(dir, 'bio.db')}' }], ['postgres', { DATABASE_URL: process.env.STANDBY }]] as const) {
  const store = openStore(loadConfig(env));
  for (let i = 0; i < 100 && !(await store.isAvailable()); i++) await new Promise((r) => setTimeout(r, 100));
  let profile;
  for (let i = 0; i < 100 && !(profile = await store.profile('sam')); i++) await new Promise((r) => setTimeout(r, 50));
  out[name] = profile?.pronouns;
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
      sqlite: 'they/them',
      postgres: 'they/them',
    });
  }, 120_000);
});
