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

/** Why a piece of owner text is refused, or undefined when it is fine. `line`: one line (names, titles). */
export function textProblem(value: string, kind: 'line' | 'text'): string | undefined {
  const bad = FORBIDDEN_IN_TEXT.exec(value);
  if (bad)
    return `contains the invisible character ${codePoint(bad[0])}, which is not allowed (controls, line separators and bidi overrides can disguise text)`;
  if (kind === 'line' && LINE_BREAK.test(value)) return 'must be a single line';
  return undefined;
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
