// The import file format and its validation: every record and field checked before anything is written.
import { visit } from 'jsonc-parser';
import { SPECIAL_HOURS_LIMITS, specialHoursProblem, type SpecialHours } from '../../src/lib/special-hours.ts';
import { z } from 'zod';
import {
  CARD_TRANSLATED,
  EMAIL_TYPES,
  OWNER_LISTS,
  OWNER_TEXT,
  PHONE_TYPES,
  PROFILE_TRANSLATED,
} from '../../src/lib/live-content.ts';
import { describeLangs, isLang, LANGS, type Lang } from '../../src/lib/locales.ts';
import { openingHoursProblem } from '../../src/lib/opening-hours.ts';
import { isTimeZone, PLACE_TEXT } from '../../src/lib/place.ts';
import { FONT_KEYS } from '../../src/lib/fonts.ts';
import {
  BUTTON_FILLS,
  BUTTON_SHAPES,
  colourOf,
  DEFAULT_BUTTONS,
  groundProblem,
  paletteOf,
  substituteText,
  type Theme,
} from '../../src/lib/theme.ts';
import {
  cardRedirectProblem,
  LINK_SCHEMES,
  normalizeUrl,
  textProblem,
  WEB_SCHEMES,
  type UrlScheme,
} from '../../src/lib/owner-input.ts';
import type { Result } from '../../src/lib/result.ts';
import { nestsDeeperThan } from '../json-nesting.ts';
import { aliasSchema, DEFAULT_LANG, ids } from '../../src/lib/surface.ts';
import { HOST_LONGEST, hostOf, hostProblem } from '../../src/lib/owner-domains.ts';
import { NETWORK_ID_PATTERN } from '../../src/lib/social-networks.ts';

/** Owner text: trimmed, bounded, without the invisible characters that disguise it (see owner-input.ts). */
const ownerText = (max: number, kind: 'line' | 'text') =>
  z
    .string()
    .trim()
    .max(max)
    .superRefine((value, ctx) => {
      const problem = textProblem(value, kind);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
const text = (max: number) => ownerText(max, 'text');
const line = (max: number) => ownerText(max, 'line');

/** A URL the owner typed, stored in its normalised ASCII form, or refused with the reason. */
function url(schemes: readonly UrlScheme[]) {
  return z
    .string()
    .trim()
    .max(2048)
    .transform((value, ctx) => {
      const result = normalizeUrl(value, schemes);
      if (result.ok) return result.href;
      ctx.addIssue({ code: 'custom', message: result.problem });
      return z.NEVER;
    });
}

const webUrl = url(WEB_SCHEMES);

/**
 * An image to take in (image-intake.ts): an http(s) address, normalised like every URL, or a file beside the import
 * file, named as a relative URL names it (`images/layla.jpg`; no leading slash, backslash, query or fragment).
 */
const imageRef = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .transform((value, ctx) => {
    if (/^[a-z][a-z\d+.-]*:/i.test(value)) {
      const result = normalizeUrl(value, WEB_SCHEMES);
      if (result.ok) return result.href;
      ctx.addIssue({ code: 'custom', message: result.problem });
      return z.NEVER;
    }
    // eslint-disable-next-line no-control-regex -- the characters refused
    if (/^[/\\]|[\\?#\u0000-\u001f\u007f]/.test(value)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'must be an http(s) address or a file beside the import file, named as a relative URL (images/a.jpg): no leading slash, backslash, query, fragment or control character',
      });
      return z.NEVER;
    }
    return value;
  });
const linkUrl = url(LINK_SCHEMES);
const slug = ids.slug;
const dateTime = z.iso.datetime({ offset: true });

const link = z
  .object({
    title: line(OWNER_TEXT.linkTitle).min(1),
    url: linkUrl,
    enabled: z.boolean().default(true),
    pinned: z.boolean().default(false),
    startsAt: dateTime.optional(),
    endsAt: dateTime.optional(),
    /** The section it is grouped under, by its title (issue 49). */
    section: line(OWNER_TEXT.sectionTitle).min(1).optional(),
    /** A small picture beside its title, taken in as avatars are (issue 49). */
    thumbnailUrl: imageRef.optional(),
  })
  .strict()
  .refine((l) => !l.startsAt || !l.endsAt || Date.parse(l.endsAt) > Date.parse(l.startsAt), {
    message: 'must be after startsAt',
    path: ['endsAt'],
  });

/**
 * A record's `translations` (issue 48): by language, the translatable fields (`fields`: the import's name of each, and
 * how its column judges it) in that language, under the same limits and rules as the record's own. Refused, naming
 * the language or the field: a language the site does not serve, the record's own language, a field that is not
 * translatable. A field left out is shown in the record's own language.
 */
function translationsOf(fields: Readonly<Record<string, z.ZodType>>, record: string) {
  const names = Object.keys(fields);
  const entry = z
    .object(fields)
    .catchall(z.unknown())
    .superRefine((value, ctx) => {
      if (Object.keys(value).length === 0)
        ctx.addIssue({ code: 'custom', message: `translates nothing: give at least one of ${names.join(', ')}` });
      for (const key of Object.keys(value))
        if (!names.includes(key))
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `is not translatable: a ${record}'s translations hold ${names.join(', ')}`,
          });
    });
  return z
    .record(z.string(), z.unknown())
    .superRefine((value, ctx) => {
      for (const lang of Object.keys(value))
        if (!isLang(lang))
          ctx.addIssue({
            code: 'custom',
            path: [lang],
            message: `is not a language this site serves: a translation is into ${describeLangs()}`,
          });
    })
    .pipe(z.partialRecord(z.enum(LANGS), entry));
}

