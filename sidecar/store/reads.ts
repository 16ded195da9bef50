// What the server reads, written once with Kysely against the declared tables (database.ts) and compiled once per
// dialect at start-up: the store then runs the compiled SQL with its parameters, as a prepared statement (SQLite) or
// a parameterised query (PostgreSQL), so a read costs what a hand-written statement did. Parameters are named here and
// filled by name when a read runs: no list of them is written in positional order. A read selects every column pages
// see (live-schema.ts readColumns): a column added to a table is read with no query touched. A column with a longest
// value (live-schema.ts `longest`) is read no further than one character past it (`substr`, the same SQL on both
// backends), so that whatever another writer stored in it costs a read no larger than the largest an import writes.
import { sql, type Compilable, type RawBuilder } from 'kysely';
import { OWNER_LISTS, readColumns, TABLES, type Table } from '../../src/lib/live-schema.ts';
import { LANGS } from '../../src/lib/locales.ts';
import { compilerFor, type DialectName } from './database.ts';

const PARAM = Symbol('read parameter');
type Marker = { readonly [PARAM]: string };
const isMarker = (value: unknown): value is Marker => typeof value === 'object' && value !== null && PARAM in value;

/** A parameter of a read, by name: where the value given when the read runs goes in the compiled SQL. */
const param = <T>(name: string): RawBuilder<T> => sql.val({ [PARAM]: name } as unknown as T);

/** A read compiled for one dialect: its SQL, and its parameters in the order the SQL takes them. */
export interface Read<P extends Record<string, unknown>, Row> {
  /** Its name among the reads (`card`, `liveFrom.profile`): what a PostgreSQL connection prepares it as. */
  name: string;
  readonly sql: string;
  args(values: P): unknown[];
  /** Never set: carries the row type. */
  readonly row?: Row;
}

/** `query` compiled, its named parameters placed where the SQL takes them and its constants kept. */
const compiled =
  <P extends Record<string, unknown>>() =>
  <Row>(query: Compilable<Row>): Read<P, Row> => {
    const { sql: text, parameters } = query.compile();
    // Each place's parameter name, or its constant: filled in a loop over two arrays (a read runs thousands of times a
    // second; an object a place and the `in` operator cost more than the query's own preparation saved).
    const names = parameters.map((value) => (isMarker(value) ? value[PARAM] : undefined));
    return {
      name: '',
      sql: text,
      args: (values) => {
        const args = parameters.slice();
        for (let i = 0; i < names.length; i++) {
          const name = names[i];
          if (name !== undefined) args[i] = values[name];
        }
        return args;
      },
    };
  };

/**
 * The columns of `table` (named `name` in the query) a read selects, each bounded as its declaration says: the names
 * as readColumns gives them, for the row's type, with a bounded one read whole when it holds no more bytes than its
 * longest value could (four a character), else as `substr(name.column, 1, longest + 1)`.
 */
function bounded<T extends Table, N extends string>(table: T, name: N) {
  return readColumns(table).map((column) => {
    const longest = table[column].longest;
    const ref = `${name}.${column}`;
    if (longest === undefined) return ref;
    // Whole when its bytes say it is within bounds (octet_length counts every byte, a NUL's too: SQLite's length()
    // and substr() stop at one); else no more than one character past its longest.
    return sql`case when octet_length(${sql.ref(ref)}) > ${sql.lit(4 * longest)} then substr(${sql.ref(ref)}, 1, ${sql.lit(longest + 1)}) else ${sql.ref(ref)} end`.as(
      column,
    );
  }) as unknown as `${N}.${ReturnType<typeof readColumns<T>>[number]}`[];
}

/** The id of the published profile whose slug is the read's `slug` (the profiles' unique index on slug). */
const publishedProfile = (db: ReturnType<typeof compilerFor>) =>
  db.selectFrom('profiles').select('id').where('slug', '=', param<string>('slug')).where('published', '=', 1);

export type RowOf<R> = R extends Read<Record<string, unknown>, infer Row> ? Row : never;

type KeyAfter = { after: string; offset: number };
type CountAfter = { after: string; max: number };
type LiveFrom = { start: string; limit: number };

