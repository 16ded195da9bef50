// The live data's tables, declared once (issue 47): each column's SQL type on both backends, the schema version that
// added it, what a page sees of it and which import field writes it. Derived from this: the database's types that the
// store's queries are checked against (Kysely, sidecar/store/database.ts), the columns every read selects, the
// migration of a column added after version 3, the shape pages render (Profile, Card: live-content.ts) and the mapping
// of a row to it, with every owner string and date judged on the way out, and the rows an import writes. A new field of
// a profile or a card is one column here, its field in the import format (sidecar/store/import-format.ts), and the page
// that shows it: docs/architecture.md, "Adding a field"; test/store/new-column.test.ts does exactly that.
import { AI_USE_LABELS, type AiUse } from './ai-preferences.ts';
import { IMAGE_ID_PATTERN } from './image-files.ts';
import { HOST_LONGEST, hostProblem } from './owner-domains.ts';
import { DEFAULT_LANG, LANGS, type Lang } from './locales.ts';
import { servedText, storedInstant } from './owner-input.ts';
import { PLACE_TEXT, type Place } from './place.ts';
import { SPECIAL_HOURS_LIMITS, type SpecialHours } from './special-hours.ts';
import { storedTheme, type Theme } from './theme.ts';

/** A row holds what its column does not allow (another writer's mistake): logged and answered 500, never a 503. */
export class CorruptRowError extends Error {
  override name = 'CorruptRowError';
}

/** One column: how it is stored, since when, and what the page and the import make of it. */
export interface Column<Stored = unknown, Shown = unknown, Imported = unknown> {
  /** Its SQL type on each backend. */
  readonly type: { readonly sqlite: string; readonly postgres: string };
  readonly nullable: boolean;
  /** A SQL literal for rows written before it existed (and for writers that leave it out). */
  readonly default?: string;
  /** A CHECK constraint, with `{}` standing for the column's name. */
  readonly check?: string;
  /** `table(column) ON DELETE …`: a reference. */
  readonly references?: string;
  readonly unique?: boolean;
  /** The table's generated key. */
  readonly key?: boolean;
  /** The schema version that added it: after 3 (the versions written by hand), its migration is made from this. */
  readonly since: number;
  /**
   * The most characters a stored value may hold: more than the import ever writes (owner text before it is cleaned,
   * JSON with its quotes). A read selects no more than one character past it (reads.ts), so that a value another
   * writer stored longer costs a read of that much, whatever it is; a JSON value that long is corrupt.
   */
  readonly longest?: number;
  /**
   * What a page sees of a stored value (undefined: pages never see it). A corrupt value is reported as `column` (the
   * table's and the column's name) `of` the row (`profiles.updated_at of profile layla`); nothing is composed unless
   * it is.
   */
  readonly show?: (stored: Stored, of: string, column: string) => Shown;
  /** The name pages see it by, when not the column's own in camelCase. */
  readonly shownAs?: string;
  /** The import field that writes it (the shown name unless given); false: an import does not write it from a field. */
  readonly from?: string | false;
  /** The stored value of what the import gives (the value itself unless given). */
  readonly store?: (imported: Imported) => Stored;
  /** Never set: carries the stored type for the types derived below. */
  readonly storedType?: Stored;
}