/** A translation's record is refused where it translates into its own language. */
function ownLanguageRefused(
  record: { lang: Lang; translations?: Partial<Record<Lang, unknown>> | undefined },
  ctx: z.RefinementCtx,
) {
  if (record.translations?.[record.lang] !== undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['translations', record.lang],
      message: `is this record's own language (lang "${record.lang}"): a translation is into another language`,
    });
}

const profileTranslation = {
  name: line(PROFILE_TRANSLATED.name.max).min(1).optional(),
  bio: text(PROFILE_TRANSLATED.bio.max).optional(),
  /** The place's address. */
  address: text(PROFILE_TRANSLATED.address.max).optional(),
  /** Each link's title, keyed by the link's URL as the profile gives it: the pairing survives reordering the links. */
  links: z.record(z.string().max(2048), line(OWNER_TEXT.linkTitle).min(1)).optional(),
  /** Each section's title, keyed by its title in the profile's own language. */
  sections: z.record(z.string().max(OWNER_TEXT.sectionTitle), line(OWNER_TEXT.sectionTitle).min(1)).optional(),
};

/**
 * A business's place (issue 49): coordinates, opening hours in OpenStreetMap's syntax read in its IANA time zone (both
 * judged here by what reads them), and on a profile its address (a card has its own). At least one of them.
 */
function placeOf(withAddress: boolean) {
  return z
    .object({
      ...(withAddress ? { address: text(PLACE_TEXT.address).min(1).optional() } : {}),
      geo: z
        .object(
          {
            lat: z.number().min(-90).max(90),
            lon: z.number().min(-180).max(180),
          },
          // The shape, not zod's `expected object, received string` (issue 62).
          { error: (issue) => (issue.code === 'invalid_type' ? `must be ${GEO_SHAPE}` : undefined) },
        )
        .strict()
        .optional(),
      openingHours: z.string().trim().min(1).max(PLACE_TEXT.openingHours).optional(),
      timeZone: z
        .string()
        .refine(isTimeZone, 'is not a time zone: give an IANA name, such as "Asia/Riyadh" or "Europe/London"')
        .optional(),
      // Days whose hours are not the week's (issue 62): by Hijri period or range, or Gregorian dates.
      specialHours: z
        .array(
          z
            .object({
              period: z.string().optional(),
              hijri: z.string().max(12).optional(),
              dates: z.string().max(22).optional(),
              hours: z.string().trim().min(1).max(60),
              label: line(SPECIAL_HOURS_LIMITS.label).optional(),
            })
            .strict()
            .superRefine((entry, ctx) => {
              const problem = specialHoursProblem(entry as SpecialHours);
              if (problem) ctx.addIssue({ code: 'custom', message: problem });
            }),
        )
        .max(SPECIAL_HOURS_LIMITS.periods)
        .optional(),
    })
    .strict()
    .superRefine((place, ctx) => {
      if (Object.keys(place).length === 0)
        ctx.addIssue({ code: 'custom', message: 'says nothing: give an address, a geo, or openingHours' });
      if (place.specialHours && place.openingHours === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['specialHours'],
          message: "are a change to the week's openingHours: give those too",
        });
      if (place.openingHours === undefined) return;
      if (place.timeZone === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['timeZone'],
          message: 'is needed with openingHours: the IANA time zone they are kept in, such as "Asia/Riyadh"',
        });
      const problem = openingHoursProblem(place.openingHours, place.geo ?? null);
      if (problem) ctx.addIssue({ code: 'custom', path: ['openingHours'], message: problem });
    });
}

