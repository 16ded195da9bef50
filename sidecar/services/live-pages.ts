// Live pages from the store: profiles, cards (their page, vCard, codes or redirect target) and aliases. A page is
// rendered once, in the render pool's threads (never on the event loop), and served from memory until the change log
// names it (or a link's time window moves). Throws StoreUnavailableError when the database cannot be read, and
// Overloaded when the pool has more waiting than it can do soon: the HTTP app and the MCP server each map those in
// one place.
import {
  cardAddresses,
  cardIn,
  languagesOf,
  nextLinkChange,
  profileAddresses,
  profileIn,
  type Card,
  type LiveLocals,
  type Profile,
} from '../../src/lib/live-content.ts';
import type { AiUse } from '../../src/lib/ai-preferences.ts';
import { LANGS, type Lang } from '../../src/lib/locales.ts';
import { cardRedirectProblem, safeHref, WEB_SCHEMES } from '../../src/lib/owner-input.ts';
import { typeOf } from '../../src/lib/media-types.ts';
import { pathOf, CACHE, CARD_ID_PATTERN, SLUG_PATTERN } from '../../src/lib/surface.ts';
import { businessCard, profileCard, type OgCard } from '../../src/lib/og.ts';
import { imageFile, OG_PHOTO_WIDTH, VCARD_PHOTO_WIDTH } from '../../src/lib/image-files.ts';
import type { LiveCache } from '../live-cache.ts';
import { asServer } from '../admission/clients.ts';
import { Overloaded } from '../admission/fair-slots.ts';
import type { RenderPool, Rendered } from '../render/render-pool.ts';
import type { Pressure } from '../admission/pressure.ts';
import type { Change, Store } from '../store/store.ts';
import { entityTag } from './entities.ts';
import type { Freshness, FreshnessEvent } from './freshness.ts';
import { cardToVcard, cardUrlsOf, contactCode } from '../vcard.ts';
import { cardLocals, profileLocals } from './live-locals.ts';
import { makeAsset, type Asset } from '../asset.ts';
import { qrInk, type Theme } from '../../src/lib/theme.ts';
import { HOST_LONGEST, type OwnerDomain } from '../../src/lib/owner-domains.ts';
import { OWNER_DOMAIN_CARDS, ownerDomainFile, type OwnerDomainFile } from './owner-domain-files.ts';

export interface LiveDeps {
  baseUrl: string;
  /** The site's name, drawn on the link previews' pictures. */
  serviceName: string;
  store: Store;
  freshness: Freshness;
  pool: RenderPool;
  cache: LiveCache<Cached>;
  /** Why no page should be made now (load shed), if anything: what is cached keeps being served. */
  pressure?: Pick<Pressure, 'refusal'> | undefined;
}

/** A live page: its HTML, and its Markdown twin, made on first use (most visitors are people, who never ask for it). */
export interface LivePage {
  html: Asset;
  markdown(): Promise<Asset>;
  /** When what it shows next changes by itself (ms: a link's window opening or closing), or Infinity. */
  freshUntil: number;
}

/** A published profile as the database holds it, and the languages it is in (its own first). */
export interface ProfileFound {
  profile: Profile;
  langs: Lang[];
}

/** Which of a record's languages to show (`langs`: its own first); undefined: none of them will do (404). */
export type LangPick = (langs: readonly Lang[]) => Lang | undefined;
/** The record's own language. */
export const primaryLang: LangPick = (langs) => langs[0];
/** Exactly `lang`, when the record is in it. */
export const exactly =
  (lang: Lang): LangPick =>
  (langs) =>
    langs.includes(lang) ? lang : undefined;

/** One language version of a profile's or card's page, and the languages there are. */
export interface VersionFound {
  page: LivePage;
  lang: Lang;
  langs: readonly Lang[];
  /** Its owner's choice for AI use of it (ai-preferences.ts), if they made one. */
  aiUse: AiUse | null;
}

/** Where an alias leads: a published profile on the paid plan. */
export interface AliasFound {
  slug: string;
}

/**
 * What a card id resolves to: a page-mode card's languages and vCard (its pages are made per language, on first use),
 * or the target it redirects to.
 */