/** A column pages see. */
type ShownColumn<Stored, Shown, Imported = Shown> = Column<Stored, Shown, Imported> & {
  readonly show: (stored: Stored, of: string, column: string) => Shown;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any column, whatever its types
type AnyColumn = Column<any, any, any>;
export type Table = Readonly<Record<string, AnyColumn>>;

// Types derived from a table's columns.
type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;
type StoredOf<C> = C extends { storedType?: infer S } ? S : never;
type ShownOf<C> = C extends { show: (stored: never, of: string, column: string) => infer Sh } ? Sh : never;
type ShownName<K extends string, C> = C extends { show: unknown }
  ? C extends { shownAs: infer As extends string }
    ? As
    : CamelCase<K>
  : never;

/** `column`, shown by another name than its own. */
const shownAs = <C extends AnyColumn, As extends string>(column: C, as: As): C & { readonly shownAs: As } => ({
  ...column,
  shownAs: as,
});

/** A row as stored (what a query selecting every column returns). */
export type StoredRow<T extends Table> = { -readonly [K in keyof T]: StoredOf<T[K]> };
/** The columns pages see, and the table's key: what every read selects. */
export type ShownKey<T extends Table> = { [K in keyof T]: T[K] extends { show: unknown } ? K : never }[keyof T] &
  string;
export type KeyColumn<T extends Table> = { [K in keyof T]: T[K] extends { key: true } ? K : never }[keyof T] & string;
/** What a page sees of a row. */
export type ShownRow<T extends Table> = { -readonly [K in keyof T & string as ShownName<K, T[K]>]: ShownOf<T[K]> };

/** The name a page sees a column by. */
const shownName = (name: string, column: AnyColumn): string =>
  column.shownAs ?? name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

type ShowFn = (stored: unknown, of: string, column: string) => unknown;
type RowMapper = (row: Record<string, unknown>, of: string) => Record<string, unknown>;

/**
 * A table's mapper from a stored row to what pages see, made once from its declaration as straight-line code: an
 * object literal with each shown column's judgement. A loop assigning computed keys cost a cold read of the largest
 * profile (a hundred links) about 50 µs more than the hand-written mapping it replaces (docs/benchmarks/store.md): V8
 * makes such a literal as fast as one written by hand. The names are the declaration's, not anyone's input.
 */
function mapperOf(name: TableName): RowMapper {
  const shown = Object.entries(TABLES[name] as Table).filter(([, spec]) => spec.show);
  const body = shown
    .map(
      ([column, spec], i) =>
        `${JSON.stringify(shownName(column, spec))}: show[${i}](row[${JSON.stringify(column)}], of, ${JSON.stringify(`${name}.${column}`)})`,
    )
    .join(', ');
  return new Function('show', `return (row, of) => ({ ${body} });`)(
    shown.map(([, spec]) => spec.show as ShowFn),
  ) as RowMapper;
}

const mappers = new Map<TableName, RowMapper>();

/**
 * The row of `name` as a page sees it: each shown column judged by its column (owner text cleaned and cut, dates
 * checked); `of` names the row in what a corrupt value is reported as (`profiles.updated_at of profile layla`).
 */
export function shownRow<N extends TableName>(
  name: N,
  row: Pick<StoredRow<Tables[N]>, ShownKey<Tables[N]>>,
  of: string,
): ShownRow<Tables[N]> {
  let mapper = mappers.get(name);
  if (!mapper) mappers.set(name, (mapper = mapperOf(name)));
  return mapper(row, of) as ShownRow<Tables[N]>;
}

/** The columns every read of `table` selects: those pages see, and the key. */
export function readColumns<T extends Table>(table: T): (ShownKey<T> | KeyColumn<T>)[] {
  return (Object.keys(table) as (ShownKey<T> | KeyColumn<T>)[]).filter((name) => table[name].show || table[name].key);
}

/**
 * The stored row of `name` an import record makes: every column an import field writes (by the field's name: the
 * column's `from`, else its shown name), converted as the column stores it, and `given` for the others.
 */
export function storedRow<N extends TableName>(
  name: N,
  record: object,
  given: Partial<StoredRow<Tables[N]>>,
): Omit<StoredRow<Tables[N]>, KeyColumn<Tables[N]>> {
  const fields = record as Readonly<Record<string, unknown>>;
  const row: Record<string, unknown> = { ...given };
  for (const [column, spec] of Object.entries(TABLES[name]) as [string, Column<unknown, unknown, unknown>][]) {
    if (spec.key || spec.from === false || column in given) continue;
    const value = fields[spec.from ?? shownName(column, spec as AnyColumn)];
    // A field the record leaves out: null where the column takes it, else what the column stores for nothing (an
    // empty list).
    if (value === undefined) row[column] = spec.nullable || !spec.store ? null : spec.store(undefined);
    else row[column] = spec.store ? spec.store(value) : value;
  }
  return row as Omit<StoredRow<Tables[N]>, KeyColumn<Tables[N]>>;
}

// The kinds of column. Each says how it is stored on both backends and how a page sees it.
interface Options {
  since?: number;
  from?: string | false;
}

const TEXT = { sqlite: 'TEXT', postgres: 'TEXT' } as const;
const FLAG = { sqlite: 'INTEGER', postgres: 'INTEGER' } as const;

/** The table's key: generated, never shown. */
const key = (): Column<number | string, never> & { readonly key: true } => ({
  type: { sqlite: 'INTEGER PRIMARY KEY', postgres: 'BIGSERIAL PRIMARY KEY' },
  nullable: false,
  key: true,
  since: 1,
});

/** A reference to another table's key, never shown (a read joins by it). */
function reference(target: string, onDelete: 'CASCADE'): Column<number | string, never>;
function reference(target: string, onDelete: 'SET NULL', nullable: true): Column<number | string | null, never>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the overloads above say which
function reference(target: string, onDelete: 'CASCADE' | 'SET NULL', nullable = false): Column<any, never> {
  return {
    type: { sqlite: 'INTEGER', postgres: 'BIGINT' },
    nullable,
    references: `${target}(id) ON DELETE ${onDelete}`,
    since: 1,
    from: false,
  };
}

/** An identifier (a slug, a card id): stored and shown as it is (the import checked its pattern). */
const identifier = (options: Options = {}): ShownColumn<string, string> => ({
  type: TEXT,
  nullable: false,
  unique: true,
  since: options.since ?? 1,
  show: (stored) => stored,
  ...options,
});

/**
 * Owner text (owner-input.ts): stored as the import took it; shown without the characters that disguise text and cut
 * at `max`, whoever wrote it. `line`: one line (names, titles); `text`: may hold line breaks (a bio, an address).
 */
function ownerText(
  kind: 'line' | 'text',
  max: number,
  options: Options & { default?: string } = {},
): ShownColumn<string, string> {
  return {
    type: TEXT,
    nullable: false,
    since: options.since ?? 1,
    longest: textLongest(max),
    show: (stored: string) => servedText(stored, kind, max),
    ...options,
  };
}
function optionalOwnerText(
  kind: 'line' | 'text',
  max: number,
  options: Options = {},
): ShownColumn<string | null, string | null, string> {
  return {
    type: TEXT,
    nullable: true,
    since: options.since ?? 1,
    longest: textLongest(max),
    show: (stored: string | null) => (stored === null ? null : servedText(stored, kind, max)),
    ...options,
  };
}

/**
 * What owner text of at most `max` characters may hold stored: the import keeps what it cleans away (the characters
 * that disguise text) and counts graphemes, so four times as many characters and then some; a page shows `max`.
 */
const textLongest = (max: number) => max * 4 + 64;

/** A value longer than its column's `longest`: corrupt, said without the value. */
function tooLong(stored: string, longest: number, of: string, column: string): CorruptRowError | undefined {
  return stored.length > longest
    ? new CorruptRowError(
        `${column} of ${of} holds more than ${longest} characters (more than any import writes): ${JSON.stringify(stored.slice(0, 40))}…`,
      )
    : undefined;
}

/** One of `values`, checked in the database and again when shown. */
function choice<const V extends readonly string[]>(
  values: V,
  options: Options & { default?: V[number] } = {},
): ShownColumn<string, V[number]> {
  const { default: fallback, ...rest } = options;
  return {
    longest: Math.max(...values.map((value) => value.length)),
    type: TEXT,
    nullable: false,
    ...(fallback === undefined ? {} : { default: `'${fallback}'` }),
    check: `{} IN (${values.map((v) => `'${v}'`).join(', ')})`,
    since: rest.since ?? 1,
    show: (stored, what) => {
      if (!values.includes(stored))
        throw new CorruptRowError(`${what} holds ${JSON.stringify(stored)}: not one of ${values.join(', ')}`);
      return stored;
    },
    ...rest,
  };
}

/** A language of the site (locales.ts). */
const language = (options: Options & { default?: Lang } = {}): ShownColumn<string, Lang> =>
  choice<readonly Lang[]>(LANGS, options);

/** A yes or no, stored 0 or 1 (the same on both backends), shown as a boolean. */
function flag(options: Options & { default?: 0 | 1 } = {}): ShownColumn<number | boolean, boolean> {
  return { ...hiddenFlag(options), show: (stored) => stored === 1 || stored === true };
}

/** A yes or no pages never see (a read filters by it: published, enabled, active). */
function hiddenFlag(options: Options & { default?: 0 | 1 } = {}): Column<number | boolean, never, boolean> {
  const { default: fallback, ...rest } = options;
  return {
    type: FLAG,
    nullable: false,
    ...(fallback === undefined ? {} : { default: String(fallback) }),
    check: '{} IN (0, 1)',
    since: rest.since ?? 1,
    store: (imported) => (imported ? 1 : 0),
    ...rest,
  };
}

/** An instant, ISO 8601 text; shown in one form, and a row whose value is no real instant is corrupt. */
function instant(options: Options = {}): ShownColumn<string, string> {
  return {
    type: TEXT,
    nullable: false,
    since: options.since ?? 1,
    show: (stored, of, column) => instantOf(stored, of, column),
    store: (imported) => new Date(imported).toISOString(),
    ...options,
  };
}
function optionalInstant(options: Options = {}): ShownColumn<string | null, string | null, string> {
  return {
    type: TEXT,
    nullable: true,
    since: options.since ?? 1,
    show: (stored, of, column) => (stored === null ? null : instantOf(stored, of, column)),
    store: (imported) => new Date(imported).toISOString(),
    ...options,
  };
}

function instantOf(value: string, of: string, column: string): string {
  const instant = storedInstant(String(value));
  if (instant === undefined)
    throw new CorruptRowError(`${column} of ${of} is not a date: ${JSON.stringify(String(value).slice(0, 40))}`);
  return instant;
}

/** A URL the import normalised; pages follow it only through safeHref (owner-input.ts), whoever wrote it. */
const url = (options: Options = {}): ShownColumn<string, string> => ({
  type: TEXT,
  nullable: false,
  since: options.since ?? 1,
  longest: URL_LONGEST,
  show: (stored, of, column) => {
    const long = tooLong(stored, URL_LONGEST, of, column);
    if (long) throw long;
    return stored;
  },
  ...options,
});
const optionalUrl = (options: Options = {}): ShownColumn<string | null, string | null, string> => ({
  type: TEXT,
  nullable: true,
  since: options.since ?? 1,
  longest: URL_LONGEST,
  show: (stored, of, column) => {
    const long = stored === null ? undefined : tooLong(stored, URL_LONGEST, of, column);
    if (long) throw long;
    return stored;
  },
  ...options,
});
/**
 * A URL as the import normalised it: typed in 2,048 characters at most, then in ASCII (a character percent-encoded is
 * up to twelve). Longer is another writer's, and a cut one would lead elsewhere: corrupt.
 */
const URL_LONGEST = 2048 * 12;

/** What the owner gave for an image (an address, a file beside the import file): kept, never shown. */
const imageSource = (options: Options = {}): Column<string | null, never, string> => ({
  type: TEXT,
  nullable: true,
  since: options.since ?? 1,
  ...options,
});

/** The image this site took in (image-files.ts), by its identifier; written by the intake, not by a field. */
const image = (options: Options = {}): ShownColumn<string | null, string | null> => ({
  type: TEXT,
  nullable: true,
  since: options.since ?? 3,
  from: false,
  show: (stored, of, column) => {
    if (stored === null) return null;
    if (!IMAGE_ID_PATTERN.test(stored)) throw new CorruptRowError(`${column} of ${of} is not an image identifier`);
    return stored;
  },
  ...options,
});

/** What one entry of a JSON list may hold stored, at most (a phone, an e-mail, a social link with its URL). */
const JSON_ENTRY_LONGEST = 4096;
/** What an optional JSON value may hold stored (a place with its address and its week's hours, a theme). */
const JSON_VALUE_LONGEST = 64 * 1024;

/**
 * A list kept as JSON text (a card's phones, its e-mails): each entry shown by `entry` (which cleans and checks it),
 * no more than `max` of them, whoever wrote it.
 */
function jsonList<E>(
  max: number,
  entry: (value: unknown, of: string, column: string) => E,
  options: Options = {},
): ShownColumn<string, E[], unknown[]> {
  const longest = max * JSON_ENTRY_LONGEST;
  return {
    type: TEXT,
    nullable: false,
    default: "'[]'",
    since: options.since ?? 1,
    longest,
    show: (stored, of, column) => {
      const long = tooLong(stored, longest, of, column);
      if (long) throw long;
      let value: unknown;
      try {
        value = JSON.parse(stored);
      } catch (err) {
        throw new CorruptRowError(`${column} of ${of} is not JSON: ${JSON.stringify(String(stored).slice(0, 80))}`, {
          cause: err,
        });
      }
      if (!Array.isArray(value)) throw new CorruptRowError(`${column} of ${of} is not a JSON list`);
      const shown: E[] = [];
      for (let i = 0; i < value.length && i < max; i++) shown.push(entry(value[i], of, column));
      return shown;
    },
    store: (imported) => JSON.stringify(imported ?? []),
    ...options,
  };
}

/**
 * An entry's owner text in another language (a translation of a profile or a card): each of `fields` cleaned and cut
 * as its column is (`line` or `text`, at most `max`), missing where it is not translated. `links`: a profile's link
 * titles, keyed by the link's URL (as the import normalised it), at most OWNER_LISTS.links of them; `sections`: its
 * sections' titles, keyed by the title in the profile's own language.
 */
type TranslatedFields = Readonly<Record<string, { kind: 'line' | 'text'; max: number }>>;
export type Translation<F extends TranslatedFields, Links extends boolean> = {
  [K in keyof F]?: string;
} & (Links extends true
  ? { links?: Readonly<Record<string, string>>; sections?: Readonly<Record<string, string>> }
  : unknown);

/**
 * Translations of a record's owner text (JSON text: `{ "en": { "name": … } }`), by language: each entry's fields
 * judged like their columns (translation), languages the site does not serve left out. The import refused the rest;
 * another writer's value that is not an object of objects of strings is corrupt.
 */
function translations<const F extends TranslatedFields, const Links extends boolean>(
  fields: F,
  links: Links,
  options: Options = {},
): ShownColumn<string, Partial<Record<Lang, Translation<F, Links>>>, unknown> {
  const objectOf = (value: unknown, of: string, column: string, what: string): Record<string, unknown> => {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new CorruptRowError(`${column} of ${of} holds ${what} that is not a JSON object`);
    return value as Record<string, unknown>;
  };
  const textOf = (value: unknown, of: string, column: string, what: string, kind: 'line' | 'text', max: number) => {
    if (typeof value !== 'string') throw new CorruptRowError(`${column} of ${of} holds ${what} that is not a string`);
    return servedText(value, kind, max);
  };
  // Each language's fields at their longest, and for a profile each link's title keyed by its URL as the owner gave it
  // (2,048 characters, escaped), and each section's.
  const perLang =
    Object.values(fields).reduce((sum, field) => sum + textLongest(field.max), 0) +
    (links
      ? OWNER_LISTS.links * (2 * 2048 + textLongest(OWNER_TEXT.linkTitle) + 2 * textLongest(OWNER_TEXT.sectionTitle))
      : 0);
  const longest = LANGS.length * perLang * 2;
  return {
    type: TEXT,
    nullable: false,
    default: "'{}'",
    since: options.since ?? 1,
    longest,
    show: (stored, of, column) => {
      if (stored === '{}') return {};
      const long = tooLong(stored, longest, of, column);
      if (long) throw long;
      let parsed: unknown;
      try {
        parsed = JSON.parse(stored);
      } catch (err) {
        throw new CorruptRowError(`${column} of ${of} is not JSON: ${JSON.stringify(String(stored).slice(0, 80))}`, {
          cause: err,
        });
      }
      const byLang = objectOf(parsed, of, column, 'a value');
      const shown: Partial<Record<Lang, Translation<F, Links>>> = {};
      for (const lang of LANGS) {
        if (!Object.hasOwn(byLang, lang)) continue;
        const entry = objectOf(byLang[lang], of, column, `a translation into ${lang}`);
        const translation: Record<string, unknown> = {};
        for (const [field, { kind, max }] of Object.entries(fields))
          if (Object.hasOwn(entry, field) && entry[field] !== undefined)
            translation[field] = textOf(entry[field], of, column, `${lang}.${field}`, kind, max);
        // A profile's link titles by URL, and its section titles by their title in its own language.
        for (const [keyed, max] of [
          ['links', OWNER_TEXT.linkTitle],
          ['sections', OWNER_TEXT.sectionTitle],
        ] as const) {
          if (!links || !Object.hasOwn(entry, keyed)) continue;
          const titles: Record<string, string> = {};
          const given = Object.entries(objectOf(entry[keyed], of, column, `${lang}.${keyed}`));
          for (const [key, title] of given.slice(0, OWNER_LISTS.links))
            titles[key] = textOf(title, of, column, `${lang}.${keyed}`, 'line', max);
          translation[keyed] = titles;
        }
        shown[lang] = translation as Translation<F, Links>;
      }
      return shown;
    },
    store: (imported) => JSON.stringify(imported ?? {}),
    ...options,
  };
}

/**
 * An optional value kept as JSON text (a place, a theme): null stays null, text that is not JSON is corrupt, and what
 * it parses to is judged by `judge` (which throws CorruptRowError for anything it does not take).
 */
function optionalJson<Shown>(
  judge: (value: unknown, of: string, column: string) => Shown,
  options: Options = {},
): ShownColumn<string | null, Shown | null, unknown> {
  return {
    type: TEXT,
    nullable: true,
    since: options.since ?? 1,
    longest: JSON_VALUE_LONGEST,
    show: (stored, of, column) => {
      if (stored === null) return null;
      const long = tooLong(stored, JSON_VALUE_LONGEST, of, column);
      if (long) throw long;
      let value: unknown;
      try {
        value = JSON.parse(stored);
      } catch (err) {
        throw new CorruptRowError(`${column} of ${of} is not JSON`, { cause: err });
      }
      return judge(value, of, column);
    },
    store: (imported) => (imported === undefined ? null : JSON.stringify(imported)),
    ...options,
  };
}

/**
 * A business's place (place.ts): its address cleaned and cut as owner text is, its coordinates checked, its hours and
 * time zone as given (they are judged where they are read); anything else is corrupt.
 */
function placeOf(value: unknown, of: string, column: string): Place {
  const given = value as Partial<Record<string, unknown>> | null;
  if (!given || typeof given !== 'object' || Array.isArray(given))
    throw new CorruptRowError(`${column} of ${of} is not a JSON object`);
  const text = (field: string, kind: 'line' | 'text', max: number): string | null => {
    const v = given[field];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') throw new CorruptRowError(`${column} of ${of} holds a ${field} that is not a string`);
    return servedText(v, kind, max);
  };
  const geo = given.geo as Partial<Record<string, unknown>> | null | undefined;
  const lat = geo?.lat;
  const lon = geo?.lon;
  if (
    geo != null &&
    !(typeof lat === 'number' && typeof lon === 'number' && Math.abs(lat) <= 90 && Math.abs(lon) <= 180)
  )
    throw new CorruptRowError(`${column} of ${of} holds a geo that is not a latitude and a longitude`);
  return {
    address: text('address', 'text', PLACE_TEXT.address),
    geo: geo == null ? null : { lat: lat as number, lon: lon as number },
    openingHours: text('openingHours', 'line', PLACE_TEXT.openingHours),
    timeZone: text('timeZone', 'line', 64),
    // Another writer's entries are judged where they are read (special-hours.ts specialOn skips one it cannot read);
    // here, each kept to the shape and lengths an import gives.
    specialHours: specialHoursOf(given.specialHours),
  };
}

/** A stored place's special hours: the entries of the import's shape, at most as many as an import takes. */
function specialHoursOf(value: unknown): SpecialHours[] {
  if (!Array.isArray(value)) return [];
  const field = (entry: Record<string, unknown>, name: string, max: number) =>
    typeof entry[name] === 'string' ? { [name]: servedText(entry[name], 'line', max) } : {};
  return value.slice(0, SPECIAL_HOURS_LIMITS.periods).flatMap((entry: unknown) => {
    if (!entry || typeof entry !== 'object' || typeof (entry as { hours?: unknown }).hours !== 'string') return [];
    const e = entry as Record<string, unknown>;
    return [
      {
        ...field(e, 'period', 20),
        ...field(e, 'hijri', 12),
        ...field(e, 'dates', 22),
        ...field(e, 'label', SPECIAL_HOURS_LIMITS.label),
        hours: servedText(e.hours as string, 'line', 60),
      },
    ];
  });
}

/**
 * An owner's theme (theme.ts): colours as `#rrggbb`, the button style one of its words; anything else is corrupt. Its
 * colours are judged for contrast where a page is drawn (theme.ts paletteOf), not trusted.
 */
function themeOf(value: unknown, of: string, column: string): Theme {
  const shown = storedTheme(value);
  if (!shown) throw new CorruptRowError(`${column} of ${of} is not a theme (colours as #rrggbb, buttons by name)`);
  return shown;
}

/** An owner's choice for AI use (ai-preferences.ts): AIPREF's labels, each true or false; anything else is corrupt. */
function aiUseStored(value: unknown, of: string, column: string): AiUse {
  const entries = value && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value) : undefined;
  if (
    !entries ||
    !entries.every(
      ([label, allowed]) => (AI_USE_LABELS as readonly string[]).includes(label) && typeof allowed === 'boolean',
    )
  )
    throw new CorruptRowError(
      `${column} of ${of} is not a choice for AI use (train-ai and search, each true or false)`,
    );
  return Object.fromEntries(entries);
}

