// The rules for strings owners supply (names, bios, URLs): the import refuses what breaks them, and pages, twins,
// vCards, redirects and MCP results apply them again to whatever another writer put in the database.
import type { Result } from './result.ts';
import { firstSegmentOf, fixedFirstSegment, ROUTES } from './surface.ts';

/**
 * C0 and C1 controls (tab and line feed aside, which multi-line text may hold), the line and paragraph separators
 * that Unicode-aware readers treat as line breaks (U+0085, U+2028, U+2029), and the bidi embeddings, overrides and
 * isolates (U+202A–U+202E, U+2066–U+2069) that can make text read as something else (pages isolate owner text with
 * <bdi> already). Marks such as U+200E/U+200F stay allowed: Arabic text uses them legitimately.
 */
// Control characters are what this pattern is for.
// eslint-disable-next-line no-control-regex
const FORBIDDEN_IN_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
const LINE_BREAK = /[\n\r]/;

/**
 * Invisible formatting that hides text from people while machines read it (issue 46): Unicode tag characters
 * (U+E0000–U+E007F, "ASCII smuggling": each is an ASCII letter to a language model and nothing on screen), the word
 * joiner and invisible operators (U+2060–U+2064), the deprecated format characters (U+206A–U+206F), the zero-width
 * space and no-break space (U+200B, U+FEFF), interlinear annotations (U+FFF9–U+FFFB), the Mongolian vowel separator
 * (U+180E) and the Hangul fillers that draw as blanks (U+115F, U+1160, U+3164, U+FFA0). The joiners Arabic, Persian
 * and emoji need (U+200C, U+200D) and the direction marks (U+200E, U+200F, U+061C) stay allowed; so do the three flags
 * of the United Kingdom's nations, the only emoji made of tag characters.
 */
const SUBDIVISION_FLAG =
  /\u{1F3F4}\u{E0067}\u{E0062}(?:\u{E0065}\u{E006E}\u{E0067}|\u{E0073}\u{E0063}\u{E0074}|\u{E0077}\u{E006C}\u{E0073})\u{E007F}/gu;
const INVISIBLE =
  /[\u{E0000}-\u{E007F}\u2060-\u2064\u206a-\u206f\u200b\ufeff\ufff9-\ufffb\u180e\u115f\u1160\u3164\uffa0]/u;
/**
 * Variation selectors choose a glyph for the character before them (U+FE0F: an emoji's colour form); one after a
 * visible character is writing, a run of them is a message in disguise (each selector can stand for a byte).
 */
const VARIATION_SELECTOR = '\\ufe00-\\ufe0f\\u{E0100}-\\u{E01EF}';
const STRAY_SELECTORS = new RegExp(`(?:^|[${VARIATION_SELECTOR}])[${VARIATION_SELECTOR}]`, 'u');

/** Why a piece of owner text is refused, or undefined when it is fine. `line`: one line (names, titles). */
export function textProblem(value: string, kind: 'line' | 'text'): string | undefined {
  const bad = FORBIDDEN_IN_TEXT.exec(value);
  if (bad)
    return `contains the invisible character ${codePoint(bad[0])}, which is not allowed (controls, line separators and bidi overrides can disguise text)`;
  const hidden = INVISIBLE.exec(value.replace(SUBDIVISION_FLAG, ''));
  if (hidden)
    return `contains the invisible character ${codePoint(hidden[0])} (${invisibleName(hidden[0])}), which is not allowed: it hides text from people that machines still read`;
  const selectors = STRAY_SELECTORS.exec(value);
  if (selectors)
    return `contains the variation selector ${codePoint(selectors[0].at(-1) ?? '')} without a character of its own to modify (a run of selectors can hide a message)`;
  if (kind === 'line' && LINE_BREAK.test(value)) return 'must be a single line';
  return undefined;
}

function invisibleName(ch: string): string {
  const at = ch.codePointAt(0) ?? 0;
  if (at >= 0xe0000) return 'a Unicode tag character';
  if (at === 0x200b || at === 0xfeff) return 'a zero-width space';
  if (at >= 0x2060 && at <= 0x2064) return 'a word joiner or invisible operator';
  return 'an invisible formatting character';
}

