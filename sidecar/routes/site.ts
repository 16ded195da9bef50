// The built site: every static page with Markdown negotiation, every other file as it is, negotiated 404 pages.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SiteConfig } from '../../src/lib/site-config.ts';
import { isLang } from '../../src/lib/site-config.ts';
import { absoluteUrl, paths } from '../../src/lib/urls.ts';
import { preferredLang, prefersMarkdown } from '../negotiation.ts';
import type { Asset, StaticSite } from '../static-site.ts';

const HOMEPAGES = new Set<string>([paths.home('en'), paths.home('ar')]);

/** RFC 8288 links from the homepage to the discovery documents (rule L of the spec). */
export function homepageLinks(config: SiteConfig): string {
  const link = (path: string, rel: string, type: string) => `<${absoluteUrl(config.baseUrl, path)}>; rel="${rel}"; type="${type}"`;
  return [
    link(paths.apiCatalog, 'api-catalog', 'application/linkset+json'),
    link(paths.openApi, 'service-desc', 'application/json'),
    link(paths.apiDocs, 'service-doc', 'text/html'),
    link(paths.authMd, 'service-meta', 'text/markdown'),
  ].join(', ');
}

export function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset, status = 200) {
  reply.header('content-type', asset.type).header('etag', asset.etag);
  if (status === 200) {
    reply.header('cache-control', asset.cacheControl);
    if (isFresh(request, asset.etag)) return reply.code(304).send();
  } else {
    // An error page must not be cached in place of the page that may exist tomorrow.
    reply.header('cache-control', 'no-cache');
  }
  return reply.code(status).send(asset.body);
}

function isFresh(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  return header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** The decoded path of a request, or undefined when its percent-encoding is broken or it holds a NUL byte. */
export function requestPath(request: FastifyRequest): string | undefined {
  const raw = (request.raw.url ?? '/').split('?')[0] ?? '/';
  try {
    const path = decodeURIComponent(raw);
    return path.includes('\0') ? undefined : path;
  } catch {
    return undefined;
  }
}

export function siteRoutes(app: FastifyInstance, opts: { config: SiteConfig; site: StaticSite }) {
  const { config, site } = opts;
  const links = homepageLinks(config);

  /** The 404 page in the language of the path, or of Accept-Language when the path has none. */
  function notFound(request: FastifyRequest, reply: FastifyReply, path: string) {
    const first = path.split('/')[1];
    const lang = isLang(first) ? first : preferredLang(request.headers);
    const page = site.pages.get(paths.notFound(lang));
    if (!page) return reply.code(404).type('text/plain; charset=utf-8').send('Not found\n');
    reply.header('vary', isLang(first) ? 'Accept' : 'Accept, Accept-Language');
    return sendAsset(request, reply, prefersMarkdown(request.headers) ? page.markdown : page.html, 404);
  }

  app.get('/*', (request, reply) => {
    const path = requestPath(request);
    if (path === undefined) {
      return reply.code(400).type('text/plain; charset=utf-8').send('Bad request: the URL is not valid percent-encoded UTF-8.\n');
    }
    if (path.length > 1 && path.endsWith('/')) {
      const query = request.raw.url?.includes('?') ? request.raw.url.slice(request.raw.url.indexOf('?')) : '';
      return reply.redirect(encodeURI(path.replace(/\/+$/, '') || '/') + query, 301);
    }

    const page = site.pages.get(path);
    if (page) {
      if (HOMEPAGES.has(path)) reply.header('link', links);
      reply.header('vary', 'Accept');
      return sendAsset(request, reply, prefersMarkdown(request.headers) ? page.markdown : page.html);
    }
    const file = site.files.get(path);
    if (file && !path.endsWith('.html')) return sendAsset(request, reply, file);
    return notFound(request, reply, path);
  });

  app.setNotFoundHandler((request, reply) => notFound(request, reply, requestPath(request) ?? '/'));
}