/** A theme as the import file gives it: a background image by its reference, until the intake takes it. */
type ImportedTheme = Omit<Theme, 'background'> & { background: Theme['background'] | { image: string } };

/** Whether `value` is a JSON object (not null, not a list). */
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** How a place's coordinates are written. */
const GEO_SHAPE = '{ "lat": 24.6942, "lon": 46.6853 } (two numbers)';
const BACKGROUND_SHAPES =
  'a colour ("#fdf6ec"), { "gradient": ["#fde2f3", "#e0c3fc"] } (two colours, top to foot) or { "image": "images/bg.jpg" }';

/** Why a theme's background is not one of its three shapes: a colour's own problem, else the shapes it may take. */
function backgroundProblem(input: unknown): string {
  if (typeof input === 'string') {
    const judged = colourOf(input);
    if (!judged.ok) return judged.problem;
  }
  if (Array.isArray(input)) return `must be ${BACKGROUND_SHAPES}: a gradient's two colours go under "gradient"`;
  return `must be ${BACKGROUND_SHAPES}`;
}

/** A colour in any CSS syntax, opaque, kept as `#rrggbb`. */
const colour = z.string().transform((value, ctx) => {
  const judged = colourOf(value);
  if (!judged.ok) {
    ctx.addIssue({ code: 'custom', message: judged.problem });
    return z.NEVER;
  }
  return judged.hex;
});

/**
 * An owner's theme (issue 49, theme.ts): an accent, a background (a colour or a gradient of two) and the buttons'
 * fill and shape. A background no text colour reads on is refused; an accent that does not read on it is drawn in
 * another colour, which the import says (themeNotices).
 */
const themeOf = z
  .object({
    accent: colour.optional(),
    background: z
      .union(
        [
          colour.transform((color) => ({ color })),
          z.object({ gradient: z.tuple([colour, colour]) }).strict(),
          // An image, taken in as an avatar is (its shape kept) and judged by its tones once taken (image-intake.ts).
          z.object({ image: imageRef }).strict(),
        ],
        // What would be taken, not zod's `Invalid input` (issue 62: a gradient written as a bare list said only that).
        { error: (issue) => backgroundProblem(issue.input) },
      )
      .optional(),
    buttons: z
      .object({ fill: z.enum(BUTTON_FILLS).optional(), shape: z.enum(BUTTON_SHAPES).optional() })
      .strict()
      .optional(),
    font: z.enum(FONT_KEYS).optional(),
  })
  .strict()
  .superRefine((theme, ctx) => {
    if (Object.keys(theme).length === 0)
      ctx.addIssue({ code: 'custom', message: 'says nothing: give an accent, a background, buttons or a font' });
    const background = theme.background;
    const ground =
      background &&
      ('color' in background ? [background.color] : 'gradient' in background ? background.gradient : null);
    const problem = ground && groundProblem(ground);
    if (problem) ctx.addIssue({ code: 'custom', path: ['background'], message: problem });
  })
  .transform((theme): ImportedTheme => ({
    accent: theme.accent ?? null,
    background: theme.background ?? null,
    buttons: {
      fill: theme.buttons?.fill ?? DEFAULT_BUTTONS.fill,
      shape: theme.buttons?.shape ?? DEFAULT_BUTTONS.shape,
    },
    font: theme.font ?? null,
  }));

