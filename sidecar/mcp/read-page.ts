// read_page: any public page as Markdown, resolved by the same site reader the HTTP router uses, so a tool can never
// read what a browser could not: no file outside the built site, no owner-app path, no other origin.
import type { PublicConfig } from '../../src/lib/site-config.ts';
import { isTextType } from '../../src/lib/media-types.ts';
import { AGENT_REFUSED_SEGMENTS, DEFAULT_LANG, firstSegmentOf, langOfPath } from '../../src/lib/surface.ts';
import type { ErrorPages } from '../error-pages.ts';
import { checkedPath } from '../request-path.ts';
import { bytesLeft, textForAnswer, tooLarge } from './budget.ts';
import type { SiteReader } from '../services/site-reader.ts';
import type { Result } from '../../src/lib/result.ts';

/** A page's text, where it was found, and its owner's choice for AI use of it (its Content-Usage), if it is a page. */
export type PageResult = Result<{ text: string; path: string; contentUsage?: string }>;

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** The site path a tool argument names (as written, still percent-encoded), or a refusal. */
export function resolveSitePath(input: string, config: PublicConfig): Result<{ path: string }> {
  const raw = input.trim();
  let target: URL;
  try {
    target = new URL(raw, config.baseUrl + '/');
  } catch {
    return { ok: false, problem: `"${input}" is not a path or URL` };
  }
  if (!SCHEME.test(raw) && !raw.startsWith('/')) return { ok: false, problem: 'a path must start with "/"' };
  // Whatever names another host: a URL of another origin, and a path that starts with two slashes (or a slash and a
  // backslash), which URLs read as a network-path reference (`//evil.example/p/layla` is evil.example's /p/layla).
  if (target.origin !== config.baseUrl)
    return {
      ok: false,
      problem: `only pages of ${config.baseUrl} can be read; "${raw.slice(0, 80)}" names another site (${target.origin})`,
    };
  // Judge the path as written, as the HTTP router does: URL parsing would silently resolve the dot segments away.
  const decoded = checkedPath(raw.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').split(/[?#]/)[0] ?? '');
  if (decoded === undefined)
    return {
      ok: false,
      problem: `"${input}" is not a valid path (broken percent-encoding, NUL, backslash, "." or ".." segments)`,
    };
  // Judged decoded (/%6Cogin is /login), and by its first non-empty segment (//login is /login to most servers).
  if (AGENT_REFUSED_SEGMENTS.has(firstSegmentOf(decoded))) {
    return {
      ok: false,
      problem: `${target.pathname} belongs to the account owners' app or the MCP endpoint and is not readable by agents`,
    };
  }
  return { ok: true, path: target.pathname + target.search };
}

export async function readPage(
  reader: SiteReader,
  errors: ErrorPages,
  config: PublicConfig,
  input: string,
): Promise<PageResult> {
  const resolved = resolveSitePath(input, config);
  if (!resolved.ok) return { ok: false, problem: `Refused: ${resolved.problem}.` };
  let url = resolved.path;
  /** An owner's domain a redirect led to (a page that lives there): its paths are asked there. */
  let host: string | undefined;
  // Follow the site's own redirects (aliases, /blog, trailing slashes, a page to its owner's domain), a few hops at most.
  for (let hop = 0; hop < 4; hop++) {
    const q = url.indexOf('?');
    const path = checkedPath(q === -1 ? url : url.slice(0, q));
    if (path === undefined) return { ok: false, problem: `Refused: ${url} is not a valid path.` };
    const resolution = await reader.resolve(
      path,
      { markdown: true, lang: DEFAULT_LANG },
      { staticFiles: true, rawUrl: url, host },
    );
    switch (resolution.kind) {
      case 'redirect':
        if (resolution.sitePath === undefined)
          return { ok: false, problem: `${path} redirects to another site: ${resolution.location}` };
        url = resolution.sitePath;
        host = resolution.host ?? host;
        continue;
      case 'misdirected':
      case 'not-found': {
        const page = errors.page(404, langOfPath(path) ?? DEFAULT_LANG, true);
        const shown = page && page.size <= bytesLeft() ? `\n\n${page.body.toString('utf8')}` : '';
        return { ok: false, problem: `No public page at ${path} (404).${shown}` };
      }
      case 'document':
        if (resolution.status >= 400)
          return { ok: false, problem: `${path} answered ${resolution.status}; try again later.` };
        return { ok: true, text: resolution.body, path };
      case 'asset':
        if (!isTextType(resolution.asset.type))
          return { ok: false, problem: `${path} is not a text document (${resolution.asset.type}).` };
        // Judged by its size before it is read: a sitemap part of 5 MB is never turned into a string here.
        if (resolution.asset.size > bytesLeft()) return { ok: false, problem: tooLarge(path, resolution.asset.size) };
        return {
          ok: true,
          text: textForAnswer(resolution.asset),
          path,
          ...(resolution.headers['content-usage'] ? { contentUsage: resolution.headers['content-usage'] } : {}),
        };
    }
  }
  return { ok: false, problem: `${input} redirects too many times.` };
}