/** Plain text that is not an owner's (a change log's key, a store's identity). */
/** A host name (owner-domains.ts), shown as it is; one that is no host name is corrupt (it becomes a redirect). */
const ownerHost = (options: Options = {}): ShownColumn<string | null, string | null, string> => ({
  type: TEXT,
  nullable: true,
  since: options.since ?? 1,
  longest: HOST_LONGEST,
  from: false,
  show: (stored, of, column) => {
    if (stored === null) return null;
    const problem = hostProblem(stored);
    if (problem)
      throw new CorruptRowError(
        `${column} of ${of} is not a host name (${problem}): ${JSON.stringify(stored.slice(0, 40))}`,
      );
    return stored;
  },
  ...options,
});

const plain = (options: { nullable?: boolean; since?: number } = {}): Column<string, never> => ({
  type: TEXT,
  nullable: options.nullable ?? false,
  since: options.since ?? 1,
  from: false,
});

const blob = (options: { since?: number } = {}): Column<Uint8Array, never> => ({
  type: { sqlite: 'BLOB', postgres: 'BYTEA' },
  nullable: false,
  since: options.since ?? 1,
  from: false,
});

/** How many of each list a profile or card holds at most; owner-lists are read no further, whoever wrote them. */
export const OWNER_LISTS = { links: 100, socials: 20, phones: 5, emails: 5 } as const;