/** Every read the server makes, compiled for `dialect`. */
export function readsFor(dialect: DialectName) {
  const db = compilerFor(dialect);
  /**
   * What the sitemap lists, by key: the published profiles by slug, the active page-mode cards by card id. Written
   * for each kind as a query of its table (a shared subquery cost the sitemap's part a sixth more on SQLite).
   */
  const listed = {
    // A page that lives at its owner's own domain is listed in that domain's sitemap, not here (a sitemap lists its own
    // host's URLs; the platform's address of it is a redirect): a profile with a domain, and a card its domain takes.
    // (Written so that no index on the domain can serve it: SQLite took the domain's index for `domain IS NULL` and
    // sorted every row by slug, each step of the sitemap 0.1 ms to 11; a domain is never empty.)
    profile: () =>
      db
        .selectFrom('profiles')
        .where('published', '=', 1)
        .where((eb) => eb(eb.fn.coalesce('domain', sql.lit('')), '=', sql.lit(''))),
    card: () =>
      db
        .selectFrom('cards')
        .where('active', '=', 1)
        .where('mode', '=', 'page')
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('profiles as owner')
                .select('owner.id')
                .whereRef('owner.id', '=', 'cards.profile_id')
                .where('owner.published', '=', 1)
                .where('owner.domain', 'is not', null)
                .where('owner.domain_cards', '=', 1),
            ),
          ),
        ),
  };
  return {
    /** A real query against the schema, for health. */
    check: compiled()(
      db
        .selectFrom('profiles')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('id', '=', 0),
    ),
    profile: compiled<{ slug: string }>()(
      db
        .selectFrom('profiles')
        .select(bounded(TABLES.profiles, 'profiles'))
        .where('slug', '=', param<string>('slug'))
        .where('published', '=', 1),
    ),
    // No more than the import allows, whoever wrote them (OWNER_LISTS): a page costs at most what the largest valid
    // one does.
    // By the profile's slug, as the profile itself is read, so that the three reads of a profile need nothing of one
    // another's answers: on PostgreSQL they go to the standby at once, one round trip (pg-store.ts).
    links: compiled<{ slug: string }>()(
      db
        .selectFrom('links')
        .select(bounded(TABLES.links, 'links'))
        .where('profile_id', '=', publishedProfile(db))
        .where('enabled', '=', 1)
        .orderBy('pinned', 'desc')
        .orderBy('position')
        .limit(OWNER_LISTS.links),
    ),
    socials: compiled<{ slug: string }>()(
      db
        .selectFrom('socials')
        .select(bounded(TABLES.socials, 'socials'))
        .where('profile_id', '=', publishedProfile(db))
        .orderBy('position')
        .limit(OWNER_LISTS.socials),
    ),
    /** An active card, with its owner's profile slug and kind while that profile is published. */
    card: compiled<{ cardId: string }>()(
      db
        .selectFrom('cards')
        .leftJoin('profiles', 'profiles.id', 'cards.profile_id')
        .select(bounded(TABLES.cards, 'cards'))
        .select((eb) => [
          eb.case().when('profiles.published', '=', 1).then(eb.ref('profiles.slug')).end().as('profile_slug'),
          eb.case().when('profiles.published', '=', 1).then(eb.ref('profiles.kind')).end().as('profile_kind'),
          eb.case().when('profiles.published', '=', 1).then(eb.ref('profiles.domain')).end().as('profile_domain'),
          'profiles.domain_cards as profile_domain_cards',
        ])
        .where('cards.card_id', '=', param<string>('cardId'))
        .where('cards.active', '=', 1),
    ),
    /** An image's file (image-files.ts), by name. */
    image: compiled<{ name: string }>()(
      db.selectFrom('images').select('bytes').where('name', '=', param<string>('name')),
    ),
    /** The published profile whose own domain `host` is (owner-domains.ts), by the unique index on it. */
    domain: compiled<{ host: string }>()(
      db
        .selectFrom('profiles')
        .select(['slug', 'domain', 'domain_cards'])
        .where('domain', '=', param<string>('host'))
        .where('published', '=', 1),
    ),
    alias: compiled<{ alias: string }>()(
      db
        .selectFrom('aliases')
        .innerJoin('profiles', 'profiles.id', 'aliases.profile_id')
        .select(['profiles.slug', 'profiles.plan', 'profiles.published'])
        .where('aliases.alias', '=', param<string>('alias')),
    ),
    changes: compiled<{ after: number; limit: number }>()(
      db
        .selectFrom('changes')
        .select(['kind', 'key'])
        .where('seq', '>', param<number>('after'))
        .orderBy('seq')
        .limit(param<number>('limit')),
    ),
    changeBounds: compiled()(
      db
        .selectFrom('changes')
        .select((eb) => [
          eb.fn.coalesce(eb.fn.min('seq'), sql.lit(0)).as('first'),
          eb.fn.coalesce(eb.fn.max('seq'), sql.lit(0)).as('last'),
        ]),
    ),
    /** The newest change's sequence: what tells a PostgreSQL reader something was written. */
    lastChange: compiled()(
      db.selectFrom('changes').select((eb) => eb.fn.coalesce(eb.fn.max('seq'), sql.lit(0)).as('last')),
    ),
    identity: compiled()(db.selectFrom('store_identity').select('id')),
    // Each reads at most a slice of rows (its OFFSET or LIMIT): the sitemap walks a million keys in many short steps.
    liveKeyAfter: {
      profile: compiled<KeyAfter>()(
        listed
          .profile()
          .select('slug as key')
          .where('slug', '>', param<string>('after'))
          .orderBy('slug')
          .limit(1)
          .offset(param<number>('offset')),
      ),
      card: compiled<KeyAfter>()(
        listed
          .card()
          .select('card_id as key')
          .where('card_id', '>', param<string>('after'))
          .orderBy('card_id')
          .limit(1)
          .offset(param<number>('offset')),
      ),
    },
    // How many rows follow a key, no further than `max`, and how many of them are translated (each is an entry more).
    liveCountAfter: {
      profile: compiled<CountAfter>()(
        db
          .selectFrom(
            listed
              .profile()
              .select('translations')
              .where('slug', '>', param<string>('after'))
              .orderBy('slug')
              .limit(param<number>('max'))
              .as('t'),
          )
          .select((eb) => [
            eb.fn.countAll<number>().as('n'),
            eb.fn.count<number>(eb.case().when('translations', '<>', '{}').then(1).end()).as('translated'),
          ]),
      ),
      card: compiled<CountAfter>()(
        db
          .selectFrom(
            listed
              .card()
              .select('translations')
              .where('card_id', '>', param<string>('after'))
              .orderBy('card_id')
              .limit(param<number>('max'))
              .as('t'),
          )
          .select((eb) => [
            eb.fn.countAll<number>().as('n'),
            eb.fn.count<number>(eb.case().when('translations', '<>', '{}').then(1).end()).as('translated'),
          ]),
      ),
    },
    // Each page's language and which others it is translated into (a key of its translations, which only a key can
    // hold unescaped): the sitemap lists each version, without reading the translations themselves.
    liveFrom: {
      profile: compiled<LiveFrom>()(
        listed
          .profile()
          .select(['slug as key', 'updated_at', 'lang'])
          .select((eb) => LANGS.map((l) => eb('translations', 'like', `%"${l}":%`).as(`in_${l}`)))
          .where('slug', '>=', param<string>('start'))
          .orderBy('slug')
          .limit(param<number>('limit')),
      ),
      card: compiled<LiveFrom>()(
        listed
          .card()
          .select(['card_id as key', 'updated_at', 'lang'])
          .select((eb) => LANGS.map((l) => eb('translations', 'like', `%"${l}":%`).as(`in_${l}`)))
          .where('card_id', '>=', param<string>('start'))
          .orderBy('card_id')
          .limit(param<number>('limit')),
      ),
    },
    /** A published profile's active page-mode cards, as liveFrom gives them, at most `limit`: its domain's sitemap. */
    cardsOfProfile: compiled<{ slug: string; limit: number }>()(
      db
        .selectFrom('cards')
        .innerJoin('profiles', 'profiles.id', 'cards.profile_id')
        .select(['cards.card_id as key', 'cards.updated_at', 'cards.lang'])
        .select((eb) => LANGS.map((l) => eb('cards.translations', 'like', `%"${l}":%`).as(`in_${l}`)))
        .where('profiles.slug', '=', param<string>('slug'))
        .where('profiles.published', '=', 1)
        .where('cards.active', '=', 1)
        .where('cards.mode', '=', 'page')
        .orderBy('cards.card_id')
        .limit(param<number>('limit')),
    ),
  };
}

export type Reads = ReturnType<typeof readsFor>;

/** `dialect`'s reads, each named by where it stands among them. */
export function namedReadsFor(dialect: DialectName): Reads {
  const reads = readsFor(dialect);
  for (const [name, read] of Object.entries(reads))
    if ('sql' in read) read.name = name;
    else for (const [kind, each] of Object.entries(read)) each.name = `${name}.${kind}`;
  return reads;
}