export interface CardFound {
  langs: Lang[];
  vcard?: Asset;
  /** What the offline contact code holds (a page-mode card). */
  contact?: string;
  redirect?: string;
  card: Card;
}

/** The live answers' media types, from the one table of them. */
const HTML = typeOf('/x.html');
const MARKDOWN = typeOf('/x.md');
const VCARD = typeOf('/x.vcf');
const SVG = typeOf('/x.svg');
const PNG = typeOf('/x.png');

type Cached = LivePage | ProfileFound | CardFound | AliasFound | OwnerDomain | Asset;

/**
 * What a cached value holds, as the live cache counts it. A page counts its HTML twice over: its Markdown twin, made on
 * first use, is smaller than the HTML it is made from, with its compressed forms. A record read counts its text.
 */
function bytesOf(value: Cached): number {
  if ('html' in value) return 2 * value.html.held();
  if ('profile' in value) return 1024 + 2 * JSON.stringify(value.profile).length;
  if ('card' in value) return (value.vcard?.held() ?? 0) + 1024 + 2 * JSON.stringify(value.card).length;
  if ('slug' in value || 'host' in value) return 512;
  return value.held();
}

/**
 * A commit naming more entities than this (an import, a migration) has none of their pages made again as it is read:
 * each is made on its next visit, as an unchanged page is. One owner's edit names one to a few.
 */
const REMAKE_AT_MOST = 8;

/** The cache's key of one language version of a profile's or a card's page. */
const pageKey = (entity: Change, lang: Lang) => `${entity.kind === 'profile' ? 'p' : 'c'}:${entity.key}:${lang}`;

/** An asset of what the pool made, with the compressed forms it made (others are made on first use). */
const assetOf = (made: Rendered, type: string) => makeAsset(made.body, type, CACHE.live, undefined, made.forms);

export class LivePages {
  private readonly deps: LiveDeps;
  /** Lookups under way, by key: concurrent misses for one key share one query and one render. */
  private readonly inflight = new Map<string, Promise<unknown>>();
  /** Bumped by every eviction: a lookup that read the database before it must not cache what it read. */
  private evictions = 0;
  /** Pages rendered since start, and lookups the cache answered or did not (metrics read them). */
  renders = 0;
  hits = 0;
  misses = 0;

  constructor(deps: LiveDeps) {
    this.deps = deps;
    deps.freshness.listen((event) => this.evict(event));
  }

  /**
   * Forgets what `event` changed. The pages of it that were in the cache are made again at once, as the server's own
   * work (issue 65): a page kept was being read, and the edge that held it asks for it again the moment the purger's
   * purge lands, so its next visitor finds it made (or being made) instead of waiting for the render. Refused like any
   * other render when the server is under pressure; what is not made now is made on its next visit.
   */
  private evict(event: FreshnessEvent): void {
    this.evictions++;
    if (event.reset) return this.deps.cache.clear();
    const now = Date.now();
    const again = event.changes.length <= REMAKE_AT_MOST ? event.changes.flatMap((c) => this.pagesKept(c, now)) : [];
    for (const change of event.changes) this.deps.cache.deleteTagged(entityTag(change));
    asServer(() => {
      for (const make of again) make().catch(() => undefined);
    });
  }

  /** The language versions of `change`'s page in the cache now, each as the call that makes it again. */
  private pagesKept(change: Change, now: number): (() => Promise<unknown>)[] {
    if (change.kind === 'alias') return [];
    return LANGS.filter((lang) => this.deps.cache.get(pageKey(change, lang), now) !== undefined).map(
      (lang) => () =>
        change.kind === 'profile'
          ? this.profilePage(change.key, exactly(lang))
          : this.cardPage(change.key, exactly(lang)),
    );
  }

  /**
   * A published profile as read, and its languages; undefined when there is none. Throws StoreUnavailableError when
   * the database cannot be read (as does every lookup).
   */
  profile(slug: string, now = Date.now()): Promise<ProfileFound | undefined> {
    if (!SLUG_PATTERN.test(slug)) return Promise.resolve(undefined);
    return this.lookup<ProfileFound>(`p:${slug}`, { kind: 'profile', key: slug }, now, async () => {
      const profile = await this.deps.store.profile(slug);
      // Kept until a link's time window opens or closes.
      return profile ? [{ profile, langs: languagesOf(profile) }, nextLinkChange(profile.links, now)] : undefined;
    });
  }

