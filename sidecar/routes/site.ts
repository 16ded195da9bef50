// The built site: every static page with Markdown negotiation, every other file as it is, then the live
// fallback (aliases), then negotiated 404 pages.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PublicConfig, SiteConfig } from '../../src/lib/site-config.ts';
import { absoluteUrl, paths } from '../../src/lib/urls.ts';
import { prefersMarkdown } from '../negotiation.ts';
import { isErrorPagePath, sendErrorPage } from '../error-pages.ts';
import { sendAsset } from '../send.ts';
import { CACHE, type StaticSite } from '../static-site.ts';

const HOMEPAGES = new Set<string>([paths.home('en'), paths.home('ar')]);

/** RFC 8288 links from the homepage to the discovery documents (rule L of the spec). */
export function homepageLinks(config: PublicConfig): string {
  const link = (path: string, rel: string, type: string) => `<${absoluteUrl(config.baseUrl, path)}>; rel="${rel}"; type="${type}"`;
  return [
    link(paths.apiCatalog, 'api-catalog', 'application/linkset+json'),
    link(paths.openApi, 'service-desc', 'application/json'),
    link(paths.apiDocs, 'service-doc', 'text/html'),
    link(paths.authMd, 'service-meta', 'text/markdown'),
  ].join(', ');
}

/**
 * The canonical URL of a request whose path ends in slashes: the raw path as the client sent it (still
 * percent-encoded), set as the path of our own origin. Never a path-relative Location: `//evil.example/` would
 * be read as another host.
 */
export function withoutTrailingSlash(baseUrl: string, rawUrl: string): string {
  const q = rawUrl.indexOf('?');
  const url = new URL(baseUrl);
  url.pathname = (q === -1 ? rawUrl : rawUrl.slice(0, q)).replace(/\/+$/, '') || '/';
  if (q !== -1) url.search = rawUrl.slice(q);
  return url.href;
}

/**
 * Answers a path the build does not have and resolves to true, or resolves to false to let it be a 404.
 * (A boolean, not the reply: a Fastify reply is thenable, so a promise of one resolves to undefined.)
 */
export type Fallback = (request: FastifyRequest, reply: FastifyReply, path: string) => Promise<boolean>;

export function siteRoutes(app: FastifyInstance, opts: { config: SiteConfig; site: StaticSite; fallback?: Fallback }) {
  const { config, site, fallback } = opts;
  const links = homepageLinks(config);

  app.get('/*', async (request, reply) => {
    const path = request.sitePath;
    if (path.length > 1 && path.endsWith('/')) return reply.redirect(withoutTrailingSlash(config.baseUrl, request.raw.url ?? '/'), 301);

    // Behind a front (STATIC_FILES=front) static files are the front's; the MCP tool read_page, which asks this
    // router through app.inject, still reads them.
    const serveStatic = config.staticFiles === 'serve' || (request.raw as { isLightMyRequest?: boolean }).isLightMyRequest === true;
    const page = !serveStatic || isErrorPagePath(path) ? undefined : site.pages.get(path);
    if (page) {
      if (HOMEPAGES.has(path)) reply.header('link', links);
      reply.header('vary', 'Accept');
      return sendAsset(request, reply, prefersMarkdown(request.headers) ? page.markdown : page.html);
    }
    const file = serveStatic && !isErrorPagePath(path) ? site.files.get(path) : undefined;
    if (file && !path.endsWith('.html')) {
      // Discovery documents are public and read by agents running in browsers, on any origin.
      if (file.cacheControl === CACHE.discovery) reply.header('access-control-allow-origin', '*');
      return sendAsset(request, reply, file);
    }
    if (fallback) {
      if (await fallback(request, reply, path)) return reply;
    }
    return sendErrorPage(site, request, reply, 404, path);
  });

  app.setNotFoundHandler((request, reply) => sendErrorPage(site, request, reply, 404, request.sitePath || '/'));
}