/** Links to the owner's social networks (a profile's, and a card's: issue 49), each network named by its id. */
const socials = z
  .array(
    z
      .object({
        network: z
          .string()
          .regex(NETWORK_ID_PATTERN, 'must be a lowercase network id of letters and digits, such as x or instagram'),
        url: webUrl,
      })
      .strict(),
  )
  .max(OWNER_LISTS.socials)
  .default([]);

/**
 * An owner's choice for AI use of their page (issue 63, ai-preferences.ts): AIPREF's labels, each allowed or not; a
 * label left out is the site's choice.
 */
const AI_USE_SHAPE = '{ "train-ai": true or false, "search": true or false } (either label may be left out)';
const aiUse = z
  .object(
    {
      'train-ai': z.boolean({ error: 'must be true or false' }).optional(),
      search: z.boolean({ error: 'must be true or false' }).optional(),
    },
    // The shape, not zod's `Unrecognized key` or `expected object` (issue 62's rule for refusals).
    {
      error: (issue) =>
        issue.code === 'invalid_type' || issue.code === 'unrecognized_keys' ? `must be ${AI_USE_SHAPE}` : undefined,
    },
  )
  .strict()
  .transform((choice) => Object.fromEntries(Object.entries(choice).filter(([, allowed]) => allowed !== undefined)));

const profile = z
  .object({
    slug,
    name: line(OWNER_TEXT.profileName).min(1),
    bio: text(OWNER_TEXT.bio).default(''),
    lang: ids.lang,
    kind: z.enum(['person', 'organization']).default('person'),
    avatarUrl: imageRef.optional(),
    plan: z.enum(['free', 'paid']).default('free'),
    published: z.boolean().default(true),
    links: z.array(link).max(OWNER_LISTS.links).default([]),
    socials,
    translations: translationsOf(profileTranslation, 'profile').optional(),
    place: placeOf(true).optional(),
    theme: themeOf.optional(),
    aiUse: aiUse.optional(),
  })
  .strict()
  // Run even when a field of the record is refused (`when`), so that an import says every problem of a file in one run
  // (issue 62: a section's key was refused only in the run after its slug was fixed). The record may then hold what
  // the file gave where a field was refused: read with care.
  .superRefine(
    (record, ctx) => {
      if (!isObject(record)) return;
      if (typeof record.lang === 'string') ownLanguageRefused(record, ctx);
      const links = (Array.isArray(record.links) ? record.links : []).filter(isObject);
      const translations = Object.entries(isObject(record.translations) ? record.translations : {}).filter(
        (entry): entry is [string, Record<string, unknown>] => isObject(entry[1]),
      );
      // A link's title is translated under its URL, normalised as the link's is: one the profile does not link is refused.
      const urls = new Set(links.map((l) => l.url));
      for (const [lang, translation] of translations)
        for (const key of Object.keys(isObject(translation.links) ? translation.links : {})) {
          const normalised = normalizeUrl(key, LINK_SCHEMES);
          if (!normalised.ok || !urls.has(normalised.href))
            ctx.addIssue({
              code: 'custom',
              path: ['translations', lang, 'links', key],
              message: "names no link of this profile: a link's title is translated under the link's url",
            });
        }
      // A section's title is translated under its title in the profile's own language: one it does not have is refused.
      const sections = new Set(links.flatMap((l) => (typeof l.section === 'string' ? [l.section] : [])));
      for (const [lang, translation] of translations)
        for (const key of Object.keys(isObject(translation.sections) ? translation.sections : {}))
          if (!sections.has(key))
            ctx.addIssue({
              code: 'custom',
              path: ['translations', lang, 'sections', key],
              message: `names no section of this profile: a section's title is translated under its title (${
                sections.size > 0
                  ? `one of ${[...sections].map((title) => JSON.stringify(title)).join(', ')}`
                  : 'it has none'
              })`,
            });
    },
    { when: () => true },
  )
  .transform(({ translations, ...record }) => ({
    ...record,
    translations: translations && normalisedLinkKeys(translations),
  }));

