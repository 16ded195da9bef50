// Versioned schema migrations for both backends, the rule for which version a writer may migrate and a server may
// read. Applied in order by the writers (the CLI), never by the server, which only reads. Versions 1 to 3 are written
// here by hand (the databases made by them exist); every column declared since (src/lib/live-schema.ts, its `since`)
// is added by a migration made from its declaration, on both backends, and a test holds every database migrated
// from any version to the declaration, column by column (test/store/schema.test.ts).
import { TABLES, type Column } from '../../src/lib/live-schema.ts';
import { DEFAULT_LANG, LANGS } from '../../src/lib/locales.ts';

/** The channel a commit that changes what is cached is announced on (version 10; store/postgres/change-notices.ts). */
export const CHANGE_CHANNEL = 'bio_changes';

/** One version of the schema, written for each backend: the same tables, columns, checks and triggers. */
export interface Migration {
  version: number;
  description: string;
  /** For SQLite (the embedded default). */
  sql: string;
  /** For PostgreSQL (sidecar/store/postgres/). */
  postgres: string;
}

/** Version 1's tables, written once: the backends differ only in the type of a key and of a reference to one. */
function tablesV1(types: { key: string; ref: string }): string {
  const { key, ref } = types;
  // The languages of the locale table. A language added to an existing database needs a migration that widens these
  // checks (docs/architecture.md, "Adding a language"); a new database gets them from here.
  const langs = LANGS.map((lang) => `'${lang}'`).join(', ');
  return `
      CREATE TABLE profiles (
        id ${key},
        slug TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        bio TEXT NOT NULL DEFAULT '',
        lang TEXT NOT NULL CHECK (lang IN (${langs})),
        kind TEXT NOT NULL DEFAULT 'person' CHECK (kind IN ('person', 'organization')),
        avatar_url TEXT,
        plan TEXT NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'paid')),
        published INTEGER NOT NULL DEFAULT 1 CHECK (published IN (0, 1)),
        updated_at TEXT NOT NULL
      );
      CREATE TABLE links (
        id ${key},
        profile_id ${ref} NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        title TEXT NOT NULL,
        url TEXT NOT NULL,
        enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
        pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
        starts_at TEXT,
        ends_at TEXT,
        UNIQUE (profile_id, position)
      );
      CREATE TABLE socials (
        id ${key},
        profile_id ${ref} NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        network TEXT NOT NULL,
        url TEXT NOT NULL,
        UNIQUE (profile_id, position)
      );
      CREATE TABLE cards (
        id ${key},
        card_id TEXT NOT NULL UNIQUE,
        mode TEXT NOT NULL CHECK (mode IN ('page', 'redirect')),
        redirect_url TEXT,
        lang TEXT NOT NULL DEFAULT '${DEFAULT_LANG}' CHECK (lang IN (${langs})),
        name TEXT,
        job_title TEXT,
        organization TEXT,
        phones TEXT NOT NULL DEFAULT '[]',
        emails TEXT NOT NULL DEFAULT '[]',
        website TEXT,
        address TEXT,
        photo_url TEXT,
        profile_id ${ref} REFERENCES profiles(id) ON DELETE SET NULL,
        active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
        updated_at TEXT NOT NULL,
        CHECK (mode = 'page' OR redirect_url IS NOT NULL)
      );
      CREATE TABLE aliases (
        alias TEXT PRIMARY KEY,
        profile_id ${ref} NOT NULL REFERENCES profiles(id) ON DELETE CASCADE
      );
      CREATE INDEX links_by_profile ON links (profile_id, position);
      CREATE INDEX socials_by_profile ON socials (profile_id, position);
`;
}

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    description: 'profiles, links, socials, cards, aliases',
    sql: tablesV1({ key: 'INTEGER PRIMARY KEY', ref: 'INTEGER' }),
    // The same columns as SQLite's, 0/1 flags and ISO 8601 text included, so that one row mapping serves both.
    // PostgreSQL does not index a foreign key by itself: deleting a profile would scan cards and aliases.
    postgres:
      tablesV1({ key: 'BIGSERIAL PRIMARY KEY', ref: 'BIGINT' }) +
      `      CREATE INDEX cards_by_profile ON cards (profile_id);
      CREATE INDEX aliases_by_profile ON aliases (profile_id);
    `,
  },
  {
    version: 2,
    description: 'the change log: what changed, recorded by triggers whoever writes',
    // Each row names one cached thing that may have changed: a profile (by slug), a card (by card id) or an alias.
    // A profile's change is also its cards' (they link to it while it is published) and its aliases' (they lead to
    // it while it is paid and published). Any writer is seen: the CLI, the owner app, an operator's SQL console.
    // The writer side prunes old rows (import.ts keeps CHANGE_LOG_KEEP).
    sql: `
      CREATE TABLE changes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL CHECK (kind IN ('profile', 'card', 'alias')),
        key TEXT NOT NULL
      );
      -- Which database this is: a sidecar that finds another one (a restore, a replaced file) drops its whole cache.
      CREATE TABLE store_identity (id TEXT NOT NULL);
      INSERT INTO store_identity (id) VALUES (lower(hex(randomblob(16))));
      ${profileTriggers('INSERT', ['NEW'])}
      ${profileTriggers('UPDATE', ['OLD', 'NEW'])}
      ${profileTriggers('DELETE', ['OLD'])}
      ${['links', 'socials'].flatMap((table) => ['INSERT', 'UPDATE', 'DELETE'].map((op) => childTrigger(table, op))).join('\n')}
      ${['INSERT', 'UPDATE', 'DELETE'].map((op) => rowTrigger('cards', op, 'card', 'card_id')).join('\n')}
      ${['INSERT', 'UPDATE', 'DELETE'].map((op) => rowTrigger('aliases', op, 'alias', 'alias')).join('\n')}
    `,
    postgres: `
      CREATE TABLE changes (
        seq BIGSERIAL PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('profile', 'card', 'alias')),
        key TEXT NOT NULL
      );
      CREATE TABLE store_identity (id TEXT NOT NULL);
      INSERT INTO store_identity (id) VALUES (md5(random()::text || clock_timestamp()::text));
      CREATE FUNCTION note_profile_change(profile BIGINT, slug TEXT) RETURNS void LANGUAGE sql AS $$
        INSERT INTO changes (kind, key) VALUES ('profile', slug);
        INSERT INTO changes (kind, key) SELECT 'card', card_id FROM cards WHERE profile_id = profile;
        INSERT INTO changes (kind, key) SELECT 'alias', alias FROM aliases WHERE profile_id = profile;
      $$;
      CREATE FUNCTION profiles_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN PERFORM note_profile_change(OLD.id, OLD.slug); END IF;
        IF TG_OP <> 'DELETE' THEN PERFORM note_profile_change(NEW.id, NEW.slug); END IF;
        RETURN NULL;
      END $$;
      CREATE FUNCTION profile_child_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN INSERT INTO changes (kind, key) SELECT 'profile', slug FROM profiles WHERE id = OLD.profile_id; END IF;
        IF TG_OP <> 'DELETE' THEN INSERT INTO changes (kind, key) SELECT 'profile', slug FROM profiles WHERE id = NEW.profile_id; END IF;
        RETURN NULL;
      END $$;
      ${pgRowChanges('cards', 'card', 'card_id')}
      ${pgRowChanges('aliases', 'alias', 'alias')}
      CREATE TRIGGER profiles_changes AFTER INSERT OR UPDATE OR DELETE ON profiles FOR EACH ROW EXECUTE FUNCTION profiles_changes();
      CREATE TRIGGER links_changes AFTER INSERT OR UPDATE OR DELETE ON links FOR EACH ROW EXECUTE FUNCTION profile_child_changes();
      CREATE TRIGGER socials_changes AFTER INSERT OR UPDATE OR DELETE ON socials FOR EACH ROW EXECUTE FUNCTION profile_child_changes();
      CREATE TRIGGER cards_changes AFTER INSERT OR UPDATE OR DELETE ON cards FOR EACH ROW EXECUTE FUNCTION cards_changes();
      CREATE TRIGGER aliases_changes AFTER INSERT OR UPDATE OR DELETE ON aliases FOR EACH ROW EXECUTE FUNCTION aliases_changes();
    `,
  },
  {
    version: 3,
    description:
      "images served by this site: avatars' and card photos' files, and which image a profile and a card show",
    // Content-addressed (image-files.ts): a file's name never shows other bytes, so rows are only ever added (an
    // import that takes an image again writes nothing) and no change log is needed for them; a profile's or card's
    // change of image is a change of its row, which the existing triggers record. avatar_url and photo_url keep what
    // the owner gave (the address or file the image was taken from); pages never show them.
    sql: `
      CREATE TABLE images (name TEXT PRIMARY KEY, bytes BLOB NOT NULL);
      ALTER TABLE profiles ADD COLUMN avatar_image TEXT;
      ALTER TABLE cards ADD COLUMN photo_image TEXT;
    `,
    postgres: `
      CREATE TABLE images (name TEXT PRIMARY KEY, bytes BYTEA NOT NULL);
      ALTER TABLE profiles ADD COLUMN avatar_image TEXT;
      ALTER TABLE cards ADD COLUMN photo_image TEXT;
    `,
  },
  {
    version: 10,
    description: 'a commit that changes what is cached is announced to listeners (PostgreSQL: NOTIFY bio_changes)',
    // Issue 65: the regions' sidecars and purgers LISTEN on the primary (CHANGE_NOTIFY_URL) and are told of a change
    // as it commits, instead of finding it at their next poll of their standby's change log. The payload is the
    // change log's last sequence the transaction sees and the WAL position it had reached (the commit record comes
    // just after): a listener reads its standby once that standby has replayed it. Once a transaction, however many
    // rows it logs: the trigger runs at commit, and PostgreSQL sends a payload repeated in one transaction once. A
    // notification is a hint: a listener that misses one (its link cut, a restart) catches up by its poll.
    // SQLite: nothing; a sidecar learns of a commit to its file by a file-system event.
    sql: `SELECT 1;`,
    postgres: `
      CREATE FUNCTION announce_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('${CHANGE_CHANNEL}', (SELECT max(seq) FROM changes)::text || ' ' || pg_current_wal_insert_lsn()::text);
        RETURN NULL;
      END $$;
      CREATE CONSTRAINT TRIGGER changes_announce AFTER INSERT ON changes DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION announce_changes();
    `,
  },
  {
    version: 12,
    description: "an owner's own domain: one profile a host (the columns come from their declaration)",
    // Issue 63: a request's Host finds its profile by this index; a host is one profile's at most. A column added to a
    // table cannot be UNIQUE in SQLite's ALTER TABLE: the index says it on both.
    sql: `CREATE UNIQUE INDEX profiles_by_domain ON profiles (domain);`,
    postgres: `CREATE UNIQUE INDEX profiles_by_domain ON profiles (domain);`,
  },
];

