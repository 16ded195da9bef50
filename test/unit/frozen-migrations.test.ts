// Migrations frozen once shipped (issue 64). From version 4 on, a version's migration is made from the declaration
// (src/lib/live-schema.ts, each column's `since`): editing a shipped column's type, check or `since` would silently
// change what an existing version means, and a database migrated by the old meaning would never match. Each shipped
// version's SQL, per backend, is held here by its SHA-256 (sidecar/store/shipped-migrations.json); a new version is
// recorded in the commit that declares it, so two branches that each add "version 10" meet in a merge conflict.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pendingMigrations, SCHEMA_VERSION } from '../../sidecar/store/migrations.ts';
import { projectRoot } from '../helpers/env.ts';

const shipped = JSON.parse(readFileSync(join(projectRoot, 'sidecar/store/shipped-migrations.json'), 'utf8')) as Record<
  string,
  { sqlite: string; postgres: string } | string
>;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const made = pendingMigrations(0).map((m) => ({
  version: m.version,
  sqlite: sha256(m.sql),
  postgres: sha256(m.postgres),
}));

describe('migrations, frozen once shipped (issue 64)', () => {
  it('every shipped version makes the SQL it made when it shipped, on both backends', () => {
    for (const [version, frozen] of Object.entries(shipped)) {
      if (typeof frozen === 'string') continue;
      const now = made.find((m) => m.version === Number(version));
      expect(now, `schema version ${version} shipped and is gone`).toBeDefined();
      expect(
        { sqlite: now!.sqlite, postgres: now!.postgres },
        `schema version ${version} shipped: its migration may not change. Declare what you meant as a new column ` +
          `(since: ${SCHEMA_VERSION + 1}) instead of editing a shipped one.`,
      ).toEqual(frozen);
    }
  });

  it('every version the code makes is recorded, in order and with no gap', () => {
    const recorded = Object.keys(shipped)
      .filter((key) => /^\d+$/.test(key))
      .map(Number);
    const missing = made.filter((m) => !recorded.includes(m.version));
    expect(
      missing,
      `new schema versions: add them to sidecar/store/shipped-migrations.json:\n${missing
        .map((m) => `  "${m.version}": { "sqlite": "${m.sqlite}", "postgres": "${m.postgres}" }`)
        .join(',\n')}`,
    ).toEqual([]);
    expect(made.map((m) => m.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
  });
});