/** A profile's translations with each link title under its link's normalised URL (what the page matches it by). */
function normalisedLinkKeys<T extends { links?: Record<string, string> | undefined }>(
  translations: Partial<Record<Lang, T>>,
): Partial<Record<Lang, T>> {
  const out: Partial<Record<Lang, T>> = {};
  for (const [lang, translation] of Object.entries(translations) as [Lang, T][]) {
    const links = translation.links;
    if (!links) {
      out[lang] = translation;
      continue;
    }
    const normalised: Record<string, string> = {};
    for (const [url, title] of Object.entries(links)) {
      const result = normalizeUrl(url, LINK_SCHEMES);
      if (result.ok) normalised[result.href] = title;
    }
    out[lang] = { ...translation, links: normalised };
  }
  return out;
}

const phone = z
  .string()
  .trim()
  .regex(
    new RegExp(`^\\+?\\d[0-9 ()-]{2,${OWNER_TEXT.phone - 1}}$`),
    'must be a phone number of digits, spaces, hyphens and brackets, optionally starting with +',
  );
/** The kinds of line an import may name: the stored ones, and `mobile` for `cell` (what people call it). */
const PHONE_KINDS = ['mobile', ...PHONE_TYPES.filter((type) => type !== 'phone')] as const;
/**
 * A phone: a number alone (its kind not said: labelled with none, never guessed from the number), or { number, type }
 * with type mobile (or cell), work, home or landline. A mobile needs its country code: it is what WhatsApp's link and
 * a caller abroad dial (issue 62: a local mobile number silently got no WhatsApp).
 */
const cardPhone = z
  .union([phone, z.object({ number: phone, type: z.enum(PHONE_KINDS) }).strict()])
  .superRefine((value, ctx) => {
    if (
      typeof value === 'object' &&
      (value.type === 'mobile' || value.type === 'cell') &&
      !value.number.startsWith('+')
    )
      ctx.addIssue({
        code: 'custom',
        path: ['number'],
        message:
          'a mobile number needs its country code, written with + (e.g. "+966 50 111 2222" for "050 111 2222"): WhatsApp and callers abroad dial it',
      });
  })
  .transform((value) =>
    typeof value === 'string'
      ? { number: value, type: 'phone' as const }
      : { number: value.number, type: value.type === 'mobile' ? ('cell' as const) : value.type },
  );
const email = z.email().max(OWNER_TEXT.email);
/** An e-mail: an address (a work address), or { address, type } with type work or home. */
const cardEmail = z.union([
  email.transform((address) => ({ address, type: 'work' as const })),
  z.object({ address: email, type: z.enum(EMAIL_TYPES) }).strict(),
]);

const cardTranslation = {
  name: line(CARD_TRANSLATED.name.max).min(1).optional(),
  title: line(CARD_TRANSLATED.jobTitle.max).optional(),
  organization: line(CARD_TRANSLATED.organization.max).optional(),
  address: text(CARD_TRANSLATED.address.max).optional(),
};

const pageCard = z
  .object({
    cardId: ids.cardId,
    mode: z.literal('page'),
    lang: ids.lang.default(DEFAULT_LANG),
    name: line(OWNER_TEXT.cardName).min(1),
    title: line(OWNER_TEXT.jobTitle).optional(),
    organization: line(OWNER_TEXT.organization).optional(),
    phones: z.array(cardPhone).max(OWNER_LISTS.phones).default([]),
    emails: z.array(cardEmail).max(OWNER_LISTS.emails).default([]),
    website: webUrl.optional(),
    address: text(OWNER_TEXT.address).optional(),
    photoUrl: imageRef.optional(),
    /** The organisation's logo (issue 49), taken in as the photo is. */
    logoUrl: imageRef.optional(),
    profile: slug.optional(),
    active: z.boolean().default(true),
    translations: translationsOf(cardTranslation, 'card').optional(),
    place: placeOf(false).optional(),
    theme: themeOf.optional(),
    aiUse: aiUse.optional(),
    socials,
  })
  .strict()
  .superRefine(ownLanguageRefused)
  // Stored by the names pages see them by (a card's `title` is its jobTitle).
  .transform(({ translations, ...record }) => ({
    ...record,
    translations:
      translations &&
      Object.fromEntries(
        Object.entries(translations).map(([lang, { title, ...rest }]) => [
          lang,
          title === undefined ? rest : { ...rest, jobTitle: title },
        ]),
      ),
  }));