const FORBIDDEN_ALL = new RegExp(FORBIDDEN_IN_TEXT.source, 'gu');
/** Any character servedText may have to remove or change, in one class: a string without one is served as it is. */
const SUSPECT = `${FORBIDDEN_IN_TEXT.source.slice(1, -1)}${INVISIBLE.source.slice(1, -1)}${VARIATION_SELECTOR}`;
// The selectors are listed as characters to find, not as marks combined with the one before.
// eslint-disable-next-line no-misleading-character-class
const SUSPECT_IN_TEXT = new RegExp(`[${SUSPECT}]`, 'u');
// eslint-disable-next-line no-misleading-character-class
const SUSPECT_IN_LINE = new RegExp(`[${SUSPECT}\\n]`, 'u');
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'gu');
const STRAY_SELECTORS_ALL = new RegExp(`(?<=^|[${VARIATION_SELECTOR}])[${VARIATION_SELECTOR}]+`, 'gu');
const FLAG_HOLDER = '\u{F0000}';

/**
 * Owner text as it is served, whoever wrote it: the import refuses what textProblem names, but another writer (plain
 * SQL, the owner app) may have stored anything. Controls, separators, bidi controls, invisible formatting and stray
 * selectors are removed; a line's breaks become spaces; and the text is cut at `max` characters (whole graphemes),
 * the import's own bound, so that a 200,000-character name costs a page no more than the longest valid one.
 */
export function servedText(value: string, kind: 'line' | 'text', max: number): string {
  // Most strings hold none of it: one scan says so (a profile's hundred link titles are read on every cold read).
  if (!(kind === 'line' ? SUSPECT_IN_LINE : SUSPECT_IN_TEXT).test(value) && value.length <= max) return value;
  let clean = value;
  // The separators readers take for line breaks (U+0085, U+2028, U+2029) are line breaks: a space in a line, not
  // nothing ("Org\u2028Two" read "OrgTwo").
  if (kind === 'line') clean = clean.replace(/\r\n?|[\n\u0085\u2028\u2029]/g, ' ');
  else clean = clean.replace(/\r\n?|[\u0085\u2028\u2029]/g, '\n');
  if (FORBIDDEN_IN_TEXT.test(clean)) clean = clean.replace(FORBIDDEN_ALL, '');
  if (INVISIBLE.test(clean)) {
    const flags: string[] = [];
    clean = clean
      .replace(SUBDIVISION_FLAG, (flag) => (flags.push(flag), FLAG_HOLDER))
      .replace(INVISIBLE_ALL, '')
      .replace(/\u{F0000}/gu, () => flags.shift() ?? '');
  }
  if (STRAY_SELECTORS.test(clean)) clean = clean.replace(STRAY_SELECTORS_ALL, '');
  return clean.length <= max ? clean : cutAt(clean, max);
}

/** The first `max` UTF-16 units' worth of whole graphemes (never half an emoji or a letter without its mark). */
function cutAt(text: string, max: number): string {
  let length = 0;
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(
    text.slice(0, max + 64),
  )) {
    if (length + segment.length > max) break;
    length += segment.length;
  }
  return text.slice(0, length).trimEnd();
}

const CANONICAL_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Whether `2026-11-01T…` names a real day and time (the month, its days, the hours, minutes and seconds in range). */
function realDay(value: string): boolean {
  const at = (from: number) => (value.charCodeAt(from) - 48) * 10 + value.charCodeAt(from + 1) - 48;
  const year = at(0) * 100 + at(2);
  const [month, day] = [at(5), at(8)];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return day <= days && at(11) < 24 && at(14) < 60 && at(17) < 60;
}

/**
 * A date or date-time as stored (ISO 8601, as the import writes it), in the one form every output takes
 * (`2026-11-01T00:00:00.000Z`); undefined when it is not a real instant (`2026-13-45`, `2026-02-30`, a line break
 * smuggled into a vCard's REV). Strict where Date.parse rolls over: month and day are checked.
 */