/**
 * How long each owner string may be, in characters: the import refuses longer, and what another writer stored longer
 * is cut there when served (owner-input.ts servedText), so that no page costs more than the largest valid one.
 */
export const OWNER_TEXT = {
  profileName: 80,
  bio: 500,
  linkTitle: 100,
  /** A section's title, over the links it groups (issue 49). */
  sectionTitle: 60,
  network: 40,
  cardName: 80,
  jobTitle: 100,
  organization: 100,
  address: 300,
  phone: 30,
  email: 254,
} as const;

/**
 * What kind of line a phone is, as the owner said it (issue 62): a mobile (`cell`), work, home, a landline, or `phone`
 * when the owner did not say (a number alone): labelled with no kind and never offered on WhatsApp, never guessed.
 */
export const PHONE_TYPES = ['cell', 'work', 'home', 'landline', 'phone'] as const;
export const EMAIL_TYPES = ['work', 'home'] as const;
/** A phone number as people write it, and what kind of line it is (a vCard TEL type). */
export interface CardPhone {
  number: string;
  type: (typeof PHONE_TYPES)[number];
}
export interface CardEmail {
  address: string;
  type: (typeof EMAIL_TYPES)[number];
}
/** One of a card's links to the holder's social networks (a profile's are a table of their own). */
export interface CardSocial {
  network: string;
  url: string;
}