const redirectCard = z
  .object({
    cardId: ids.cardId,
    mode: z.literal('redirect'),
    redirectUrl: webUrl,
    lang: ids.lang.default(DEFAULT_LANG),
    active: z.boolean().default(true),
  })
  .strict();

const alias = z
  .object({
    alias: aliasSchema,
    page: slug,
  })
  .strict();

/**
 * An owner's own domain (issue 63, owner-domains.ts): the host, the profile it serves (null: the host serves none any
 * more), and whether the profile's cards are served there too. The operator's process gives it once the owner has
 * proved the domain is theirs (docs/data.md): the import takes what it is given.
 */
const domain = z
  .object({
    host: z
      .string()
      .max(HOST_LONGEST + 1)
      .transform((written, ctx) => {
        const host = hostOf(written);
        if (host === undefined) {
          ctx.addIssue({
            code: 'custom',
            message: 'must be a domain name such as links.example.sa (no scheme, port or path)',
          });
          return z.NEVER;
        }
        return host;
      }),
    page: slug.nullable(),
    cards: z.boolean({ error: 'must be true or false' }).default(false),
  })
  .strict();

const importFile = z
  .object({
    profiles: z.array(profile).default([]),
    cards: z.array(z.discriminatedUnion('mode', [pageCard, redirectCard])).default([]),
    aliases: z.array(alias).default([]),
    domains: z.array(domain).default([]),
  })
  .strict();

export type ImportData = z.infer<typeof importFile>;

/** What an import is judged against beyond the file itself. */
export interface ImportRules {
  /** The site the cards will be served on (BASE_URL): a redirect card may not lead back to a card of it. */
  baseUrl?: string | undefined;
}

/** An import's data, or every problem with it. */
export type Validated = Result<{ data: ImportData; notices: string[] }, { errors: string[] }>;

/** The ids an import's records give, read from a file that did not parse whole (strings only; anything else left out). */
function looseView(input: unknown): {
  profiles: { slug?: string | undefined }[];
  cards: {
    cardId?: string | undefined;
    mode?: string | undefined;
    profile?: string | undefined;
    redirectUrl?: string | undefined;
  }[];
  aliases: { alias?: string | undefined; page?: string | undefined }[];
  domains: { host?: string | undefined; page?: string | undefined }[];
} {
  const records = (key: string) =>
    (isObject(input) && Array.isArray(input[key]) ? (input[key] as unknown[]) : []).map((record) =>
      Object.fromEntries(
        Object.entries(isObject(record) ? record : {}).filter(([, value]) => typeof value === 'string'),
      ),
    );
  return {
    profiles: records('profiles'),
    cards: records('cards'),
    aliases: records('aliases'),
    domains: records('domains').map((d) => {
      const host = typeof d.host === 'string' ? (hostOf(d.host) ?? d.host) : undefined;
      return { host, page: typeof d.page === 'string' ? d.page : undefined };
    }),
  };
}

