// Error pages (404, 503) from the build, in the language of the path or of Accept-Language, negotiated like pages.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isLang, type Lang } from '../src/lib/site-config.ts';
import { paths } from '../src/lib/urls.ts';
import { preferredLang, prefersMarkdown } from './negotiation.ts';
import { sendAsset } from './send.ts';
import type { StaticSite } from './static-site.ts';

export type ErrorStatus = 404 | 503;

export function sendErrorPage(site: StaticSite, request: FastifyRequest, reply: FastifyReply, status: ErrorStatus, path: string, lang?: Lang) {
  const first = path.split('/')[1];
  const pageLang = lang ?? (isLang(first) ? first : preferredLang(request.headers));
  const page = site.pages.get(status === 404 ? paths.notFound(pageLang) : paths.unavailable(pageLang));
  if (status === 503) reply.header('retry-after', '30');
  if (!page) return reply.code(status).type('text/plain; charset=utf-8').send(status === 404 ? 'Not found\n' : 'Service unavailable\n');
  reply.header('vary', lang || isLang(first) ? 'Accept' : 'Accept, Accept-Language');
  return sendAsset(request, reply, prefersMarkdown(request.headers) ? page.markdown : page.html, status);
}

/** Error pages are not addressable themselves: /en/404 is not found. */
export function isErrorPagePath(path: string): boolean {
  return /^\/(ar|en)\/(404|503)$/.test(path);
}
