// Media types of the build's files: by extension, or by path where the extension does not tell. The static site
// (sidecar/services/static-site.ts), the front's nginx.conf (scripts/front-config.ts) and the build's precompression
// all read this one table.
import { fillTemplate, LANGS, paramNamesOf, routeIds, ROUTES, type RouteDeclaration } from './surface.ts';

/** Media types by extension (the front's nginx.conf is generated from this too). */
export const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
  '.vcf': 'text/vcard; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json',
};

/** Parameters a media type is sent with (the type itself is its route's declaration, surface.ts). */
const PARAMETERS: Record<string, string> = {
  'application/rss+xml': '; charset=utf-8',
  'application/linkset+json': '; profile="https://www.rfc-editor.org/info/rfc9727"',
};

const bare = (type: string) => type.split(';', 1)[0]!.trim();
const extensionOf = (path: string) => {
  const dot = path.lastIndexOf('.');
  return dot > path.lastIndexOf('/') ? path.slice(dot) : '';
};

/**
 * Files whose media type is not told by their extension: each static document whose declared type (its route's one
 * media type) is not its extension's, at every path its template names (a `{lang}` in every language). Derived from
 * the declaration, so a route's type has one owner; a declared type no path could carry fails at load.
 */
export const TYPES_BY_PATH: Record<string, string> = Object.fromEntries(
  routeIds((route) => route.served === 'static' && !route.negotiated && route.media.length === 1).flatMap((id) => {
    const route = ROUTES[id] as RouteDeclaration;
    const type = route.media[0]!;
    if (bare(TYPES[extensionOf(route.path)] ?? '') === type) return [];
    const names = paramNamesOf(route.path);
    if (names.some((name) => name !== 'lang'))
      throw new Error(`${route.path} is declared ${type}, which its extension does not say: name it by its type`);
    const paths = LANGS.map((lang) => fillTemplate(route.path, { lang })).filter(
      (path, i, all) => all.indexOf(path) === i,
    );
    return paths.map((path) => [path, type + (PARAMETERS[type] ?? '')]);
  }),
);

/** The media type of a file of the build at `urlPath`. */
export function typeOf(urlPath: string): string {
  return TYPES_BY_PATH[urlPath] ?? TYPES[extensionOf(urlPath)] ?? 'application/octet-stream';
}

/**
 * The media type of a file of the build by its name (`index.html`, `en/blog.md`, `.well-known/api-catalog`), not by
 * the URL a page answers at (`/`, which has no extension): what the sidecar sends and publishing stores it with.
 */
export function typeOfBuildFile(file: string): string {
  return typeOf(`/${file}`);
}

/**
 * Whether a media type is text: what compresses, and what read_page returns (a page's twin, a feed, a discovery
 * document, an SVG). Every `text/*`, JSON and XML with their `+json`/`+xml` kinds (the JSON Feed, RSS, the linkset,
 * the manifest), SVG and JavaScript; never an image of pixels, a font or an archive.
 */
export function isTextType(type: string): boolean {
  return TEXT.test(type);
}

const TEXT = /^(text\/|image\/svg\+xml|application\/([\w.-]+\+)?(json|xml)\b|application\/javascript)/;