/** Validates an import against the format, itself and what the database already holds; returns every problem. */
export function validateImport(
  input: unknown,
  existingSlugs: (slug: string) => boolean,
  rules: ImportRules = {},
): Validated {
  const parsed = importFile.safeParse(input);
  const errors: string[] = parsed.success
    ? []
    : parsed.error.issues.map(
        (issue) => `${describePath(input, issue.path)}${describeValue(input, issue.path)}: ${issue.message}`,
      );
  // Across records: on what parsed, or, when the file did not, on the ids its records give (issue 62: every problem
  // of a file in one run, not a duplicate slug found only once the other errors were fixed).
  const view = parsed.success ? parsed.data : looseView(input);
  const duplicates = <T>(items: T[], key: (t: T) => string | undefined, what: string, name: string) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const k = key(item);
      if (k === undefined) return;
      if (seen.has(k)) errors.push(`${what}[${i}] (${name} "${k}"): appears twice in this file`);
      seen.add(k);
    });
  };
  duplicates(view.profiles, (p) => p.slug, 'profiles', 'slug');
  duplicates(view.cards, (c) => c.cardId, 'cards', 'cardId');
  duplicates(view.aliases, (a) => a.alias, 'aliases', 'alias');
  const domains: { host?: string | undefined; page?: string | null | undefined }[] = view.domains;
  duplicates(domains, (d) => d.host, 'domains', 'host');
  duplicates(domains, (d) => d.page ?? undefined, 'domains', 'page');

  const slugs = new Set(view.profiles.map((p) => p.slug));
  const known = (s: string) => slugs.has(s) || existingSlugs(s);
  view.cards.forEach((c, i) => {
    if (c.mode === 'page' && typeof c.profile === 'string' && !known(c.profile))
      errors.push(`cards[${i}] (cardId "${c.cardId}").profile: no profile "${c.profile}" in this file or the database`);
  });
  view.aliases.forEach((a, i) => {
    if (typeof a.page === 'string' && !known(a.page))
      errors.push(`aliases[${i}] (alias "${a.alias}").page: no profile "${a.page}" in this file or the database`);
  });
  domains.forEach((d, i) => {
    if (typeof d.page === 'string' && !known(d.page))
      errors.push(`domains[${i}] (host "${d.host}").page: no profile "${d.page}" in this file or the database`);
    const host = d.host;
    if (typeof host !== 'string' || hostOf(host) !== host) return;
    const problem = hostProblem(host, rules.baseUrl ? new URL(rules.baseUrl).hostname : undefined);
    if (problem) errors.push(`domains[${i}].host ${JSON.stringify(host)}: ${problem}`);
  });
  if (rules.baseUrl) {
    const baseUrl = rules.baseUrl;
    view.cards.forEach((c, i) => {
      if (c.mode !== 'redirect' || typeof c.redirectUrl !== 'string') return;
      const problem = cardRedirectProblem(c.redirectUrl, baseUrl);
      if (problem)
        errors.push(`cards[${i}] (cardId "${c.cardId}").redirectUrl ${JSON.stringify(c.redirectUrl)}: ${problem}`);
    });
  }
  if (!parsed.success) return { ok: false, errors };
  const data = parsed.data;
  return errors.length > 0 ? { ok: false, errors } : { ok: true, data, notices: themeNotices(data) };
}

/** Each colour of an owner's theme a page will draw in another (it would not read): the record, the field, why, what. */
function themeNotices(data: ImportData): string[] {
  const notices: string[] = [];
  // A theme over an image is judged once the image's tones are known (image-intake.ts).
  const judge = (theme: ImportedTheme | undefined, at: string) => {
    if (theme && !(theme.background && 'image' in theme.background))
      for (const s of paletteOf(theme as Theme).substitutes)
        notices.push(`${at}.theme.${s.field} ${substituteText(s)}`);
  };
  data.profiles.forEach((p, i) => judge(p.theme, `profiles[${i}] (slug "${p.slug}")`));
  data.cards.forEach((c, i) => judge('theme' in c ? c.theme : undefined, `cards[${i}] (cardId "${c.cardId}")`));
  return notices;
}

/** How deep an import file may nest: a record's lists are three levels down; a thousand is a file that is not one. */
const MAX_IMPORT_NESTING = 1000;