  /** A profile's page in the language `pick` chooses among its languages; undefined when there is none. */
  async profilePage(slug: string, pick: LangPick = primaryLang, now = Date.now()): Promise<VersionFound | undefined> {
    const found = await this.profile(slug, now);
    const lang = found && pick(found.langs);
    if (!found || !lang) return undefined;
    const entity: Change = { kind: 'profile', key: slug };
    const page = await this.lookup<LivePage>(pageKey(entity, lang), entity, now, async () => {
      const locals = profileLocals(found.profile, lang, now);
      if (!locals) return undefined;
      // Astro renders every version with the profile's page (src/pages/p/[page].astro): the locals say which.
      const page = await this.render(
        pathOf('getProfilePage', { page: slug }),
        locals,
        nextLinkChange(found.profile.links, now),
      );
      return [page, page.freshUntil];
    });
    return page && { page, lang, langs: found.langs, aiUse: found.profile.aiUse };
  }

  /** The card's languages and vCard, or its redirect target; undefined when there is no active card of that id. */
  card(cardId: string, now = Date.now()): Promise<CardFound | undefined> {
    if (!CARD_ID_PATTERN.test(cardId)) return Promise.resolve(undefined);
    return this.lookup<CardFound>(`c:${cardId}`, { kind: 'card', key: cardId }, now, async () => {
      const card = await this.deps.store.card(cardId);
      if (!card) return undefined;
      const langs = languagesOf(card);
      if (card.mode === 'page') {
        const urls = cardUrlsOf(this.deps.baseUrl, card);
        const photo = card.photo
          ? await this.deps.store.image(imageFile(card.photo, VCARD_PHOTO_WIDTH, 'jpg'))
          : undefined;
        const vcard = makeAsset(Buffer.from(cardToVcard(card, urls, { photo })), VCARD, CACHE.live);
        return [{ langs, vcard, contact: contactCode(card, urls).text, card }];
      }
      // A redirect back to a card of this site (another writer's row; the import refuses it) would loop: not followed.
      const target = safeHref(card.redirectUrl, WEB_SCHEMES);
      return target && !cardRedirectProblem(target, this.deps.baseUrl)
        ? [{ langs, redirect: target, card }]
        : undefined;
    });
  }

  /** A page-mode card's page in the language `pick` chooses among its languages; undefined when there is none. */
  async cardPage(cardId: string, pick: LangPick = primaryLang, now = Date.now()): Promise<VersionFound | undefined> {
    const found = await this.card(cardId, now);
    const lang = found?.vcard && pick(found.langs);
    if (!found || !lang) return undefined;
    const entity: Change = { kind: 'card', key: cardId };
    const page = await this.lookup<LivePage>(pageKey(entity, lang), entity, now, async () => {
      const locals = cardLocals(this.deps.baseUrl, found.card, lang, now);
      if (!locals) return undefined;
      const page = await this.render(pathOf('getDigitalCard', { cardId }), locals);
      return [page, page.freshUntil];
    });
    return page && { page, lang, langs: found.langs, aiUse: found.card.aiUse };
  }

  /**
   * What the owner of `entity` (a profile or a card) chose for AI use of everything of theirs (ai-preferences.ts),
   * or null when they said nothing or there is no such owner: read from the records the cache holds.
   */
  async aiUseOf(entity: Change, now = Date.now()): Promise<AiUse | null> {
    if (entity.kind === 'profile') return (await this.profile(entity.key, now))?.profile.aiUse ?? null;
    if (entity.kind === 'card') return (await this.card(entity.key, now))?.card.aiUse ?? null;
    return null;
  }

  /**
   * The link preview's picture of a published profile in one of its languages (og.ts `profileCard`; by default its
   * own), drawn in the pool's threads.
   */
  async profileOg(slug: string, lang?: Lang, now = Date.now()): Promise<Asset | undefined> {
    const found = await this.profile(slug, now);
    const version = found && profileIn(found.profile, lang ?? found.profile.lang);
    if (!version) return undefined;
    return this.lookup<Asset>(`po:${slug}:${version.lang}`, { kind: 'profile', key: slug }, now, async () => [
      await this.og(profileCard(this.deps, version)),
    ]);
  }

