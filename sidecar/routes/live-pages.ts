// Live pages from the store: profiles, cards (page, redirect, vCard), aliases and /blog.
// A page is rendered once per store version and served from memory after that.
import { create as contentDisposition } from 'content-disposition';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { nextLinkChange, type Card, type LiveLocals } from '../../src/lib/live-content.ts';
import { safeHref, WEB_SCHEMES } from '../../src/lib/owner-input.ts';
import { pageToMarkdown } from '../../src/lib/markdown.ts';
import { isReservedSegment } from '../../src/lib/reserved-paths.ts';
import type { Lang, SiteConfig } from '../../src/lib/site-config.ts';
import { absoluteUrl, paths } from '../../src/lib/urls.ts';
import type { AstroRenderer } from '../astro-renderer.ts';
import { sendErrorPage } from '../error-pages.ts';
import type { LiveCache } from '../live-cache.ts';
import { preferredLang, prefersMarkdown } from '../negotiation.ts';
import { sendAsset } from '../send.ts';
import { CACHE, makeAsset, type Asset, type Page, type StaticSite } from '../static-site.ts';
import { Store, StoreUnavailableError } from '../store/store.ts';
import { CARD_ID_PATTERN, SLUG_PATTERN } from '../store/import-format.ts';
import { cardToVcard, vcardFileName } from '../vcard.ts';
import type { Fallback } from './site.ts';

export interface LiveDeps {
  config: SiteConfig;
  site: StaticSite;
  store: Store;
  renderer: AstroRenderer;
  cache: LiveCache<Page | CardFound | AliasFound>;
}

/** Where an alias leads: a published profile on the paid plan. */
export interface AliasFound {
  slug: string;
}

/** What a card id resolves to: its page, or the target it redirects to. */
export interface CardFound {
  page?: Page;
  redirect?: string;
  card: Card;
}

const HTML = 'text/html; charset=utf-8';
const MARKDOWN = 'text/markdown; charset=utf-8';

/** A live page as HTML and Markdown, from the cache or rendered now; undefined when the content does not exist. */
export class LivePages {
  private readonly deps: LiveDeps;

  constructor(deps: LiveDeps) {
    this.deps = deps;
  }

  /** Throws StoreUnavailableError when the database cannot be read (as do card and alias). */
  profile(slug: string, now = Date.now()): Promise<Page | undefined> {
    if (!SLUG_PATTERN.test(slug)) return Promise.resolve(undefined);
    return this.lookup<Page>(`p:${slug}`, now, async () => {
      const profile = this.deps.store.profile(slug);
      if (!profile) return undefined;
      // Kept until a link's time window opens or closes.
      return [await this.render(`/p/${slug}`, { profile, now: new Date(now).toISOString() }), nextLinkChange(profile.links, now)];
    });
  }

  /** The card's page, or its redirect target; undefined when there is no active card of that id. */
  card(cardId: string, now = Date.now()): Promise<CardFound | undefined> {
    if (!CARD_ID_PATTERN.test(cardId)) return Promise.resolve(undefined);
    return this.lookup<CardFound>(`c:${cardId}`, now, async () => {
      const card = this.deps.store.card(cardId);
      if (!card) return undefined;
      if (card.mode === 'page') return [{ page: await this.render(`/c/${cardId}`, { card, now: new Date(now).toISOString() }), card }];
      const target = safeHref(card.redirectUrl, WEB_SCHEMES);
      return target ? [{ redirect: target, card }] : undefined;
    });
  }

  /** The profile an alias leads to, when its owner is on the paid plan and published. */
  alias(alias: string, now = Date.now()): Promise<AliasFound | undefined> {
    if (!SLUG_PATTERN.test(alias) || isReservedSegment(alias)) return Promise.resolve(undefined);
    return this.lookup<AliasFound>(`a:${alias}`, now, async () => {
      const target = this.deps.store.alias(alias);
      return target && target.plan === 'paid' && target.published ? [{ slug: target.slug }] : undefined;
    });
  }