/**
 * A card's phone, `{ number, type }` (or a plain string, as written before types existed: a number whose kind nobody
 * said, as an import's number alone is now), its number cleaned; anything else is corrupt.
 */
function phoneEntry(value: unknown, of: string, column: string): CardPhone {
  if (typeof value === 'string') return { number: servedText(value, 'line', OWNER_TEXT.phone), type: 'phone' };
  const entry = value as Partial<Record<string, unknown>> | null;
  if (entry && typeof entry.number === 'string' && (PHONE_TYPES as readonly unknown[]).includes(entry.type))
    return { number: servedText(entry.number, 'line', OWNER_TEXT.phone), type: entry.type as CardPhone['type'] };
  throw new CorruptRowError(`${column} of ${of} holds an entry that is neither a string nor { number, type }`);
}

/** A card's social link, `{ network, url }` (issue 49), cleaned; anything else is corrupt. Its URL is judged where shown. */
function socialEntry(value: unknown, of: string, column: string): CardSocial {
  const entry = value as Partial<Record<string, unknown>> | null;
  if (entry && typeof entry.network === 'string' && typeof entry.url === 'string')
    return {
      network: servedText(entry.network, 'line', OWNER_TEXT.network),
      url: servedText(entry.url, 'line', 2048),
    };
  throw new CorruptRowError(`${column} of ${of} holds an entry that is not { network, url }`);
}