  /** The link preview's picture of a page-mode card in one of its languages (og.ts `businessCard`); a redirect-mode card has none. */
  async cardOg(cardId: string, lang?: Lang, now = Date.now()): Promise<Asset | undefined> {
    const found = await this.card(cardId, now);
    const version = found?.vcard && cardIn(found.card, lang ?? found.card.lang);
    if (!version) return undefined;
    return this.lookup<Asset>(`co:${cardId}:${version.lang}`, { kind: 'card', key: cardId }, now, async () => [
      await this.og(businessCard(this.deps, version)),
    ]);
  }

  /** A link preview's picture, drawn with the owner's picture when there is one. */
  private async og(card: OgCard): Promise<Asset> {
    const picture = card.picture
      ? await this.deps.store.image(imageFile(card.picture, OG_PHOTO_WIDTH, 'jpg'))
      : undefined;
    return assetOf(await this.deps.pool.og(card, PNG, picture), PNG);
  }

  /** The QR code of a published profile's page (for print, or for showing on a screen). */
  profileQr(slug: string, now = Date.now()): Promise<Asset | undefined> {
    return this.lookup<Asset>(`pq:${slug}`, { kind: 'profile', key: slug }, now, async () => {
      const found = await this.profile(slug, now);
      return found
        ? [
            await this.qr(
              profileAddresses(this.deps.baseUrl, found.profile).url(pathOf('getProfilePage', { page: slug })),
              found.profile.theme,
            ),
          ]
        : undefined;
    });
  }

  /** The QR code of an active card's page: our /c/{cardId}, also for a redirect-mode card (which redirects from there). */
  cardQr(cardId: string, now = Date.now()): Promise<Asset | undefined> {
    return this.lookup<Asset>(`cq:${cardId}`, { kind: 'card', key: cardId }, now, async () => {
      const found = await this.card(cardId, now);
      return found
        ? [
            await this.qr(
              cardAddresses(this.deps.baseUrl, found.card).url(pathOf('getDigitalCard', { cardId })),
              found.card.theme,
            ),
          ]
        : undefined;
    });
  }

  /** The offline contact code of a page-mode card: a vCard itself, so a phone saves it with no network. */
  contactQr(cardId: string, now = Date.now()): Promise<Asset | undefined> {
    return this.lookup<Asset>(`vq:${cardId}`, { kind: 'card', key: cardId }, now, async () => {
      const found = await this.card(cardId, now);
      return found?.contact ? [await this.qr(found.contact, found.card.theme)] : undefined;
    });
  }

  /** The profile an alias leads to, when its owner is on the paid plan and published (the route checked the alias). */
  alias(alias: string, now = Date.now()): Promise<AliasFound | undefined> {
    return this.lookup<AliasFound>(`a:${alias}`, { kind: 'alias', key: alias }, now, async () => {
      const target = await this.deps.store.alias(alias);
      return target && target.plan === 'paid' && target.published ? [{ slug: target.slug }] : undefined;
    });
  }

  /**
   * The profile whose own domain `host` is (owner-domains.ts), while it is published; undefined when none is. Kept
   * until that profile changes (its domain moved or dropped); a host no profile has is asked of the database each
   * time, as an unknown slug is, so that a domain given a moment ago answers at once.
   */
  domain(host: string, now = Date.now()): Promise<OwnerDomain | undefined> {
    if (host.length > HOST_LONGEST) return Promise.resolve(undefined);
    return this.lookup<OwnerDomain>(
      `d:${host}`,
      (found) => ({ kind: 'profile', key: found.page }),
      now,
      async () => {
        const found = await this.deps.store.domain(host);
        return found && [found];
      },
    );
  }