/**
 * The import file's bytes as JSON, or every reason they are not one: bytes that are not UTF-8 are refused, naming the
 * line and byte (RFC 8259 §8.1: JSON is UTF-8; decoding them as U+FFFD would store replacement characters in owners'
 * names); a byte-order mark at the start is ignored (RFC 8259 allows it, and Windows editors write it); a file nested
 * deeper than MAX_IMPORT_NESTING is refused before it is walked; a key given twice in one object is refused, naming the
 * record, the key and its line, since JSON.parse would silently keep the last value. jsonc-parser walks the text for
 * that: it gives each property's path and line, which JSON.parse hides.
 */
export function parseImportBytes(bytes: Uint8Array): Result<{ json: unknown }, { errors: string[] }> {
  const invalid = firstInvalidUtf8(bytes);
  if (invalid !== -1) {
    const line = bytes.subarray(0, invalid).reduce((lines, byte) => lines + (byte === 0x0a ? 1 : 0), 1);
    return {
      ok: false,
      errors: [
        `the file is not UTF-8: byte ${invalid + 1} (line ${line}) is 0x${bytes[invalid]!.toString(16).padStart(2, '0')}, which starts no UTF-8 character there; save the file as UTF-8`,
      ],
    };
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (nestsDeeperThan(body, MAX_IMPORT_NESTING))
    return {
      ok: false,
      errors: [
        `the file is nested deeper than ${MAX_IMPORT_NESTING} levels: an import file is records in lists, a few levels deep`,
      ],
    };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (err) {
    return { ok: false, errors: [`the file is not valid JSON: ${(err as Error).message}`] };
  }
  const errors: string[] = [];
  const keys: Set<string>[] = [];
  visit(body, {
    onObjectBegin: () => void keys.push(new Set()),
    onObjectEnd: () => void keys.pop(),
    onObjectProperty: (property, _offset, _length, line, _character, pathSupplier) => {
      const seen = keys.at(-1);
      if (!seen) return;
      if (seen.has(property))
        errors.push(
          `${describePath(json, [...pathSupplier(), property])}: the key "${property}" is given twice (line ${line + 1}); give each key once`,
        );
      seen.add(property);
    },
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, json };
}

/**
 * Where the first byte that is not well-formed UTF-8 stands (RFC 3629: no overlong forms, no surrogates, nothing past
 * U+10FFFF), or -1 when every byte is.
 */
function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let length: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [length, min] = [2, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [length, min] = [3, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [length, min] = [4, 0x10000];
    else return i;
    let code = b & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      if (next === undefined || (next & 0xc0) !== 0x80) return i;
      code = (code << 6) | (next & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return i;
    i += length;
  }
  return -1;
}

/**
 * ` "javascript:alert(1)"`: the value that was refused, so the owner sees what was wrong, quoted as JSON (controls
 * and invisible characters escaped, long values cut). Nothing for records, lists and absent fields.
 */
function describeValue(input: unknown, path: PropertyKey[]): string {
  let node: unknown = input;
  for (const key of path)
    node = node && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key as string] : undefined;
  if (typeof node === 'number' || typeof node === 'boolean') return ` ${String(node)}`;
  if (typeof node !== 'string') return '';
  const shown = Array.from(node).length > 80 ? `${Array.from(node).slice(0, 80).join('')}…` : node;
  return ` ${JSON.stringify(shown).replace(/[\u0080-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu, (ch) => `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`)}`;
}

/** `profiles[0] (slug "layla").links[2].url` — the record named by its identifier, so a person can find it. */
function describePath(input: unknown, path: PropertyKey[]): string {
  if (path.length === 0) return '(file)';
  let out = '';
  let node: unknown = input;
  path.forEach((key, depth) => {
    // A key that is not a plain name (a link's URL under a translation's links) is quoted.
    out +=
      typeof key === 'number'
        ? `[${key}]`
        : /^[a-z_$][\w$]*$/i.test(String(key))
          ? `${depth === 0 ? '' : '.'}${String(key)}`
          : `[${JSON.stringify(String(key))}]`;
    node = node && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key as string] : undefined;
    if (depth === 1 && node && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      const id = (['slug', 'cardId', 'alias', 'host'] as const).find((k) => typeof record[k] === 'string');
      if (id) out += ` (${id} "${String(record[id])}")`;
    }
  });
  return out;
}