/** A card's e-mail, `{ address, type }` (or a plain string: a work address), cleaned; anything else is corrupt. */
function emailEntry(value: unknown, of: string, column: string): CardEmail {
  if (typeof value === 'string') return { address: servedText(value, 'line', OWNER_TEXT.email), type: 'work' };
  const entry = value as Partial<Record<string, unknown>> | null;
  if (entry && typeof entry.address === 'string' && (EMAIL_TYPES as readonly unknown[]).includes(entry.type))
    return { address: servedText(entry.address, 'line', OWNER_TEXT.email), type: entry.type as CardEmail['type'] };
  throw new CorruptRowError(`${column} of ${of} holds an entry that is neither a string nor { address, type }`);
}

/**
 * What of a profile and of a card is translatable (issue 48): the owner text a reader reads, by the name pages see it
 * by, with how its column judges it. A profile's link titles are translated too, keyed by their link's URL.
 */
export const PROFILE_TRANSLATED = {
  name: { kind: 'line', max: OWNER_TEXT.profileName },
  bio: { kind: 'text', max: OWNER_TEXT.bio },
  /** The place's address (issue 49). */
  address: { kind: 'text', max: PLACE_TEXT.address },
} as const;
export const CARD_TRANSLATED = {
  name: { kind: 'line', max: OWNER_TEXT.cardName },
  jobTitle: { kind: 'line', max: OWNER_TEXT.jobTitle },
  organization: { kind: 'line', max: OWNER_TEXT.organization },
  address: { kind: 'text', max: OWNER_TEXT.address },
} as const;