  /** A file an owner's domain answers itself (its robots.txt, sitemap.xml, llms.txt), kept until the profile changes. */
  async domainFile(domain: OwnerDomain, path: OwnerDomainFile, now = Date.now()): Promise<Asset | undefined> {
    return this.lookup<Asset>(`df:${domain.host}:${path}`, { kind: 'profile', key: domain.page }, now, async () => {
      const found = await this.profile(domain.page, now);
      if (!found) return undefined;
      // The cards the domain takes (a thousand at most: one owner's, not a catalogue).
      const cards = domain.cards ? await this.deps.store.cardsOfProfile(domain.page, OWNER_DOMAIN_CARDS) : [];
      const { type, text } = await ownerDomainFile(path, domain, found.profile, this.deps.baseUrl, cards);
      return [makeAsset(Buffer.from(text), type, CACHE.live)];
    });
  }

  /**
   * Refuses (Overloaded) a request of a profile's or a card's that the render threads would refuse this client now
   * (its line the longest of lines that fill every place: render-pool.ts `refusal`), before its record is read. A
   * record in the cache costs nothing to read and is not judged here; one that is not would cost a database read, then
   * the render's refusal anyway. Under five addresses crawling never-drawn pictures on a PostgreSQL standby, those
   * reads were most of the attack's cost: a read, then a 503, hundreds a second (issue 60). A client with no line, or
   * a shorter one, is never refused here.
   */
  refuseBeforeReading(entity: { kind: 'profile' | 'card'; key: string }, now = Date.now()): void {
    if (this.deps.cache.get(`${entity.kind === 'profile' ? 'p' : 'c'}:${entity.key}`, now) !== undefined) return;
    const why = this.deps.pool.refusal();
    if (why) throw new Overloaded(why);
  }

  /**
   * The entry cached under `key`, once the cache knows every change in the database, or what `find` makes of the
   * database, cached when found (until `expiresAt`) and tagged with the entity it shows, whose change evicts it.
   * What is not found is not cached: unknown paths cannot fill the cache.
   */
  private async lookup<T extends Cached>(
    key: string,
    entity: Change | ((found: T) => Change),
    now: number,
    find: () => Promise<[value: T, expiresAt?: number] | undefined>,
  ): Promise<T | undefined> {
    const { freshness, cache } = this.deps;
    await freshness.sync(now);
    const cached = cache.get(key, now);
    if (cached) {
      this.hits++;
      return cached as T;
    }
    this.misses++;
    const running = this.inflight.get(key);
    if (running) return running as Promise<T | undefined>;
    const why = this.deps.pressure?.refusal();
    if (why) throw new Overloaded(why);
    const evictions = this.evictions;
    const lookup = find()
      .then((found) => {
        if (!found) return undefined;
        const tag = entityTag(typeof entity === 'function' ? entity(found[0]) : entity);
        if (evictions === this.evictions) cache.set(key, found[0], found[1], tag, bytesOf(found[0]));
        return found[0];
      })
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, lookup);
    return lookup;
  }

  /** A QR code of `text`, in the owner's accent when `theme` has one (darkened until it scans: theme.ts qrInk). */
  private async qr(text: string, theme: Theme | null): Promise<Asset> {
    return assetOf(await this.deps.pool.qr(text, SVG, theme ? qrInk(theme) : undefined), SVG);
  }

  /**
   * Renders the HTML now and its Markdown twin on first use: most visitors are people (a card scanned at a
   * meeting), and converting every rendered page to Markdown doubled a render's cost. Both in the pool's threads.
   */
  private async render(path: string, locals: LiveLocals, linksChange = Infinity): Promise<LivePage> {
    this.renders++;
    const { pool } = this.deps;
    const made = await pool.page(path, locals, HTML);
    const html = assetOf(made, HTML);
    if (made.styleHashes) html.styleHashes = made.styleHashes;
    let markdown: Promise<Asset> | undefined;
    return {
      html,
      // A link's window, or the place's hours (read where the page was made).
      freshUntil: Math.min(linksChange, made.freshUntil ?? Infinity),
      markdown() {
        markdown ??= pool.markdown(html.body, MARKDOWN).then((made) => assetOf(made, MARKDOWN));
        // A conversion refused (the pool is busy) is not kept: the next request tries again.
        markdown.catch(() => (markdown = undefined));
        return markdown;
      },
    };
  }
}