/** The rows a trigger has: NEW for an insert, OLD for a delete, both for an update. */
function rowsOf(op: string): string[] {
  return op === 'INSERT' ? ['NEW'] : op === 'DELETE' ? ['OLD'] : ['OLD', 'NEW'];
}

/** A profile, its cards and its aliases, for each of `rows`. */
function profileTriggers(op: string, rows: string[]): string {
  const body = rows
    .map(
      (row) => `
        INSERT INTO changes (kind, key) VALUES ('profile', ${row}.slug);
        INSERT INTO changes (kind, key) SELECT 'card', card_id FROM cards WHERE profile_id = ${row}.id;
        INSERT INTO changes (kind, key) SELECT 'alias', alias FROM aliases WHERE profile_id = ${row}.id;`,
    )
    .join('');
  return `CREATE TRIGGER profiles_${op.toLowerCase()}_changes AFTER ${op} ON profiles BEGIN ${body} END;`;
}

/** A link or social changes its profile (found by id; none when the profile itself is being deleted). */
function childTrigger(table: string, op: string): string {
  const body = rowsOf(op)
    .map((row) => `INSERT INTO changes (kind, key) SELECT 'profile', slug FROM profiles WHERE id = ${row}.profile_id;`)
    .join(' ');
  return `CREATE TRIGGER ${table}_${op.toLowerCase()}_changes AFTER ${op} ON ${table} BEGIN ${body} END;`;
}

