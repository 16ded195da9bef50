// The links of a finished build, checked where they land: every internal link, image, script and stylesheet of every
// page of dist/client must reach a file of the build (a page by its clean URL) or a route the sidecar answers, and
// every #fragment a heading or element of the page it names, however it is percent-encoded. External links are not
// fetched (there is no network where this runs): their syntax is the content checks' job. Run by `npm run
// check:build` and by the publish workflow before anything is uploaded.
//
// Why not linkinator or hyperlink: linkinator 8's local mode resolved our clean, extension-less URLs (/en/blog/x for
// en/blog/x.html) as file paths and reported every page link broken, and checking 10,000 files over HTTP is slower
// than reading them; this reads each page once and knows the surface's routes.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { filesUnder } from '../files.ts';
import { ROUTES, templatePattern, type RouteDeclaration } from '../surface.ts';
import { OWNER_APP_SEGMENTS } from '../surface.ts';
import { urlOfBuildFile } from '../urls.ts';

/** Routes answered by the sidecar, not by a file: a link to one is not looked for in the build. */
const SERVED_ELSEWHERE = (Object.values(ROUTES) as RouteDeclaration[])
  .filter((r) => r.served !== 'static')
  .map((r) => templatePattern(r.path));
const OWNER_APP = new RegExp(`^/(?:${OWNER_APP_SEGMENTS.join('|')})(?:/|$)`);

const ATTRIBUTE =
  /<(a|link|img|script|source)\b[^>]*?\s(href|src|srcset)="([^"]*)"|<(meta) (?:property|name)="(?:og|twitter):image" (content)="([^"]*)"/g;
const ID = /\sid="([^"]+)"/g;

const decodeEntities = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

/** Every broken internal link of the build at `clientDir` for a site at `baseUrl`, as `page: message` lines. */
export function checkLinks(clientDir: string, baseUrl: string): string[] {
  const files = filesUnder(clientDir);
  const byUrl = new Map<string, string>(files.map((file) => [urlOfBuildFile(file), file]));
  const ids = new Map<string, Set<string>>();
  const idsOf = (file: string) => {
    let set = ids.get(file);
    if (!set)
      ids.set(
        file,
        (set = new Set(
          Array.from(readFileSync(join(clientDir, file), 'utf8').matchAll(ID), (m) => decodeEntities(m[1]!)),
        )),
      );
    return set;
  };
  const origin = new URL(baseUrl).origin;
  const problems: string[] = [];
  for (const page of files.filter((f) => f.endsWith('.html'))) {
    const html = readFileSync(join(clientDir, page), 'utf8');
    const pageUrl = new URL(urlOfBuildFile(page), origin);
    for (const match of html.matchAll(ATTRIBUTE)) {
      const [tag, attribute, raw] = (match[1] ? match.slice(1, 4) : match.slice(4, 7)) as [string, string, string];
      const values =
        attribute === 'srcset'
          ? decodeEntities(raw)
              .split(',')
              .map((c) => c.trim().split(/\s+/)[0] ?? '')
          : [decodeEntities(raw)];
      for (const value of values) {
        if (!value) continue;
        let target: URL;
        try {
          target = new URL(value, pageUrl);
        } catch {
          problems.push(`${page}: <${tag} ${attribute}="${value}"> is not a valid URL`);
          continue;
        }
        if (target.origin !== origin) continue;
        const path = decodeURIComponent(target.pathname);
        if (OWNER_APP.test(path) || SERVED_ELSEWHERE.some((p) => p.test(path))) {
          // A live route: its own tests cover it. A static file there (sitemap.xml) is still checked below.
          if (!byUrl.has(path)) continue;
        }
        const file = byUrl.get(path);
        if (!file) {
          problems.push(
            `${page}: <${tag} ${attribute}="${value}"> leads nowhere: no file of the build answers ${path}`,
          );
          continue;
        }
        if (target.hash && file.endsWith('.html')) {
          const fragment = decodeURIComponent(target.hash.slice(1));
          if (!idsOf(file).has(fragment))
            problems.push(`${page}: <${tag} ${attribute}="${value}">: ${file} has no element with id "${fragment}"`);
        }
      }
    }
  }
  return [...new Set(problems)];
}

/** Files the build is expected to have next to each page: its Markdown twin. */
export function missingTwins(clientDir: string): string[] {
  return filesUnder(clientDir)
    .filter((f) => f.endsWith('.html'))
    .filter((f) => !existsSync(join(clientDir, f.replace(/\.html$/, '.md'))))
    .map((f) => `${f}: no Markdown twin (${f.replace(/\.html$/, '.md')})`);
}