  /**
   * The entry cached under `key` for the store's current version, or what `find` makes of the database, cached
   * when found (until `expiresAt`). What is not found is not cached: unknown paths cannot fill the cache.
   */
  private async lookup<T extends Page | CardFound | AliasFound>(key: string, now: number, find: () => Promise<[value: T, expiresAt?: number] | undefined>): Promise<T | undefined> {
    const { store, cache } = this.deps;
    const version = store.version();
    const cached = cache.get(key, version, now);
    if (cached) return cached as T;
    const found = await find();
    if (!found) return undefined;
    cache.set(key, version, found[0], found[1]);
    return found[0];
  }

  /**
   * Renders the HTML now and its Markdown twin on first use: most visitors are people (a card scanned at a
   * meeting), and converting every rendered page to Markdown was most of a render's garbage.
   */
  private async render(path: string, locals: LiveLocals): Promise<Page> {
    const html = makeAsset(await this.deps.renderer.render(path, locals), HTML, CACHE.live);
    let markdown: Asset | undefined;
    return {
      html,
      get markdown() {
        markdown ??= makeAsset(Buffer.from(pageToMarkdown(html.body.toString('utf8'))), MARKDOWN, CACHE.live);
        return markdown;
      },
    };
  }
}

export function livePageRoutes(app: FastifyInstance, deps: Pick<LiveDeps, 'config' | 'site'> & { live: LivePages }): Fallback {
  const { config, site, live } = deps;

  const sendPage = (request: FastifyRequest, reply: FastifyReply, page: Page) => {
    reply.header('vary', 'Accept');
    return sendAsset(request, reply, prefersMarkdown(request.headers) ? page.markdown : page.html);
  };

  /** Runs a handler that reads the store; a database failure becomes a 503 error page, never a crash. */
  const guarded = async (request: FastifyRequest, reply: FastifyReply, path: string, handler: () => Promise<unknown>): Promise<FastifyReply> => {
    try {
      // (A reply is thenable: awaiting it waits for the response to be written, which sendAsset has done.)
      await handler();
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      request.log.warn({ err: err.message, path }, 'store unavailable');
      sendErrorPage(site, request, reply, 503, path);
    }
    return reply;
  };

  app.get<{ Params: { page: string } }>('/p/:page', (request, reply) =>
    guarded(request, reply, request.url, async () => {
      const page = await live.profile(request.params.page);
      return page ? sendPage(request, reply, page) : sendErrorPage(site, request, reply, 404, request.url);
    }),
  );

  app.get<{ Params: { card: string } }>('/c/:card', (request, reply) =>
    guarded(request, reply, request.url, async () => {
      const param = request.params.card;
      const wantsVcard = param.endsWith('.vcf');
      const found = await live.card(wantsVcard ? param.slice(0, -4) : param);
      if (!found) return sendErrorPage(site, request, reply, 404, request.url);
      if (found.redirect) {
        if (wantsVcard) return sendErrorPage(site, request, reply, 404, request.url);
        // Short-lived: the owner may point the card elsewhere, or back to its page, at any time.
        return reply.header('cache-control', 'public, max-age=60').redirect(found.redirect, 302);
      }
      if (wantsVcard) {
        const card = found.card;
        return reply
          .header('content-type', 'text/vcard; charset=utf-8')
          .header('content-disposition', contentDisposition(`${card.name ?? card.cardId}.vcf`, { fallback: vcardFileName(card) }))
          .header('cache-control', CACHE.live)
          .send(cardToVcard(card, absoluteUrl(config.baseUrl, `/c/${card.cardId}`)));
      }
      return found.page ? sendPage(request, reply, found.page) : sendErrorPage(site, request, reply, 404, request.url);
    }),
  );

  app.get('/blog', (request, reply) => {
    const lang: Lang = preferredLang(request.headers);
    return reply.header('vary', 'Accept-Language').header('cache-control', 'public, max-age=3600').redirect(absoluteUrl(config.baseUrl, paths.blogIndex(lang)), 302);
  });

  // /{alias}: a paid-plan owner's short path to their profile.
  return async (request, reply, path) => {
    const alias = path.slice(1);
    if (!SLUG_PATTERN.test(alias) || isReservedSegment(alias)) return false;
    await guarded(request, reply, path, async () => {
      const target = await live.alias(alias);
      if (!target) return sendErrorPage(site, request, reply, 404, path);
      return reply.header('cache-control', 'public, max-age=300').redirect(absoluteUrl(config.baseUrl, `/p/${target.slug}`), 302);
    });
    return true;
  };
}
