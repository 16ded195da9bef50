// Live pages from the store: profiles, cards (their page, vCard or redirect target) and aliases. A page is rendered
// once per store version and served from memory after that. Throws StoreUnavailableError when the database cannot
// be read: the HTTP app and the MCP server each map that in one place.
import { nextLinkChange, type Card, type LiveLocals } from '../../src/lib/live-content.ts';
import { pageToMarkdown } from '../../src/lib/markdown.ts';
import { safeHref, WEB_SCHEMES } from '../../src/lib/owner-input.ts';
import { CACHE, CARD_ID_PATTERN, SLUG_PATTERN } from '../../src/lib/surface.ts';
import { absoluteUrl, paths } from '../../src/lib/urls.ts';
import type { AstroRenderer } from '../astro-renderer.ts';
import type { LiveCache } from '../live-cache.ts';
import type { Store } from '../store/store.ts';
import { qrSvg } from '../qr.ts';
import { cardToVcard, type CardUrls } from '../vcard.ts';
import { makeAsset, type Asset, type Page } from './static-site.ts';

export interface LiveDeps {
  baseUrl: string;
  store: Store;
  renderer: AstroRenderer;
  cache: LiveCache<Page | CardFound | AliasFound | Asset>;
}

/** Where an alias leads: a published profile on the paid plan. */
export interface AliasFound {
  slug: string;
}

/** What a card id resolves to: its page and vCard, or the target it redirects to. */
export interface CardFound {
  page?: Page;
  vcard?: Asset;
  redirect?: string;
  card: Card;
}

const HTML = 'text/html; charset=utf-8';
const MARKDOWN = 'text/markdown; charset=utf-8';
const VCARD = 'text/vcard; charset=utf-8';
const SVG = 'image/svg+xml';

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
      const profile = await this.deps.store.profile(slug);
      if (!profile) return undefined;
      // Kept until a link's time window opens or closes.
      return [await this.render(paths.profile(slug), { profile, now: new Date(now).toISOString() }), nextLinkChange(profile.links, now)];
    });
  }

  /** The card's page, or its redirect target; undefined when there is no active card of that id. */
  card(cardId: string, now = Date.now()): Promise<CardFound | undefined> {
    if (!CARD_ID_PATTERN.test(cardId)) return Promise.resolve(undefined);
    return this.lookup<CardFound>(`c:${cardId}`, now, async () => {
      const card = await this.deps.store.card(cardId);
      if (!card) return undefined;
      if (card.mode === 'page') {
        const page = await this.render(paths.card(cardId), { card, now: new Date(now).toISOString() });
        const vcard = makeAsset(Buffer.from(cardToVcard(card, this.cardUrls(card))), VCARD, CACHE.live);
        return [{ page, vcard, card }];
      }
      const target = safeHref(card.redirectUrl, WEB_SCHEMES);
      return target ? [{ redirect: target, card }] : undefined;
    });
  }

  /** The QR code of a published profile's page (for print, or for showing on a screen). */
  profileQr(slug: string, now = Date.now()): Promise<Asset | undefined> {
    return this.lookup<Asset>(`pq:${slug}`, now, async () => ((await this.profile(slug, now)) ? [await this.qr(absoluteUrl(this.deps.baseUrl, paths.profile(slug)))] : undefined));
  }

  /** The QR code of an active card's page: our /c/{cardId}, also for a redirect-mode card (which redirects from there). */
  cardQr(cardId: string, now = Date.now()): Promise<Asset | undefined> {
    return this.lookup<Asset>(`cq:${cardId}`, now, async () => ((await this.card(cardId, now)) ? [await this.qr(absoluteUrl(this.deps.baseUrl, paths.card(cardId)))] : undefined));
  }

  /** The offline contact code of a page-mode card: the compact vCard itself, so a phone saves it with no network. */
  contactQr(cardId: string, now = Date.now()): Promise<Asset | undefined> {
    return this.lookup<Asset>(`vq:${cardId}`, now, async () => {
      const found = await this.card(cardId, now);
      return found?.page ? [await this.qr(cardToVcard(found.card, this.cardUrls(found.card), { compact: true }))] : undefined;
    });
  }

  /** The profile an alias leads to, when its owner is on the paid plan and published (the route checked the alias). */
  alias(alias: string, now = Date.now()): Promise<AliasFound | undefined> {
    return this.lookup<AliasFound>(`a:${alias}`, now, async () => {
      const target = await this.deps.store.alias(alias);
      return target && target.plan === 'paid' && target.published ? [{ slug: target.slug }] : undefined;
    });
  }

  /**
   * The entry cached under `key` for the store's current version, or what `find` makes of the database, cached
   * when found (until `expiresAt`). What is not found is not cached: unknown paths cannot fill the cache.
   */
  private async lookup<T extends Page | CardFound | AliasFound | Asset>(key: string, now: number, find: () => Promise<[value: T, expiresAt?: number] | undefined>): Promise<T | undefined> {
    const { store, cache } = this.deps;
    const version = await store.version();
    const cached = cache.get(key, version, now);
    if (cached) return cached as T;
    const found = await find();
    if (!found) return undefined;
    cache.set(key, version, found[0], found[1]);
    return found[0];
  }

  private async qr(text: string): Promise<Asset> {
    return makeAsset(Buffer.from(await qrSvg(text)), SVG, CACHE.live);
  }

  private cardUrls(card: Card): CardUrls {
    const { baseUrl } = this.deps;
    return { card: absoluteUrl(baseUrl, paths.card(card.cardId)), profile: card.profileSlug ? absoluteUrl(baseUrl, paths.profile(card.profileSlug)) : undefined };
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
