// The import file format and its validation: every record and field checked before anything is written.
import { visit } from 'jsonc-parser';
import { z } from 'zod';
import { EMAIL_TYPES, OWNER_LISTS, PHONE_TYPES } from '../../src/lib/live-content.ts';
import { LINK_SCHEMES, normalizeUrl, textProblem, WEB_SCHEMES, type UrlScheme } from '../../src/lib/owner-input.ts';
import { aliasSchema, DEFAULT_LANG, ids } from '../../src/lib/surface.ts';
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
const linkUrl = url(LINK_SCHEMES);
const slug = ids.slug;
const dateTime = z.iso.datetime({ offset: true });

const link = z
  .object({
    title: line(100).min(1),
    url: linkUrl,
    enabled: z.boolean().default(true),
    pinned: z.boolean().default(false),
    startsAt: dateTime.optional(),
    endsAt: dateTime.optional(),
  })
  .strict()
  .refine((l) => !l.startsAt || !l.endsAt || Date.parse(l.endsAt) > Date.parse(l.startsAt), { message: 'must be after startsAt', path: ['endsAt'] });

const profile = z
  .object({
    slug,
    name: line(80).min(1),
    bio: text(500).default(''),
    lang: ids.lang,
    kind: z.enum(['person', 'organization']).default('person'),
    avatarUrl: webUrl.optional(),
    plan: z.enum(['free', 'paid']).default('free'),
    published: z.boolean().default(true),
    links: z.array(link).max(OWNER_LISTS.links).default([]),
    socials: z
      .array(z.object({ network: z.string().regex(NETWORK_ID_PATTERN, 'must be a lowercase network id of letters and digits, such as x or instagram'), url: webUrl }).strict())
      .max(OWNER_LISTS.socials)
      .default([]),
  })
  .strict();

const phone = z.string().trim().regex(/^\+?[0-9][0-9 ()-]{2,29}$/, 'must be a phone number of digits, spaces, hyphens and brackets, optionally starting with +');
/** A phone: a number (a mobile line), or { number, type } with type cell, work or home. */
const cardPhone = z.union([phone.transform((number) => ({ number, type: 'cell' as const })), z.object({ number: phone, type: z.enum(PHONE_TYPES) }).strict()]);
const email = z.email().max(254);
/** An e-mail: an address (a work address), or { address, type } with type work or home. */
const cardEmail = z.union([email.transform((address) => ({ address, type: 'work' as const })), z.object({ address: email, type: z.enum(EMAIL_TYPES) }).strict()]);

const pageCard = z
  .object({
    cardId: ids.cardId,
    mode: z.literal('page'),
    lang: ids.lang.default(DEFAULT_LANG),
    name: line(80).min(1),
    title: line(100).optional(),
    organization: line(100).optional(),
    phones: z.array(cardPhone).max(OWNER_LISTS.phones).default([]),
    emails: z.array(cardEmail).max(OWNER_LISTS.emails).default([]),
    website: webUrl.optional(),
    address: text(300).optional(),
    photoUrl: webUrl.optional(),
    profile: slug.optional(),
    active: z.boolean().default(true),
  })
  .strict();

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

export const importFile = z
  .object({
    profiles: z.array(profile).default([]),
    cards: z.array(z.discriminatedUnion('mode', [pageCard, redirectCard])).default([]),
    aliases: z.array(alias).default([]),
  })
  .strict();

export type ImportData = z.infer<typeof importFile>;
export type ImportProfile = z.infer<typeof profile>;
export type ImportCard = ImportData['cards'][number];

/** Validates an import against the format, itself and what the database already holds; returns every problem. */
export function validateImport(input: unknown, existingSlugs: (slug: string) => boolean): { data?: ImportData; errors: string[] } {
  const parsed = importFile.safeParse(input);
  if (!parsed.success) {
    return { errors: parsed.error.issues.map((issue) => `${describePath(input, issue.path)}${describeValue(input, issue.path)}: ${issue.message}`) };
  }
  const data = parsed.data;
  const errors: string[] = [];
  const duplicates = <T>(items: T[], key: (t: T) => string, what: string, name: string) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const k = key(item);
      if (seen.has(k)) errors.push(`${what}[${i}] (${name} "${k}"): appears twice in this file`);
      seen.add(k);
    });
  };
  duplicates(data.profiles, (p) => p.slug, 'profiles', 'slug');
  duplicates(data.cards, (c) => c.cardId, 'cards', 'cardId');
  duplicates(data.aliases, (a) => a.alias, 'aliases', 'alias');

  const slugs = new Set(data.profiles.map((p) => p.slug));
  const known = (s: string) => slugs.has(s) || existingSlugs(s);
  data.cards.forEach((c, i) => {
    if (c.mode === 'page' && c.profile && !known(c.profile)) errors.push(`cards[${i}] (cardId "${c.cardId}").profile: no profile "${c.profile}" in this file or the database`);
  });
  data.aliases.forEach((a, i) => {
    if (!known(a.page)) errors.push(`aliases[${i}] (alias "${a.alias}").page: no profile "${a.page}" in this file or the database`);
  });
  return errors.length > 0 ? { errors } : { data, errors };
}

/**
 * The import file's text as JSON, or every reason it is not one: a byte-order mark at the start is ignored (RFC 8259
 * §8.1 allows it, and Windows editors write it); a key given twice in one object is refused, naming the record, the
 * key and its line, since JSON.parse would silently keep the last value. jsonc-parser walks the text for that: it
 * gives each property's path and line, which JSON.parse hides.
 */
export function parseImportText(text: string): { json?: unknown; errors: string[] } {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (err) {
    return { errors: [`the file is not valid JSON: ${(err as Error).message}`] };
  }
  const errors: string[] = [];
  const keys: Set<string>[] = [];
  visit(body, {
    onObjectBegin: () => void keys.push(new Set()),
    onObjectEnd: () => void keys.pop(),
    onObjectProperty: (property, _offset, _length, line, _character, pathSupplier) => {
      const seen = keys.at(-1);
      if (!seen) return;
      if (seen.has(property)) errors.push(`${describePath(json, [...pathSupplier(), property])}: the key "${property}" is given twice (line ${line + 1}); give each key once`);
      seen.add(property);
    },
  });
  return errors.length > 0 ? { errors } : { json, errors };
}

/**
 * ` "javascript:alert(1)"`: the value that was refused, so the owner sees what was wrong, quoted as JSON (controls
 * and invisible characters escaped, long values cut). Nothing for records, lists and absent fields.
 */
function describeValue(input: unknown, path: PropertyKey[]): string {
  let node: unknown = input;
  for (const key of path) node = node && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key as string] : undefined;
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
    out += typeof key === 'number' ? `[${key}]` : `${depth === 0 ? '' : '.'}${String(key)}`;
    node = node && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key as string] : undefined;
    if (depth === 1 && node && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      const id = (['slug', 'cardId', 'alias'] as const).find((k) => typeof record[k] === 'string');
      if (id) out += ` (${id} "${String(record[id])}")`;
    }
  });
  return out;
}