export function storedInstant(value: string): string | undefined {
  // Rows written together share their stamp (an import stamps every row with its one time): the last one judged is
  // judged again for nothing, fifty thousand times a sitemap part.
  if (value === lastInstant.value) return lastInstant.judged;
  const judged = judgedInstant(value);
  lastInstant = { value, judged };
  return judged;
}

let lastInstant: { value: string | undefined; judged: string | undefined } = { value: undefined, judged: undefined };

function judgedInstant(value: string): string | undefined {
  // The form every writer here stores (toISOString): checked by its digits, and returned as it is.
  if (CANONICAL_INSTANT.test(value)) return realDay(value) ? value : undefined;
  const match =
    /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0));
  const days = new Date(Date.UTC(year!, month, 0)).getUTCDate();
  if (month! < 1 || month! > 12 || day! < 1 || day! > days || hour! > 23 || minute! > 59 || second! > 59)
    return undefined;
  const at = Date.parse(value.replace(' ', 'T'));
  return Number.isNaN(at) ? undefined : new Date(at).toISOString();
}

export type UrlScheme = 'https:' | 'http:' | 'mailto:' | 'tel:';
export const WEB_SCHEMES: readonly UrlScheme[] = ['https:', 'http:'];
export const LINK_SCHEMES: readonly UrlScheme[] = ['https:', 'http:', 'mailto:', 'tel:'];

/**
 * The normalised form of an owner's URL (`new URL(v).href`: punycode host, percent-encoded path, all ASCII), or why
 * it is refused. The WHATWG parser silently drops tabs and line breaks and trims controls, so the raw string is
 * judged first: what is stored, and what every page, header, vCard and Markdown document emits, is what the owner
 * saw, with no hidden second line.
 */
export function normalizeUrl(value: string, schemes: readonly UrlScheme[]): Result<{ href: string }> {
  const names = schemes.map((s) => s.slice(0, -1));
  const allowed = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : (names[0] ?? '');
  // eslint-disable-next-line no-control-regex -- control characters are what it looks for
  const bad = /[\s\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u.exec(value);
  if (bad)
    return {
      ok: false,
      problem: `contains ${bad[0] === ' ' ? 'a space' : `the character ${codePoint(bad[0])}`}; a URL has no spaces or control characters (encode them as %20 and the like)`,
    };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return {
      ok: false,
      problem: `is not an absolute URL (it must start with ${names.map((n) => `${n}:`).join(' or ')})`,
    };
  }
  if (!(schemes as readonly string[]).includes(url.protocol))
    return { ok: false, problem: `the scheme ${url.protocol} is not allowed (use ${allowed})` };
  const web = url.protocol === 'https:' || url.protocol === 'http:';
  if (web && url.hostname === '') return { ok: false, problem: 'has no host name' };
  // https://good.example@evil.example/ reads as good.example and leads to evil.example.
  if (url.username || url.password)
    return {
      ok: false,
      problem: 'must not contain a user name or password (the part before @ would disguise the real host)',
    };
  return { ok: true, href: url.href };
}

/** The normalised URL if it is one a visitor can safely follow, else undefined. */
export function safeHref(
  value: string | null | undefined,
  schemes: readonly UrlScheme[] = LINK_SCHEMES,
): string | undefined {
  if (!value) return undefined;
  const result = normalizeUrl(value, schemes);
  return result.ok ? result.href : undefined;
}

function codePoint(ch: string): string {
  return `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Why a redirect card may not lead to `href`, or undefined: a page of a card on this site (`baseUrl`). To itself it
 * would redirect forever, and to another redirect card the two could redirect to each other. Judged at import and
 * again when the card is served (another writer may have written it).
 */
export function cardRedirectProblem(href: string, baseUrl: string): string | undefined {
  let target: URL;
  try {
    target = new URL(href);
  } catch {
    return undefined;
  }
  if (target.origin !== new URL(baseUrl).origin) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(target.pathname);
  } catch {
    path = target.pathname;
  }
  return firstSegmentOf(path) === fixedFirstSegment(ROUTES.getDigitalCard.path)
    ? 'leads to a card of this site: a redirect card must lead to a page of its own, not back to a card here'
    : undefined;
}