function rowTrigger(table: string, op: string, kind: string, column: string): string {
  const body = rowsOf(op)
    .map((row) => `INSERT INTO changes (kind, key) VALUES ('${kind}', ${row}.${column});`)
    .join(' ');
  return `CREATE TRIGGER ${table}_${op.toLowerCase()}_changes AFTER ${op} ON ${table} BEGIN ${body} END;`;
}

/** PostgreSQL: the trigger function of a table whose rows are cached by a key of their own (a card, an alias). */
function pgRowChanges(table: string, kind: string, column: string): string {
  return `CREATE FUNCTION ${table}_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN INSERT INTO changes (kind, key) VALUES ('${kind}', OLD.${column}); END IF;
        IF TG_OP <> 'DELETE' THEN INSERT INTO changes (kind, key) VALUES ('${kind}', NEW.${column}); END IF;
        RETURN NULL;
      END $$;`;
}

/** The last version written by hand: columns declared with a later `since` are added from their declaration. */
const HAND_WRITTEN = 3;

/** A column's definition in `dialect`'s DDL, as its declaration says. */
function columnDefinition(name: string, column: Column, dialect: 'sqlite' | 'postgres'): string {
  return [
    name,
    column.type[dialect],
    column.nullable ? '' : 'NOT NULL',
    column.default === undefined ? '' : `DEFAULT ${column.default}`,
    column.check ? `CHECK (${column.check.replaceAll('{}', name)})` : '',
    column.unique ? 'UNIQUE' : '',
    column.references ? `REFERENCES ${column.references}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/**
 * The migrations made from the declaration: for each version after the hand-written ones, a table all of whose
 * columns arrive in it is created, and any other column it brings is added to its table. A column added NOT NULL needs
 * a DEFAULT for the rows already there (both databases refuse it otherwise, and the declaration test says so).
 */
function declaredMigrations(): Migration[] {
  const byVersion = new Map<number, { tables: string[]; sql: string[]; postgres: string[] }>();
  for (const [table, columns] of Object.entries(TABLES) as [string, Record<string, Column>][]) {
    const entries = Object.entries(columns);
    const born = Math.min(...entries.map(([, c]) => c.since));
    for (const version of new Set(entries.map(([, c]) => c.since).filter((v) => v > HAND_WRITTEN))) {
      const at = byVersion.get(version) ?? { tables: [], sql: [], postgres: [] };
      byVersion.set(version, at);
      const added = entries.filter(([, c]) => c.since === version);
      for (const dialect of ['sqlite', 'postgres'] as const) {
        const statements = dialect === 'sqlite' ? at.sql : at.postgres;
        if (version === born)
          statements.push(
            `CREATE TABLE ${table} (${added.map(([name, c]) => columnDefinition(name, c, dialect)).join(', ')});`,
          );
        else
          statements.push(
            ...added.map(([name, c]) => `ALTER TABLE ${table} ADD COLUMN ${columnDefinition(name, c, dialect)};`),
          );
      }
      at.tables.push(...added.map(([name]) => `${table}.${name}`));
    }
  }
  return [...byVersion.entries()]
    .sort(([a], [b]) => a - b)
    .map(([version, at]) => ({
      version,
      description: `declared columns: ${at.tables.join(', ')}`,
      sql: at.sql.join('\n'),
      postgres: at.postgres.join('\n'),
    }));
}

/** Every migration, in order: the hand-written ones, then what the declaration adds (joined per version). */
const ALL_MIGRATIONS: Migration[] = (() => {
  const merged = new Map(MIGRATIONS.map((m) => [m.version, { ...m }]));
  for (const m of declaredMigrations()) {
    const hand = merged.get(m.version);
    if (!hand) merged.set(m.version, m);
    else
      merged.set(m.version, {
        ...hand,
        sql: `${m.sql}\n${hand.sql}`,
        postgres: `${m.postgres}\n${hand.postgres}`,
      });
  }
  return [...merged.values()].sort((a, b) => a.version - b.version);
})();

export const SCHEMA_VERSION = ALL_MIGRATIONS.at(-1)?.version ?? 0;

/**
 * The migrations a writer applies to a database at `current`, in order, up to `upTo` (the bench's bulk path loads
 * rows before the change log's triggers exist). A database newer than this code is refused: a writer must not write
 * rows an older schema describes. Each backend applies each one in its own transaction.
 */
export function pendingMigrations(current: number, upTo = SCHEMA_VERSION): Migration[] {
  if (current > SCHEMA_VERSION)
    throw new Error(
      `it is at schema version ${current}, newer than this release knows (${SCHEMA_VERSION}): run the release that made it, or restore the backup taken before it`,
    );
  return ALL_MIGRATIONS.filter((m) => m.version > current && m.version <= upTo);
}

/**
 * Why the server cannot read a database at schema `version`, or undefined when it can. The rule, for both backends:
 * at least this code's version. Migrations only add (a column, a table, a trigger), so a server reads a newer schema:
 * a deploy migrates the database first, then replaces the sidecars one by one, and the old ones keep serving.
 */
export function schemaProblem(version: number): string | undefined {
  return version < SCHEMA_VERSION
    ? `database schema is at version ${version}, this server needs ${SCHEMA_VERSION}: run npm run db -- migrate`
    : undefined;
}