export const TABLES = {
  profiles: {
    id: key(),
    slug: identifier(),
    name: ownerText('line', OWNER_TEXT.profileName),
    bio: ownerText('text', OWNER_TEXT.bio, { default: "''" }),
    lang: language(),
    kind: choice(['person', 'organization'] as const, { default: 'person' }),
    avatar_url: imageSource(),
    avatar_image: shownAs(image(), 'avatar'),
    plan: choice(['free', 'paid'] as const, { default: 'free' }),
    published: hiddenFlag({ default: 1 }),
    updated_at: instant({ from: false }),
    translations: translations(PROFILE_TRANSLATED, true, { since: 4 }),
    place: optionalJson(placeOf, { since: 5 }),
    theme: optionalJson(themeOf, { since: 6 }),
    ai_use: optionalJson(aiUseStored, { since: 11 }),
    // The owner's own domain (issue 63, owner-domains.ts): written by an import's `domains`, which the operator's
    // check of the domain gives; unique (migration 12's index).
    domain: ownerHost({ since: 12 }),
    domain_cards: flag({ default: 0, since: 12, from: false }),
  },
  links: {
    id: key(),
    profile_id: reference('profiles', 'CASCADE'),
    position: { type: FLAG, nullable: false, since: 1, from: false } as Column<number, never>,
    title: ownerText('line', OWNER_TEXT.linkTitle),
    url: url(),
    enabled: hiddenFlag({ default: 1 }),
    pinned: flag({ default: 0 }),
    starts_at: optionalInstant(),
    ends_at: optionalInstant(),
    section: optionalOwnerText('line', OWNER_TEXT.sectionTitle, { since: 8 }),
    thumbnail_url: imageSource({ since: 8 }),
    thumbnail_image: shownAs(image({ since: 8 }), 'thumbnail'),
  },
  socials: {
    id: key(),
    profile_id: reference('profiles', 'CASCADE'),
    position: { type: FLAG, nullable: false, since: 1, from: false } as Column<number, never>,
    network: ownerText('line', OWNER_TEXT.network),
    url: url(),
  },
  cards: {
    id: key(),
    card_id: identifier(),
    mode: choice(['page', 'redirect'] as const),
    redirect_url: optionalUrl(),
    lang: language({ default: DEFAULT_LANG }),
    name: optionalOwnerText('line', OWNER_TEXT.cardName),
    job_title: optionalOwnerText('line', OWNER_TEXT.jobTitle, { from: 'title' }),
    organization: optionalOwnerText('line', OWNER_TEXT.organization),
    phones: jsonList(OWNER_LISTS.phones, phoneEntry),
    emails: jsonList(OWNER_LISTS.emails, emailEntry),
    website: optionalUrl(),
    address: optionalOwnerText('text', OWNER_TEXT.address),
    photo_url: imageSource(),
    photo_image: shownAs(image(), 'photo'),
    profile_id: reference('profiles', 'SET NULL', true),
    active: hiddenFlag({ default: 1 }),
    updated_at: instant({ from: false }),
    translations: translations(CARD_TRANSLATED, false, { since: 4 }),
    place: optionalJson(placeOf, { since: 5 }),
    theme: optionalJson(themeOf, { since: 6 }),
    socials: jsonList(OWNER_LISTS.socials, socialEntry, { since: 7 }),
    logo_url: imageSource({ since: 9 }),
    logo_image: shownAs(image({ since: 9 }), 'logo'),
    ai_use: optionalJson(aiUseStored, { since: 11 }),
  },
  aliases: {
    alias: { type: { sqlite: 'TEXT PRIMARY KEY', postgres: 'TEXT PRIMARY KEY' }, nullable: false, since: 1 } as Column<
      string,
      never,
      string
    >,
    profile_id: reference('profiles', 'CASCADE'),
  },
  images: {
    name: { type: { sqlite: 'TEXT PRIMARY KEY', postgres: 'TEXT PRIMARY KEY' }, nullable: false, since: 3 } as Column<
      string,
      never
    >,
    bytes: blob({ since: 3 }),
  },
  changes: {
    seq: {
      type: { sqlite: 'INTEGER PRIMARY KEY AUTOINCREMENT', postgres: 'BIGSERIAL PRIMARY KEY' },
      nullable: false,
      key: true,
      since: 2,
    } as Column<number | string, never> & { readonly key: true },
    kind: { ...plain({ since: 2 }), check: "{} IN ('profile', 'card', 'alias')" } as Column<
      'profile' | 'card' | 'alias',
      never
    >,
    key: plain({ since: 2 }),
  },
  store_identity: {
    id: plain({ since: 2 }),
  },
} as const satisfies Record<string, Table>;

export type Tables = typeof TABLES;
export type TableName = keyof Tables;
