// The HTTP surface, declared once: languages, identifier patterns, the owner app's paths, reserved first segments,
// cache rules, which files of the build never change, and every route with who answers it, its words, its parameters
// (typed from its path template), media types, cache rule and statuses, with the one matcher of paths to routes
// (routeMatcher) and the one writer of a route's path (pathOf). The site reader's dispatch, the static site's cache
// rules, the nginx template, OpenAPI, robots.txt, the import's validation, read_page's refusals, the WebMCP script's
// constants and the API documentation's tables are all derived from here (test/unit/surface.test.ts proves they
// agree). Adding a route or an owner-app path is one edit in this file: test/build/one-route-edit.test.ts makes one of
// each in a scratch copy and finds them everywhere.
import { z } from 'zod';

import { IMAGE_FILE_PATTERN, IMAGE_FORMATS } from './image-files.ts';
import { isLang, LANGS, type Lang } from './locales.ts';

// The languages are declared in locales.ts; re-exported with the rest of the surface.
export { DEFAULT_LANG, isLang, LANGS, type Lang } from './locales.ts';

/** Profiles, aliases and articles: lowercase words of letters and digits joined by single hyphens, at most 64. */
export const SLUG_PATTERN = /^(?=[a-z0-9-]{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Card identifiers, printed on or encoded in the physical card. */
export const CARD_ID_PATTERN = /^[\w-]{3,64}$/;

export const ids = {
  slug: z
    .string()
    .regex(
      SLUG_PATTERN,
      'must be 1–64 lowercase letters and digits, in words joined by single hyphens (e.g. "layla-designs")',
    ),
  cardId: z.string().regex(CARD_ID_PATTERN, 'must be 3–64 letters, digits, hyphens or underscores'),
  lang: z.enum(LANGS),
  /**
   * A part of the sitemap index, counting from 1, written as the index writes it: `01`, `+1`, `1.0`, `1e0` and `0x1`
   * are not other names of part 1 (each would be another URL of one document, a miss at every edge).
   */
  sitemapPart: z.string().regex(/^[1-9]\d{0,5}$/, 'must be a part number as the index writes it: 1, 2, 3, …'),
  /** Pages of a list past the first (the first is the list's own URL), written as the pages link them. */
  listPage: z.string().regex(/^(?:[2-9]|[1-9]\d{1,5})$/, 'must be a page number from 2, as the pages link them'),
  topic: z.string().regex(SLUG_PATTERN, 'must be a topic key (content/blog/topics.json)'),
  imageFile: z
    .string()
    .regex(IMAGE_FILE_PATTERN, 'must be an image file as the pages name it: 32 hexadecimal digits, a width, a format'),
};

/** An alias: a slug that is not a reserved first segment (checked when parsed, once the declaration below exists). */
export const aliasSchema = ids.slug
  .refine((a) => !isReservedSegment(a), 'is reserved: it is a path of this service or of the owner app')
  .meta({ description: 'The alias.', examples: ['layla'] });

/**
 * A route's parameter: what it accepts, what it is, and a value that names something in the demo data. OpenAPI
 * shows the description and the example; the surface suite asks every route at the path its examples make.
 */
function param(schema: z.ZodType, description: string, example: string): z.ZodType {
  return schema.meta({ description, examples: [example] });
}

/**
 * First path segments of the account owners' web app. It creates accounts, sends e-mail and issues credentials:
 * robots.txt disallows them, read_page and the WebMCP tools refuse them, and no alias may take them.
 */
export const OWNER_APP_SEGMENTS = [
  'login',
  'logout',
  'signup',
  'register',
  'otp',
  'verify',
  'auth',
  'oauth',
  'callback',
  'checkout',
  'payment',
  'billing',
  'account',
  'settings',
  'dashboard',
  'admin',
  'app',
  'api',
] as const;

/** Where owners sign in (SPEC: the web app at /login). */
export const OWNER_LOGIN_PATH = `/${OWNER_APP_SEGMENTS[0]}`;

/** Articles a page of the blog's lists (the index and each topic), and in each feed (the newest; llms.txt too). */
export const BLOG_SIZES = { page: 20, feed: 20 } as const;

/**
 * Retry-After of a 503, in seconds: the site cannot be served now (its database, every origin: the sidecar's, the
 * front's and the edge's 503 page) or is busy this second (load shed, a full render queue, MCP's slots).
 */
export const RETRY_AFTER = { unavailable: 30, busy: 1 } as const;

/**
 * The header a printed address of a translated record names the record's own language in (issue 48): an edge
 * that reduced Accept-Language to nothing the site serves answers with that language's copy (deploy/edge.vcl).
 */
export const OWN_LANGUAGE_HEADER = 'x-own-language';

/** How long an edge keeps a live answer at most (CACHE.edgeLive): a day, or until its content next changes by itself. */
const EDGE_LIVE_SECONDS = 86_400;

/**
 * CDN-Cache-Control of a live answer whose content changes by itself at `freshUntil` (ms: a link's window opening or
 * closing), at `now`: an edge keeps it no longer than that (issue 49), and a day at most.
 */
export function edgeLiveUntil(freshUntil: number, now: number): string {
  if (!(freshUntil < now + EDGE_LIVE_SECONDS * 1000)) return CACHE.edgeLive;
  return `public, max-age=${Math.max(0, Math.floor((freshUntil - now) / 1000))}, stale-if-error=604800`;
}

/** Cache-Control values, by rule. */
export const CACHE = {
  immutable: 'public, max-age=31536000, immutable',
  discovery: 'public, max-age=3600',
  page: 'public, max-age=300',
  /** Live pages: a shared cache may keep them but must revalidate (ETag), so an edit shows on the next request. */
  live: 'public, no-cache',
  /** A redirect-mode card: the owner may point it elsewhere at any time. */
  cardRedirect: 'public, max-age=60',
  /** An alias: it may move to another profile, less often. */
  alias: 'public, max-age=300',
  /** /blog to the visitor's language, varying on Accept-Language. */
  languageRedirect: 'public, max-age=3600',
  /**
   * What an edge (Varnish, a CDN) may do with a live answer (RFC 9213 CDN-Cache-Control): keep it a day, since the
   * purger forgets it the moment the change log names it, and serve it for a week more while the origin fails.
   * Browsers still revalidate (`live`).
   */
  edgeLive: `public, max-age=${EDGE_LIVE_SECONDS}, stale-if-error=604800`,
  /** Error pages: not kept in place of the page that may exist a moment later. */
  error: 'no-cache',
  none: 'no-store',
} as const;
export type CacheRule = keyof typeof CACHE;

/**
 * The files of the build whose URL changes whenever their bytes do (the name holds a hash of the content): Astro's
 * assets, and Pagefind's fragments, index chunks and metadata. The one owner of that rule: the sidecar and the front
 * (nginx, from FINGERPRINTED_PATH's source) serve them `immutable` for a year, and publishing uploads them once, so
 * that every cache holds them as long as the CDN does. Pagefind's entry file and scripts keep their names: pages.
 */
export const FINGERPRINTED_PATH =
  /^\/(?:_astro\/|pagefind\/[^/]+\/(?:fragment|index)\/|pagefind\/[^/]+\/[^/]+\.pf_meta$)/;

/** Whether the build's file at `urlPath` (`/_astro/x.css`) never changes under its name (FINGERPRINTED_PATH). */
export function isFingerprinted(urlPath: string): boolean {
  return FINGERPRINTED_PATH.test(urlPath);
}

/** What a cache rule applies to besides declared routes (for the API documentation). */
export const CACHE_ALSO: Partial<Record<CacheRule, string>> = {
  immutable:
    "fingerprinted files: assets under /_astro/, the search index's fragments, index chunks and metadata under /pagefind/",
  page: "every other file of the build (the search index's entry file and scripts included)",
  error: 'error pages (404, 500, 503); a 503 also carries Retry-After',
};

const HTML = 'text/html';
const MARKDOWN = 'text/markdown';
/** The MCP server card's media type (SEP-1649's draft): its route below, its file's type, the catalogs' links. */
export const SERVER_CARD_TYPE = 'application/mcp-server-card+json';

export interface RouteDeclaration {
  method: 'GET' | 'POST';
  /** The path as OpenAPI writes it: `{name}` for a parameter. */
  path: string;
  /**
   * Who answers: `static`, a file of the build (a front or CDN serves it, the sidecar too in one-process mode);
   * `live`, the sidecar from the database; `agents`, the sidecar's MCP endpoint; `operations`, the sidecar itself.
   */
  served: 'static' | 'live' | 'agents' | 'operations';
  tag: 'pages' | 'discovery' | 'agents' | 'operations';
  summary: string;
  /** What OpenAPI and the API documentation say of it, beside the summary. */
  description: string;
  /** Its parameters, one a `{name}` of the path, each with what it accepts, what it is and an example (`param`). */
  params?: Record<string, z.ZodType>;
  /** Media types of a success; the first is the default. */
  media: readonly string[];
  /** `Accept: text/markdown` selects the Markdown twin of the same URL (rule M). */
  negotiated?: boolean;
  /** Readable by agents in browsers on any origin. */
  cors?: boolean;
  cache: CacheRule;
  /** The statuses it answers besides errors every route may give (400 for a broken URL, 500). */
  statuses: readonly number[];
  /** A route that reads a body: the most bytes it reads (the front and the edge derive their limits from it). */
  maxBodyBytes?: number;
  /**
   * Its answer may be a document of megabytes kept only compressed (sidecar/asset.ts compressedAsset): a client that
   * takes no coding gets it decompressed as it is sent, at a pace and within a share of its own (sidecar/send.ts); the
   * front asks for gzip and decompresses it itself, as such a client reads.
   */
  compressedOnly?: true;
}

/** Every route of the public surface, by operation id. */
export const ROUTES = {
  homepage: {
    method: 'GET',
    path: '/',
    served: 'static',
    tag: 'pages',
    summary: 'Homepage (English; the Arabic one is /ar), with Link headers to the discovery documents',
    description:
      'The English homepage (the Arabic one is /ar). Carries RFC 8288 `Link` headers to the discovery documents.',
    media: [HTML, MARKDOWN],
    negotiated: true,
    cache: 'page',
    statuses: [200],
  },
  getProfilePage: {
    method: 'GET',
    path: '/p/{page}',
    served: 'live',
    tag: 'pages',
    summary: "A public link-in-bio profile, in the visitor's language when the owner has it",
    description:
      "A public link-in-bio profile: the address QR codes, NFC chips and shares carry. A profile with a translation answers in the language of its own that `Accept-Language` prefers (the profile's own language when it prefers none of them, or sends none), in this one answer, with `Vary: Accept-Language`, `Content-Language` and `Content-Location` naming that version's own address, /p/{page}/{lang}, which is also its canonical URL.",
    params: { page: param(ids.slug, 'Profile slug.', 'layla') },
    media: [HTML, MARKDOWN],
    negotiated: true,
    cache: 'live',
    statuses: [200, 404, 503],
  },
  getDigitalCard: {
    method: 'GET',
    path: '/c/{cardId}',
    served: 'live',
    tag: 'pages',
    summary: "A digital business card's page, or a redirect to the owner's website",
    description:
      "The page of a digital business card, printed on or encoded in the physical card, or a redirect to the owner's website when the card is a plain redirect. A card with a translation answers in the language `Accept-Language` prefers among its own, as /p/{page} does; each version's own address is /c/{cardId}/{lang}.",
    params: { cardId: param(ids.cardId, 'Card identifier.', 'k7f2q9') },
    media: [HTML, MARKDOWN],
    negotiated: true,
    cache: 'live',
    statuses: [200, 302, 404, 503],
  },
  getProfilePageInLanguage: {
    method: 'GET',
    path: '/p/{page}/{lang}',
    served: 'live',
    tag: 'pages',
    summary: 'A profile in one of its languages, at an address of its own',
    description:
      "One language version of a profile, at an address that never changes (its canonical URL), with `hreflang` alternates to its other version and `x-default` to /p/{page}. A field the owner did not translate is shown in the profile's own language. A language the profile is not in is 404.",
    params: {
      page: param(ids.slug, 'Profile slug.', 'qahwat-alnakheel'),
      lang: param(ids.lang, 'Language of the version.', 'en'),
    },
    media: [HTML, MARKDOWN],
    negotiated: true,
    cache: 'live',
    statuses: [200, 404, 503],
  },
  getDigitalCardInLanguage: {
    method: 'GET',
    path: '/c/{cardId}/{lang}',
    served: 'live',
    tag: 'pages',
    summary: 'A page-mode card in one of its languages, at an address of its own',
    description:
      'One language version of a page-mode card, at an address that never changes (its canonical URL), with `hreflang` alternates and `x-default` to /c/{cardId}. A language the card is not in, or a redirect-mode card, is 404.',
    params: {
      cardId: param(ids.cardId, 'Card identifier.', 'nakheel1'),
      lang: param(ids.lang, 'Language of the version.', 'en'),
    },
    media: [HTML, MARKDOWN],
    negotiated: true,
    cache: 'live',
    statuses: [200, 404, 503],
  },
  getProfileQr: {
    method: 'GET',
    path: '/p/{page}/qr.svg',
    served: 'live',
    tag: 'pages',
    summary: "A QR code of the profile's URL, to print or show",
    description:
      "An SVG QR code of the profile's canonical URL (error correction M, a four-module quiet zone), for printing or showing on a screen.",
    params: { page: param(ids.slug, 'Profile slug.', 'layla') },
    media: ['image/svg+xml'],
    cache: 'live',
    statuses: [200, 404, 503],
  },
  getDigitalCardQr: {
    method: 'GET',
    path: '/c/{cardId}/qr.svg',
    served: 'live',
    tag: 'pages',
    summary: "A QR code of the card's URL, to print or show",
    description:
      "An SVG QR code of the card's canonical URL /c/{cardId} (error correction M, a four-module quiet zone). For a redirect-mode card it still encodes /c/{cardId}, which redirects.",
    params: { cardId: param(ids.cardId, 'Card identifier.', 'r8x1') },
    media: ['image/svg+xml'],
    cache: 'live',
    statuses: [200, 404, 503],
  },
  getDigitalCardContactQr: {
    method: 'GET',
    path: '/c/{cardId}/contact-qr.svg',
    served: 'live',
    tag: 'pages',
    summary: 'An offline contact code: a QR code holding the vCard itself',
    description:
      "An SVG QR code holding the card's contact as a compact vCard 3.0 (N, FN, TEL, EMAIL, ORG, TITLE, URL; UTF-8): a phone saves the contact with no network. Page-mode cards only.",
    params: { cardId: param(ids.cardId, 'Card identifier.', 'k7f2q9') },
    media: ['image/svg+xml'],
    cache: 'live',
    statuses: [200, 404, 503],
  },
  getProfileOgImage: {
    method: 'GET',
    path: '/p/{page}/og.png',
    served: 'live',
    tag: 'pages',
    summary: "A profile's picture for link previews (Open Graph)",
    description:
      "A 1200×630 PNG of the profile for link previews in chats and on social networks: the owner's name, shaped in the profile's language, and its address. The page names it in og:image (with a version of what it shows in the query) and twitter:image.",
    params: { page: param(ids.slug, 'Profile slug.', 'layla') },
    media: ['image/png'],
    cache: 'live',
    statuses: [200, 404, 503],
  },
  getProfileOgImageInLanguage: {
    method: 'GET',
    path: '/p/{page}/{lang}/og.png',
    served: 'live',
    tag: 'pages',
    summary: "A profile's link-preview picture in one of its languages",
    description:
      "The 1200×630 PNG of one language version of a profile, its name shaped in that language; /p/{page}/og.png is the profile's own language's.",
    params: {
      page: param(ids.slug, 'Profile slug.', 'qahwat-alnakheel'),
      lang: param(ids.lang, 'Language of the version.', 'en'),
    },
    media: ['image/png'],
    cache: 'live',
    statuses: [200, 404, 503],
  },
  getImage: {
    method: 'GET',
    path: '/images/{image}',
    served: 'live',
    tag: 'pages',
    summary: "An owner's avatar or card photo, served by this site",
    description:
      "An avatar or card photo as the import took it in: square, metadata stripped, in three sizes (96, 192 and 384 pixels) and two formats (WebP, and JPEG for the rest), named by a hash of the bytes it was made from. A name never shows anything else, so every cache may keep it for a year; a new image is a new name. Pages, Markdown twins and structured data link these, never the owner's own address.",
    params: {
      image: param(
        ids.imageFile,
        'Image file: identifier, width, format.',
        '67e6754fa860c936b0cb69876560f7c0-192.webp',
      ),
    },
    media: Object.values(IMAGE_FORMATS),
    cache: 'immutable',
    statuses: [200, 404, 503],
  },
  getDigitalCardOgImage: {
    method: 'GET',
    path: '/c/{cardId}/og.png',
    served: 'live',
    tag: 'pages',
    summary: "A page-mode card's picture for link previews (Open Graph)",
    description:
      "A 1200×630 PNG of a page-mode card for link previews: the holder's name, shaped in the card's language, their title and organisation, and the card's address. A redirect-mode card has none (404).",
    params: { cardId: param(ids.cardId, 'Card identifier.', 'k7f2q9') },
    media: ['image/png'],
    cache: 'live',
    statuses: [200, 404, 503],
  },
  getDigitalCardOgImageInLanguage: {
    method: 'GET',
    path: '/c/{cardId}/{lang}/og.png',
    served: 'live',
    tag: 'pages',
    summary: "A page-mode card's link-preview picture in one of its languages",
    description:
      "The 1200×630 PNG of one language version of a page-mode card; /c/{cardId}/og.png is the card's own language's.",
    params: {
      cardId: param(ids.cardId, 'Card identifier.', 'nakheel1'),
      lang: param(ids.lang, 'Language of the version.', 'en'),
    },
    media: ['image/png'],
    cache: 'live',
    statuses: [200, 404, 503],
  },
  getProfilePageMarkdown: {
    method: 'GET',
    path: '/p/{page}.md',
    served: 'live',
    tag: 'pages',
    summary: "A profile's Markdown twin at a URL of its own",
    description:
      'The Markdown twin of /p/{page}, whatever Accept says: what `Accept: text/markdown` on the page returns, at the URL its `Link: rel="alternate"` names.',
    params: { page: param(ids.slug, 'Profile slug.', 'layla') },
    media: [MARKDOWN],
    cache: 'live',
    statuses: [200, 404, 503],
  },
  getDigitalCardMarkdown: {
    method: 'GET',
    path: '/c/{cardId}.md',
    served: 'live',
    tag: 'pages',
    summary: "A page-mode card's Markdown twin at a URL of its own",
    description:
      'The Markdown twin of a page-mode card /c/{cardId}, whatever Accept says. A redirect-mode card has none (404).',
    params: { cardId: param(ids.cardId, 'Card identifier.', 'k7f2q9') },
    media: [MARKDOWN],
    cache: 'live',
    statuses: [200, 404, 503],
  },
  getProfilePageInLanguageMarkdown: {
    method: 'GET',
    path: '/p/{page}/{lang}.md',
    served: 'live',
    tag: 'pages',
    summary: "The Markdown twin of a profile's language version",
    description:
      'The Markdown twin of /p/{page}/{lang}, whatever Accept says; its front matter names that language and that URL.',
    params: {
      page: param(ids.slug, 'Profile slug.', 'qahwat-alnakheel'),
      lang: param(ids.lang, 'Language of the version.', 'en'),
    },
    media: [MARKDOWN],
    cache: 'live',
    statuses: [200, 404, 503],
  },
  getDigitalCardInLanguageMarkdown: {
    method: 'GET',
    path: '/c/{cardId}/{lang}.md',
    served: 'live',
    tag: 'pages',
    summary: "The Markdown twin of a card's language version",
    description: 'The Markdown twin of /c/{cardId}/{lang}, whatever Accept says.',
    params: {
      cardId: param(ids.cardId, 'Card identifier.', 'nakheel1'),
      lang: param(ids.lang, 'Language of the version.', 'en'),
    },
    media: [MARKDOWN],
    cache: 'live',
    statuses: [200, 404, 503],
  },
  getDigitalCardVcard: {
    method: 'GET',
    path: '/c/{cardId}.vcf',
    served: 'live',
    tag: 'pages',
    summary: 'The contact of a page-mode card as a vCard',
    description: 'The contact of a page-mode card as vCard 3.0 (UTF-8, CRLF, folded at 75 octets), for "Save contact".',
    params: { cardId: param(ids.cardId, 'Card identifier.', 'k7f2q9') },
    media: ['text/vcard'],
    cache: 'live',
    statuses: [200, 404, 503],
  },
  getBlogForPreferredLanguage: {
    method: 'GET',
    path: '/blog',
    served: 'live',
    tag: 'pages',
    summary: "The blog in the visitor's language (Accept-Language)",
    description:
      'Redirects to the blog index in the language `Accept-Language` prefers (English when neither matches).',
    media: [],
    cache: 'languageRedirect',
    statuses: [302],
  },
  getBlogArticleList: {
    method: 'GET',
    path: '/blog/articles.json',
    served: 'static',
    tag: 'pages',
    summary: 'Every published article as JSON',
    description:
      'Every published article in every language, newest first: slug, title, date (ISO 8601), absolute URL, language, topic keys and reading time in minutes. The WebMCP and MCP tools list_blog_articles read it (and filter it by language and topic).',
    media: ['application/json'],
    cache: 'page',
    statuses: [200],
  },
  listBlogArticles: {
    method: 'GET',
    path: '/{lang}/blog',
    served: 'static',
    tag: 'pages',
    summary: 'The blog index in one language',
    description: `The first page of the articles in one language (${BLOG_SIZES.page} a page, newest first), linked to the next page with rel="next". Feeds: /{lang}/blog/rss.xml and /{lang}/blog/feed.json.`,
    params: { lang: param(ids.lang, 'Language of the blog.', 'ar') },
    media: [HTML, MARKDOWN],
    negotiated: true,
    cache: 'page',
    statuses: [200, 404],
  },
  getBlogArticle: {
    method: 'GET',
    path: '/{lang}/blog/{slug}',
    served: 'static',
    tag: 'pages',
    summary: 'One blog article',
    description: 'One article. Its translation, if any, is linked with `hreflang`.',
    params: {
      lang: param(ids.lang, 'Language of the article.', 'en'),
      slug: param(ids.slug, 'Article slug.', 'qr-or-nfc-business-card'),
    },
    media: [HTML, MARKDOWN],
    negotiated: true,
    cache: 'page',
    statuses: [200, 404],
  },
  listBlogArticlesPage: {
    method: 'GET',
    path: '/{lang}/blog/page/{n}',
    served: 'static',
    tag: 'pages',
    summary: `A further page of the blog index (${BLOG_SIZES.page} articles a page, newest first)`,
    description: `Page n of the blog index (${BLOG_SIZES.page} articles a page, newest first); page 1 is /{lang}/blog. Linked with rel="prev" and rel="next"; a page past the last is 404.`,
    params: {
      lang: param(ids.lang, 'Language of the blog.', 'en'),
      n: param(ids.listPage, 'Page number, from 2.', '2'),
    },
    media: [HTML, MARKDOWN],
    negotiated: true,
    cache: 'page',
    statuses: [200, 404],
  },
  listBlogTopics: {
    method: 'GET',
    path: '/{lang}/blog/topics',
    served: 'static',
    tag: 'pages',
    summary: 'The topics of the blog in one language, with their article counts',
    description: 'The topics that have articles in this language, each with its article count and page.',
    params: { lang: param(ids.lang, 'Language of the blog.', 'ar') },
    media: [HTML, MARKDOWN],
    negotiated: true,
    cache: 'page',
    statuses: [200, 404],
  },
  listBlogTopicArticles: {
    method: 'GET',
    path: '/{lang}/blog/topics/{topic}',
    served: 'static',
    tag: 'pages',
    summary: `The articles of one topic in one language (${BLOG_SIZES.page} a page, newest first)`,
    description: `The articles on one topic in one language, newest first, ${BLOG_SIZES.page} a page; linked to the same topic in the other language. Topic keys are the same in every language.`,
    params: {
      lang: param(ids.lang, 'Language of the blog.', 'ar'),
      topic: param(ids.topic, 'Topic key, e.g. "privacy".', 'link-in-bio'),
    },
    media: [HTML, MARKDOWN],
    negotiated: true,
    cache: 'page',
    statuses: [200, 404],
  },
  listBlogTopicArticlesPage: {
    method: 'GET',
    path: '/{lang}/blog/topics/{topic}/page/{n}',
    served: 'static',
    tag: 'pages',
    summary: "A further page of a topic's articles",
    description: "Page n of a topic's articles; page 1 is /{lang}/blog/topics/{topic}.",
    params: {
      lang: param(ids.lang, 'Language of the blog.', 'ar'),
      topic: param(ids.topic, 'Topic key.', 'link-in-bio'),
      n: param(ids.listPage, 'Page number, from 2.', '2'),
    },
    media: [HTML, MARKDOWN],
    negotiated: true,
    cache: 'page',
    statuses: [200, 404],
  },
  searchBlog: {
    method: 'GET',
    path: '/{lang}/blog/search',
    served: 'static',
    tag: 'pages',
    summary: "Search the blog in one language (in the browser, over the build's Pagefind index)",
    description:
      "The blog's search page. Searching runs in the browser over the static Pagefind index under /pagefind/{lang}/ (a bundle per language, Arabic stemmed); the Markdown twin says how to find articles without it.",
    params: { lang: param(ids.lang, 'Language of the blog.', 'en') },
    media: [HTML, MARKDOWN],
    negotiated: true,
    cache: 'page',
    statuses: [200, 404],
  },
  getBlogFeed: {
    method: 'GET',
    path: '/{lang}/blog/rss.xml',
    served: 'static',
    tag: 'pages',
    summary: `The RSS feed of the blog in one language: the newest ${BLOG_SIZES.feed} articles`,
    description: `RSS 2.0 feed of the blog in one language: the newest ${BLOG_SIZES.feed} articles with their summaries and topics.`,
    params: { lang: param(ids.lang, 'Language of the blog.', 'en') },
    media: ['application/rss+xml'],
    cache: 'page',
    statuses: [200, 404],
  },
  getBlogJsonFeed: {
    method: 'GET',
    path: '/{lang}/blog/feed.json',
    served: 'static',
    tag: 'pages',
    summary: `The JSON Feed 1.1 of the blog in one language: the newest ${BLOG_SIZES.feed} articles, with their summaries and topics`,
    description: `JSON Feed 1.1 of the blog in one language: the newest ${BLOG_SIZES.feed} articles with their summaries, dates and topics.`,
    params: { lang: param(ids.lang, 'Language of the blog.', 'ar') },
    media: ['application/feed+json'],
    cache: 'page',
    statuses: [200, 404],
  },
  getSitemap: {
    method: 'GET',
    path: '/sitemap.xml',
    served: 'live',
    tag: 'discovery',
    summary: 'Every public page, profiles and cards included (an index past 50,000 URLs)',
    description:
      'Every public page and article with hreflang alternates, profiles and cards included; a sitemap index of /sitemaps/{n}.xml past 50,000 URLs.',
    media: ['application/xml'],
    cache: 'discovery',
    statuses: [200, 503],
  },
  getSitemapPart: {
    method: 'GET',
    path: '/sitemaps/{n}.xml',
    served: 'live',
    tag: 'discovery',
    summary: 'One part of the sitemap once it is an index',
    description: 'One part of the sitemap once /sitemap.xml has become a sitemap index.',
    params: { n: param(ids.sitemapPart, 'Part number, from 1.', '1') },
    media: ['application/xml'],
    cache: 'discovery',
    statuses: [200, 404, 503],
    compressedOnly: true,
  },
  getRobots: {
    method: 'GET',
    path: '/robots.txt',
    served: 'static',
    tag: 'discovery',
    summary: 'The robots policy (RFC 9309)',
    description: 'Allows crawling of all public pages; disallows the owner app and /mcp.',
    media: ['text/plain'],
    cors: true,
    cache: 'discovery',
    statuses: [200],
  },
  getLlmsTxt: {
    method: 'GET',
    path: '/llms.txt',
    served: 'static',
    tag: 'discovery',
    summary: 'A Markdown map of the site for language models (llmstxt.org)',
    description: 'A Markdown overview of the site and its documents for language models (llmstxt.org).',
    media: ['text/plain'],
    cors: true,
    cache: 'discovery',
    statuses: [200],
  },
  getApiCatalog: {
    method: 'GET',
    path: '/.well-known/api-catalog',
    served: 'static',
    tag: 'discovery',
    summary: 'The RFC 9727 API catalog',
    description: 'RFC 9727 API catalog as an RFC 9264 linkset.',
    media: ['application/linkset+json'],
    cors: true,
    cache: 'discovery',
    statuses: [200],
  },
  getOpenApi: {
    method: 'GET',
    path: '/openapi.json',
    served: 'static',
    tag: 'discovery',
    summary: 'This OpenAPI 3.1 document',
    description: 'This document.',
    media: ['application/json'],
    cors: true,
    cache: 'discovery',
    statuses: [200],
  },
  getApiDocs: {
    method: 'GET',
    path: '/docs/api',
    served: 'static',
    tag: 'discovery',
    summary: 'The API documentation',
    description: 'Human documentation of every endpoint and rule. The Markdown version is at /docs/api.md.',
    media: [HTML, MARKDOWN],
    negotiated: true,
    cache: 'discovery',
    statuses: [200],
  },
  getApiDocsMarkdown: {
    method: 'GET',
    path: '/docs/api.md',
    served: 'static',
    tag: 'discovery',
    summary: 'The API documentation as Markdown',
    description: 'The Markdown version of /docs/api.',
    media: [MARKDOWN],
    cors: true,
    cache: 'discovery',
    statuses: [200],
  },
  getAuthMd: {
    method: 'GET',
    path: '/auth.md',
    served: 'static',
    tag: 'discovery',
    summary: 'The agent access and credential policy',
    description:
      'Agent registration and credential policy: what needs no credentials, and how to ask for operator-provisioned access.',
    media: [MARKDOWN],
    cors: true,
    cache: 'discovery',
    statuses: [200],
  },
  getMcpServerCard: {
    method: 'GET',
    path: '/.well-known/mcp/server-card.json',
    served: 'static',
    tag: 'discovery',
    summary: 'The MCP server card',
    description: 'Identity, Streamable HTTP endpoint, protocol versions, capabilities and tools of the MCP server.',
    media: ['application/json'],
    cors: true,
    cache: 'discovery',
    statuses: [200],
  },
  getMcpServerCardAtEndpoint: {
    method: 'GET',
    path: '/mcp/server-card',
    served: 'static',
    tag: 'discovery',
    summary: 'The MCP server card where the discovery draft puts it',
    description:
      "The MCP server card at the Streamable HTTP endpoint's /server-card (the SEP-2127 discovery draft): identity, endpoint, protocol versions and capabilities; tools are listed by the server itself.",
    media: [SERVER_CARD_TYPE],
    cors: true,
    cache: 'discovery',
    statuses: [200],
  },
  getMcpCatalog: {
    method: 'GET',
    path: '/.well-known/mcp/catalog.json',
    served: 'static',
    tag: 'discovery',
    summary: 'The MCP Catalog listing the server card',
    description:
      'The MCP Catalog (discovery draft): one entry per MCP server of this origin, pointing at its server card.',
    media: ['application/json'],
    cors: true,
    cache: 'discovery',
    statuses: [200],
  },
  getAiCatalog: {
    method: 'GET',
    path: '/.well-known/ai-catalog.json',
    served: 'static',
    tag: 'discovery',
    summary: 'The AI Catalog: the MCP server card and the agent skills',
    description: 'The AI Catalog: the MCP server card and the Agent Skills index.',
    media: ['application/json'],
    cors: true,
    cache: 'discovery',
    statuses: [200],
  },
  getAgentSkillsIndex: {
    method: 'GET',
    path: '/.well-known/agent-skills/index.json',
    served: 'static',
    tag: 'discovery',
    summary: 'The Agent Skills index (discovery 0.2.0)',
    description:
      'Agent Skills Discovery 0.2.0: each skill with its description, files and sha256 digests of their bytes.',
    media: ['application/json'],
    cors: true,
    cache: 'discovery',
    statuses: [200],
  },
  getAgentSkillFile: {
    method: 'GET',
    path: '/.well-known/agent-skills/{skill}/SKILL.md',
    served: 'static',
    tag: 'discovery',
    summary: 'One agent skill',
    description:
      'A skill that teaches an agent to read this site well (SKILL.md, with name and description in its front matter).',
    params: { skill: param(ids.slug, "The skill's name.", 'use-the-mcp-server') },
    media: ['text/markdown'],
    cors: true,
    cache: 'discovery',
    statuses: [200, 404],
  },
  mcp: {
    method: 'POST',
    path: '/mcp',
    served: 'agents',
    tag: 'agents',
    summary: 'The MCP endpoint (Streamable HTTP, stateless, read-only)',
    description:
      'Model Context Protocol over Streamable HTTP without sessions or authentication. Methods: initialize, ping, tools/list, tools/call, resources/list, resources/read.',
    media: ['application/json'],
    cache: 'none',
    statuses: [200, 202, 400, 403, 404, 405, 406, 408, 413, 415, 429, 431, 500, 503],
    maxBodyBytes: 64 * 1024,
  },
  getHealth: {
    method: 'GET',
    path: '/health',
    served: 'operations',
    tag: 'operations',
    summary: 'Whether the service and its database answer; never cached',
    description: 'Whether the application and its database answer. Never cached.',
    media: ['application/json'],
    cache: 'none',
    statuses: [200, 503],
  },
  getLiveness: {
    method: 'GET',
    path: '/livez',
    served: 'operations',
    tag: 'operations',
    summary: 'Whether the process answers at all; asks nothing of the database',
    description:
      "Whether this process's event loop answers, and which version it runs. Asks nothing of the database, so a liveness probe on it restarts a process that is stuck, never one whose database is briefly away (that is /health's to say, for readiness). Never cached.",
    media: ['application/json'],
    cache: 'none',
    statuses: [200],
  },
  getProfileAlias: {
    method: 'GET',
    path: '/{alias}',
    served: 'live',
    tag: 'pages',
    summary: "A paid-plan owner's short path to their profile",
    description:
      "A short alias of a paid-plan owner's profile. Reserved paths (every route above, the owner app's paths, files at the root) are never aliases.",
    params: { alias: aliasSchema },
    media: [],
    cache: 'alias',
    statuses: [302, 404, 503],
  },
} as const satisfies Record<string, RouteDeclaration>;

export type RouteId = keyof typeof ROUTES;

/**
 * The largest body POST /mcp reads; more is a JSON-RPC 413. A request to these tools is a few hundred bytes (a batch of
 * ten, a few kilobytes), and what a body may cost once parsed grows with it: 64 KiB of `[{},{},…]` is 1 MB of objects.
 */
export const MCP_BODY_LIMIT = ROUTES.mcp.maxBodyBytes;

/** The names of a path template's parameters: `/{lang}/blog/{slug}` → `'lang' | 'slug'`. */
type NamesOf<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}` ? Name | NamesOf<Rest> : never;

/** A route's parameters by name, typed from its path template (as Hono derives them): `ParamsOf<'getProfilePage'>` is `{ page: string }`. */
export type ParamsOf<Id extends RouteId> = { [Name in NamesOf<(typeof ROUTES)[Id]['path']>]: string };

/** What `pathOf` takes after the route: nothing for a route without parameters, else its parameters. */
type PathArgs<Id extends RouteId> = [NamesOf<(typeof ROUTES)[Id]['path']>] extends [never]
  ? []
  : [params: ParamsOf<Id>];

/** A path template's parts, parsed once: fixed text, and each `{name}` as `{ name }`. The one reader of templates. */
type TemplatePart = string | { name: string };
const templates = new Map<string, readonly TemplatePart[]>();
function partsOf(path: string): readonly TemplatePart[] {
  let parts = templates.get(path);
  if (!parts) {
    parts = path
      .split(/(\{\w+\})/)
      .filter((part) => part !== '')
      .map((part) => (/^\{\w+\}$/.test(part) ? { name: part.slice(1, -1) } : part));
    templates.set(path, parts);
  }
  return parts;
}

/** The names of a path template's parameters, in order: `/{lang}/blog/{slug}` → `['lang', 'slug']`. */
export function paramNamesOf(path: string): string[] {
  return partsOf(path).flatMap((part) => (typeof part === 'string' ? [] : [part.name]));
}

/**
 * A template filled with values, each percent-encoded (identifiers never need it; a value that does cannot break out
 * of its segment). Untyped: code names a route and calls `pathOf`; this is for what derives paths from declarations.
 */
export function fillTemplate(path: string, values: Readonly<Record<string, string>>): string {
  let filled = '';
  for (const part of partsOf(path))
    filled += typeof part === 'string' ? part : encodeURIComponent(values[part.name] ?? '');
  return filled;
}

/**
 * The path of a declared route with its parameters: `pathOf('getDigitalCardVcard', { cardId })` is `/c/k7f2q9.vcf`.
 * The one way a page, a document, the sidecar, a test or a script writes a path of the surface: each parameter is
 * percent-encoded (identifiers never need it; a value that does cannot break out of its segment).
 */
export function pathOf<Id extends RouteId>(id: Id, ...[params]: PathArgs<Id>): string {
  return fillTemplate(ROUTES[id].path, params ?? {});
}

/** The path of a route with its parameters' examples (`/p/layla`): OpenAPI's example, and what the tests ask. */
export function examplePath(id: RouteId): string {
  const params = Object.entries((ROUTES[id] as RouteDeclaration).params ?? {}).map(([name, schema]) => {
    const examples = (schema.meta() as { examples?: unknown[] } | undefined)?.examples;
    return [name, String(examples?.[0] ?? '')];
  });
  return fillTemplate(ROUTES[id].path, Object.fromEntries(params));
}

/**
 * A path matched to a declared route: which one, and its parameters typed by the route's template. A union over the
 * routes, so that testing `id` narrows `params` (`match.id === 'getProfilePage'` gives `match.params.page`).
 */
export type RouteMatch<Id extends RouteId = RouteId> = Id extends RouteId
  ? { id: Id; route: RouteDeclaration; params: ParamsOf<Id> }
  : never;

/**
 * The one route matcher: a function that finds the declared route among `ids` a path belongs to, the most specific
 * first (fewest parameters, then the most fixed text: `/c/{cardId}.vcf` before `/c/{cardId}`, `/{alias}` last), with
 * its parameters; each `{name}` is one path segment, and a route matches only where its declared `params` accept
 * them (`/c/x.vcf` with an invalid card id is not the card's vCard). The sidecar's reader, the build's cache rules,
 * the preview and the MCP resource templates all match paths with it.
 */
export function routeMatcher<Id extends RouteId>(ids: readonly Id[]): (path: string) => RouteMatch<Id> | undefined {
  const compiled = ids
    .map((id) => {
      const route = ROUTES[id] as RouteDeclaration;
      return {
        id,
        route,
        pattern: templatePattern(route.path),
        names: paramNamesOf(route.path),
        fixed: route.path.replace(/\{\w+\}/g, '').length,
      };
    })
    .sort((a, b) => a.names.length - b.names.length || b.fixed - a.fixed);
  return (path) => {
    for (const { id, route, pattern, names } of compiled) {
      const match = pattern.exec(path);
      if (!match) continue;
      const params = Object.fromEntries(names.map((name, i) => [name, match[i + 1] ?? '']));
      if (names.every((name) => route.params?.[name]?.safeParse(params[name]).success ?? true))
        return { id, route, params } as RouteMatch<Id>;
    }
    return undefined;
  };
}

/** The ids of the declared routes that `keep` selects. */
export function routeIds(keep: (route: RouteDeclaration) => boolean): RouteId[] {
  return (Object.keys(ROUTES) as RouteId[]).filter((id) => keep(ROUTES[id] as RouteDeclaration));
}

const matchStatic = routeMatcher(routeIds((r) => r.served === 'static'));

/** The declared route a path of the build belongs to (exact first, then templated), for its cache rule and CORS. */
function staticRouteOf(path: string): RouteDeclaration | undefined {
  return matchStatic(path)?.route;
}

/**
 * The Cache-Control of a file of the build at `urlPath` (`/_astro/x.css`, `/en/blog`): a year for a fingerprinted
 * file, else its declared route's rule, else a page's. The one rule the sidecar and publishing both send.
 */
export function cacheControlOf(urlPath: string): string {
  if (isFingerprinted(urlPath)) return CACHE.immutable;
  return CACHE[staticRouteOf(urlPath)?.cache ?? 'page'];
}

/** Whether a file of the build is readable by agents in browsers on any origin (CORS `*`), as its route declares. */
export function corsOf(urlPath: string): boolean {
  return staticRouteOf(urlPath)?.cors ?? false;
}

/** A declared path as a regular expression: each `{name}` one path segment, captured. */
export function templatePattern(path: string): RegExp {
  return new RegExp(
    `^${partsOf(path)
      .map((part) => (typeof part === 'string' ? part.replace(/[.*+?^$()|[\]\\]/g, '\\$&') : '([^/]+)'))
      .join('')}$`,
  );
}

/** The first segment of a declared path when it is fixed: `/p/{page}` → `p`, `/{lang}/blog` → undefined. */
export function fixedFirstSegment(path: string): string | undefined {
  const first = path.split('/')[1] ?? '';
  return first === '' || first.includes('{') ? undefined : first;
}

/**
 * First path segments that can never be an alias: every fixed first segment of a route, the languages, the owner
 * app, the folders and files of the built site, and names kept for the product's own pages.
 */
export const RESERVED_SEGMENTS: ReadonlySet<string> = new Set([
  ...Object.values(ROUTES).flatMap((r) => {
    const first = fixedFirstSegment(r.path);
    return first ? [first] : [];
  }),
  ...LANGS,
  ...OWNER_APP_SEGMENTS,
  '_astro',
  'images',
  'global-scripts',
  'pagefind',
  '.well-known',
  'favicon.svg',
  'index',
  'assets',
  'static',
  'about',
  'help',
  'support',
  'pricing',
  'terms',
  'privacy',
  'contact',
  'www',
]);

/**
 * Names an article's file may not take: the fixed segments of the blog's own pages under /{lang}/blog/ (its pages,
 * topics and search), so that no article hides one of them.
 */
export const RESERVED_ARTICLE_SLUGS: ReadonlySet<string> = new Set(
  Object.values(ROUTES).flatMap((r) => {
    const next = /^\/\{lang\}\/blog\/([^/{]+)/.exec(r.path)?.[1];
    return next && SLUG_PATTERN.test(next) ? [next] : [];
  }),
);

function isReservedSegment(segment: string): boolean {
  return RESERVED_SEGMENTS.has(segment.toLowerCase());
}

/** Paths agents must not read: the owner app, and the MCP endpoint itself (it is not a page). */
export const AGENT_REFUSED_SEGMENTS: ReadonlySet<string> = new Set([
  ...OWNER_APP_SEGMENTS,
  ...Object.values(ROUTES)
    .filter((r) => r.served === 'agents')
    .map((r) => fixedFirstSegment(r.path) ?? ''),
]);

/** The first non-empty segment of a decoded path, lowercased (`//Login/x` → `login`). */
export function firstSegmentOf(decodedPath: string): string {
  return (decodedPath.split('/').find((segment) => segment !== '') ?? '').toLowerCase();
}

/** The language a path names by its first segment (`/ar/…`, `//AR/…`), if it names one: error pages, read_page. */
export function langOfPath(decodedPath: string): Lang | undefined {
  const first = firstSegmentOf(decodedPath);
  return isLang(first) ? first : undefined;
}
