// Error pages (404, 500, 503) from the build, in the language of the path or of Accept-Language, negotiated like pages.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isLang, LANGS, type Lang } from '../src/lib/site-config.ts';
import { ERROR_STATUSES, paths, twinPath, type ErrorStatus } from '../src/lib/urls.ts';
import { preferredLang, prefersMarkdown } from './negotiation.ts';
import { sendAsset } from './send.ts';
import type { StaticSite } from './static-site.ts';

export type { ErrorStatus };

const FALLBACK_TEXT: Record<ErrorStatus, string> = { 404: 'Not found\n', 500: 'Internal server error\n', 503: 'Service unavailable\n' };

export function sendErrorPage(site: StaticSite, request: FastifyRequest, reply: FastifyReply, status: ErrorStatus, path: string, lang?: Lang) {
  const first = path.split('/')[1];
  const pageLang = lang ?? (isLang(first) ? first : preferredLang(request.headers));
  const page = site.pages.get(paths.errorPage(pageLang, status));
  if (status === 503) reply.header('retry-after', '30');
  if (!page) return reply.code(status).type('text/plain; charset=utf-8').header('cache-control', 'no-cache').send(FALLBACK_TEXT[status]);
  reply.header('vary', lang || isLang(first) ? 'Accept' : 'Accept, Accept-Language');
  return sendAsset(request, reply, prefersMarkdown(request.headers) ? page.markdown : page.html, status);
}

/** The error pages' own URLs and their twins' (/en/404, /en/404.md): not addressable themselves. */
const ERROR_PAGE_PATHS: ReadonlySet<string> = new Set(
  LANGS.flatMap((lang) => ERROR_STATUSES.flatMap((status) => [paths.errorPage(lang, status), twinPath(paths.errorPage(lang, status))])),
);

export function isErrorPagePath(path: string): boolean {
  return ERROR_PAGE_PATHS.has(path);
}
