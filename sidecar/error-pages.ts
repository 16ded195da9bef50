// Error pages (404, 500, 503) from the build, in the language of the path or of Accept-Language, negotiated like pages.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CACHE, langOfPath, RETRY_AFTER, type Lang } from '../src/lib/surface.ts';
import { paths, type ErrorStatus } from '../src/lib/urls.ts';
import { preferredLang, prefersMarkdown } from './negotiation.ts';
import { sendAsset } from './send.ts';
import type { Asset } from './asset.ts';
import type { StaticSite } from './services/static-site.ts';

export type { ErrorStatus };

const FALLBACK_TEXT: Record<ErrorStatus, string> = {
  404: 'Not found\n',
  500: 'Internal server error\n',
  503: 'Service unavailable\n',
};

export class ErrorPages {
  private readonly site: StaticSite;

  constructor(site: StaticSite) {
    this.site = site;
  }

  /** The error page for `status` in `lang`, as HTML or its Markdown twin (undefined in a build without it). */
  page(status: ErrorStatus, lang: Lang, markdown: boolean): Asset | undefined {
    const page = this.site.pages.get(paths.errorPage(lang, status));
    return page && (markdown ? page.markdown : page.html);
  }

  /**
   * Answers with the error page: in the language of the path's first segment, else the one the client prefers; as
   * Markdown when the client prefers it or the path names a twin (`.md`: what it asked for is Markdown whatever Accept
   * says). A 503 says when to try again: `retryAfterSeconds` (a database that cannot be read is given half a minute).
   */
  send(
    request: FastifyRequest,
    reply: FastifyReply,
    status: ErrorStatus,
    path: string,
    retryAfterSeconds: number = RETRY_AFTER.unavailable,
  ) {
    const named = langOfPath(path);
    const lang = named ?? preferredLang(request.headers);
    if (status === 503) reply.header('retry-after', String(retryAfterSeconds));
    const asset = this.page(status, lang, path.endsWith('.md') || prefersMarkdown(request.headers));
    if (!asset)
      return reply
        .code(status)
        .type('text/plain; charset=utf-8')
        .header('cache-control', CACHE.error)
        .send(FALLBACK_TEXT[status]);
    reply.header('vary', named ? 'Accept' : 'Accept, Accept-Language');
    return sendAsset(request, reply, asset, status);
  }
}
