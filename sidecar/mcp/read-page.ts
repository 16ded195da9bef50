// read_page: any public page as Markdown, resolved by the HTTP router itself (app.inject), so a tool can never
// read what a browser could not: no file outside the built site, no owner-app path, no other origin.
import type { FastifyInstance } from 'fastify';
import { OWNER_APP_PATHS } from '../../src/lib/discovery.ts';
import type { PublicConfig } from '../../src/lib/site-config.ts';
import { paths } from '../../src/lib/urls.ts';

export type PageResult = { ok: true; text: string; path: string } | { ok: false; message: string };

const REFUSED_SEGMENTS = new Set([...OWNER_APP_PATHS.map((p) => p.slice(1)), paths.mcp.slice(1)]);
const TEXT_TYPES = /^(text\/|application\/(json|xml|linkset\+json|rss\+xml))/;

/** The site path a tool argument names, or a refusal. */
export function resolveSitePath(input: string, config: PublicConfig): { path: string } | { refused: string } {
  const raw = input.trim();
  let target: URL;
  try {
    target = new URL(raw, config.baseUrl + '/');
  } catch {
    return { refused: `"${input}" is not a path or URL` };
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw) && target.origin !== config.baseUrl) {
    return { refused: `only pages of ${config.baseUrl} can be read, not ${target.origin}` };
  }
  if (!/^[a-z][a-z0-9+.-]*:/i.test(raw) && !raw.startsWith('/')) return { refused: 'a path must start with "/"' };
  // Judge the path as written: URL parsing would silently resolve the dot segments away.
  const written = raw.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').split(/[?#]/)[0] ?? '';
  let decoded: string;
  try {
    decoded = decodeURIComponent(written);
  } catch {
    return { refused: `"${input}" is not valid percent-encoding` };
  }
  if (decoded.split(/[/\\]/).some((segment) => segment === '..' || segment === '.')) return { refused: 'paths with "." or ".." segments are refused' };
  // Judged decoded (/%6Cogin is /login), and by its first non-empty segment (//login is /login to most servers).
  const first = decoded.split('/').find((segment) => segment !== '') ?? '';
  if (REFUSED_SEGMENTS.has(first.toLowerCase())) {
    return { refused: `${target.pathname} belongs to the account owners' app or the MCP endpoint and is not readable by agents` };
  }
  return { path: target.pathname + target.search };
}

export async function readPage(app: FastifyInstance, config: PublicConfig, input: string): Promise<PageResult> {
  const resolved = resolveSitePath(input, config);
  if ('refused' in resolved) return { ok: false, message: `Refused: ${resolved.refused}.` };
  let path = resolved.path;
  // Follow the site's own redirects (aliases, /blog, trailing slashes), a few hops at most.
  for (let hop = 0; hop < 4; hop++) {
    const res = await app.inject({ method: 'GET', url: path, headers: { accept: 'text/markdown', 'accept-language': 'en' } });
    if (res.statusCode >= 300 && res.statusCode < 400) {
      const location = new URL(String(res.headers.location ?? '/'), config.baseUrl + '/');
      if (location.origin !== config.baseUrl) return { ok: false, message: `${path} redirects to another site: ${location.href}` };
      path = location.pathname + location.search;
      continue;
    }
    if (res.statusCode === 404) return { ok: false, message: `No public page at ${path} (404).\n\n${res.body}` };
    if (res.statusCode >= 400) return { ok: false, message: `${path} answered ${res.statusCode}; try again later.` };
    if (!TEXT_TYPES.test(String(res.headers['content-type'] ?? ''))) return { ok: false, message: `${path} is not a text document (${res.headers['content-type']}).` };
    return { ok: true, text: res.body, path };
  }
  return { ok: false, message: `${input} redirects too many times.` };
}
