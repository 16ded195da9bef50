// The site reader: what any GET path of the surface resolves to (a static page or file, a live page, a redirect, a
// document, or nothing), for the HTTP router and the MCP tool read_page alike, so that the tool reads exactly what
// a browser gets without re-entering the router. The live routes it dispatches are those declared in surface.ts,
// one handler each (the compiler refuses a declared live route without one). Throws StoreUnavailableError when the
// database cannot be read; each caller maps that in one place.
import type { RunningBuild } from '../version.ts';
import { create as contentDisposition } from 'content-disposition';
import { CONTENT_USAGE, contentUsageOf } from '../../src/lib/ai-preferences.ts';
import { alternateLink, homepageLinks, siteLinks } from '../../src/lib/discovery.ts';
import {
  CACHE,
  corsOf,
  DEFAULT_LANG,
  LANGS,
  OWN_LANGUAGE_HEADER,
  pathOf,
  ROUTES,
  routeIds,
  routeMatcher,
  type Lang,
  type ParamsOf,
  type RouteId,
  type RouteMatch,
} from '../../src/lib/surface.ts';
import {
  absoluteUrl,
  isErrorPagePath,
  pageOfTwin,
  paths,
  twinPath,
  withoutTrailingSlashes,
} from '../../src/lib/urls.ts';
import type { Change, Store } from '../store/store.ts';
import { vcardFileName } from '../vcard.ts';
import { exactly, type LangPick, type LivePages, type VersionFound } from './live-pages.ts';
import { preferredAmong } from '../negotiation.ts';
import type { Sitemap } from './sitemap.ts';
import type { Pressure } from '../admission/pressure.ts';
import { makeAsset, type Asset } from '../asset.ts';
import { imageFileType } from '../../src/lib/image-files.ts';
import type { StaticSite } from './static-site.ts';
import { domainOfProfile } from '../../src/lib/live-content.ts';
import {
  addressesOf,
  domainOrigin,
  hostProblem,
  isPageAsset,
  isPlatformHost,
  pathOnDomain,
  platformPathOf,
  type OwnerDomain,
} from '../../src/lib/owner-domains.ts';
import { isOwnerDomainFile } from './owner-domain-files.ts';

/** What the request asks for: decided from Accept and Accept-Language by the caller. */
export interface ReadPreferences {
  markdown: boolean;
  /** The site's language the visitor prefers (the default when none): /blog's choice. */
  lang: Lang;
  /** Accept-Language as sent, for the printed addresses of profiles and cards in two languages; none: their own. */
  acceptLanguage?: string | undefined;
  /** The owner's domain the request came to (set by the reader from ReadOptions.host): its pages' addresses are there. */
  on?: OwnerDomain | undefined;
}

export type Resolution = (
  | { kind: 'asset'; asset: Asset; headers: Record<string, string> }
  /**
   * `location` is absolute; `sitePath` is its path and query when this site serves it (read_page follows those), at
   * `host` when that is an owner's domain.
   */
  | {
      kind: 'redirect';
      status: 301 | 302;
      location: string;
      sitePath?: string;
      host?: string;
      headers: Record<string, string>;
    }
  /** Computed per request and never cached (health). */
  | { kind: 'document'; status: number; type: string; body: string; headers: Record<string, string> }
  | { kind: 'not-found' }
  /** A Host that is neither the platform's nor any owner's domain: 421 (RFC 9110), never another owner's page. */
  | { kind: 'misdirected' }
) & {
  /** The declared path of the live route that answered (`/p/{page}`), for the request log. */
  route?: string;
  /** The entity a live answer was built from (services/entities.ts): edges keep it until the change log names it. */
  entity?: Change | undefined;
  /** When the answer's content next changes by itself (ms; a link's window): no cache may keep it past that. */
  freshUntil?: number | undefined;
};

export interface ReadOptions {
  /** Whether files of the build are answered (a front serves them in production; read_page always reads them). */
  staticFiles: boolean;
  /** The URL as sent, still percent-encoded: a trailing-slash redirect keeps it. Defaults to the path. */
  rawUrl?: string;
  /** Told the declared route as soon as the path matches one, before its answer is made (which may fail or shed). */
  onRoute?: (route: string) => void;
  /**
   * The request's host (lower case, no port): the platform's (BASE_URL's, an address, a name of one label) or an
   * owner's domain (owner-domains.ts). None: the platform's (read_page).
   */
  host?: string | undefined;
}

/** The routes the sidecar answers itself: the live ones (from the database) and its operations' (/health). */
type AnsweredRouteId = {
  [K in RouteId]: (typeof ROUTES)[K]['served'] extends 'live' | 'operations' ? K : never;
}[RouteId];
/** One handler a route the sidecar answers, receiving the parameters its path template names (`{ page }`, `{ cardId }`), typed. */
type Handlers = { [Id in AnsweredRouteId]: (params: ParamsOf<Id>, prefs: ReadPreferences) => Promise<Resolution> };

/** The declared GET routes the sidecar answers itself, matched by the declaration's one matcher. */
const ANSWERED_ROUTE_IDS = routeIds(
  (r) => r.method === 'GET' && (r.served === 'live' || r.served === 'operations'),
) as AnsweredRouteId[];
const matchAnswered = routeMatcher(ANSWERED_ROUTE_IDS);
/** Paths the sidecar answers itself even when the build has a file there (the build's sitemap.xml is its static part). */
const ANSWERED_FIXED_PATHS: ReadonlySet<string> = new Set(
  ANSWERED_ROUTE_IDS.map((id) => ROUTES[id].path as string).filter((path) => !path.includes('{')),
);

export interface SiteReaderDeps {
  baseUrl: string;
  serviceName: string;
  site: StaticSite;
  live: LivePages;
  sitemap: Sitemap;
  store: Store;
  /** Why the process sheds load now, if it does: /health says so. */
  pressure?: Pick<Pressure, 'why'> | undefined;
  /** What runs (version.ts): /livez says it. */
  running: RunningBuild;
}
const VARY_ACCEPT = { vary: 'Accept' };
const asset = (found: Asset | undefined, entity?: Change): Resolution =>
  found ? { kind: 'asset', asset: found, headers: {}, entity } : { kind: 'not-found' };

/** The routes of a profile or a card whose answer the render threads make (a page, its twin, a picture, a code). */
const RENDERED: ReadonlySet<AnsweredRouteId> = new Set<AnsweredRouteId>([
  'getProfilePage',
  'getProfilePageInLanguage',
  'getProfilePageMarkdown',
  'getProfilePageInLanguageMarkdown',
  'getDigitalCard',
  'getDigitalCardInLanguage',
  'getDigitalCardMarkdown',
  'getDigitalCardInLanguageMarkdown',
  'getProfileOgImage',
  'getProfileOgImageInLanguage',
  'getDigitalCardOgImage',
  'getDigitalCardOgImageInLanguage',
  'getProfileQr',
  'getDigitalCardQr',
  'getDigitalCardContactQr',
]);

export class SiteReader {
  private readonly handlers: Handlers;
  private readonly homepages: ReadonlySet<string>;
  /** The Link headers pages answer with (discovery.ts): the site's, the homepages' (rule L), llms.txt's. */
  private readonly links: { site: string; home: string; llms: string };

  private readonly deps: SiteReaderDeps;
  /** The platform's host (BASE_URL's): it and the names under it are never an owner's domain. */
  private readonly platformHost: string;

  constructor(deps: SiteReaderDeps) {
    this.deps = deps;
    this.platformHost = new URL(deps.baseUrl).hostname;
    const { baseUrl, live, sitemap } = deps;
    this.homepages = new Set(LANGS.map(paths.home));
    this.links = { site: siteLinks(deps), home: homepageLinks(deps), llms: siteLinks(deps, { describedBy: false }) };
    /**
     * A language version of a live page, in the representation asked for. At the printed address (`printed`, the path
     * asked: /p/{page}) a record in two languages answers the one Accept-Language prefers (its own when it prefers
     * neither): that answer varies on Accept-Language and names the version's own address in Content-Location.
     */
    const version = async (
      found: VersionFound | undefined,
      markdown: boolean,
      path: string,
      entity: Change,
      printed?: { versionPath: string },
      on?: OwnerDomain,
    ): Promise<Resolution> => {
      if (!found) return { kind: 'not-found' };
      const headers: Record<string, string> = {
        ...this.pageHeaders(path, markdown, this.links.site, on),
        'content-language': found.lang,
        // The owner's choice for AI use of their page, the site's where they said nothing (issue 63).
        'content-usage': contentUsageOf(found.aiUse),
      };
      if (printed && found.langs.length > 1) {
        headers.vary = 'Accept, Accept-Language';
        const located = markdown ? twinPath(printed.versionPath) : printed.versionPath;
        headers['content-location'] = on ? (pathOnDomain(on, located) ?? located) : located;
        headers[OWN_LANGUAGE_HEADER] = found.langs[0]!;
      }
      const freshUntil = found.page.freshUntil;
      return {
        kind: 'asset',
        asset: markdown ? await found.page.markdown() : found.page.html,
        headers,
        entity,
        ...(freshUntil < Infinity ? { freshUntil } : {}),
      };
    };
    /** The language a printed address answers in: the visitor's among the record's, else the record's own. */
    const visitors =
      (prefs: ReadPreferences): LangPick =>
      (langs) =>
        preferredAmong(prefs.acceptLanguage, langs) ?? langs[0];
    /** What an owner's record makes (a picture, a code): with their choice for AI use of it (issue 63). */
    const owners = async (found: Asset | undefined, entity: Change): Promise<Resolution> =>
      found
        ? {
            kind: 'asset',
            asset: found,
            headers: { 'content-usage': contentUsageOf(await live.aiUseOf(entity)) },
            entity,
          }
        : { kind: 'not-found' };
    const profileEntity = (key: string): Change => ({ kind: 'profile', key });
    const cardEntity = (key: string): Change => ({ kind: 'card', key });
    /** The version a printed address (`path`) answers with, naming its own address (`inLanguage`). */
    const printedVersion = (
      found: VersionFound | undefined,
      prefs: ReadPreferences,
      path: string,
      entity: Change,
      inLanguage: (lang: Lang) => string,
    ) => version(found, prefs.markdown, path, entity, { versionPath: found ? inLanguage(found.lang) : path }, prefs.on);
    /** A page-mode card's page at its printed address /c/{cardId}, in the visitor's language. */
    const cardPage = async (cardId: string, prefs: ReadPreferences): Promise<Resolution> =>
      printedVersion(
        await live.cardPage(cardId, visitors(prefs)),
        prefs,
        pathOf('getDigitalCard', { cardId }),
        cardEntity(cardId),
        (lang) => pathOf('getDigitalCardInLanguage', { cardId, lang }),
      );
    this.handlers = {
      getProfilePage: async ({ page }, prefs) =>
        printedVersion(
          await live.profilePage(page, visitors(prefs)),
          prefs,
          pathOf('getProfilePage', { page }),
          profileEntity(page),
          (lang) => pathOf('getProfilePageInLanguage', { page, lang }),
        ),
      getProfilePageInLanguage: async ({ page, lang }, prefs) =>
        version(
          await live.profilePage(page, exactly(lang as Lang)),
          prefs.markdown,
          pathOf('getProfilePageInLanguage', { page, lang }),
          profileEntity(page),
          undefined,
          prefs.on,
        ),
      // A twin at a URL of its own answers as the negotiated Markdown of its page does.
      getProfilePageMarkdown: (params, prefs) => this.handlers.getProfilePage(params, { ...prefs, markdown: true }),
      getProfilePageInLanguageMarkdown: (params, prefs) =>
        this.handlers.getProfilePageInLanguage(params, { ...prefs, markdown: true }),
      getDigitalCardMarkdown: ({ cardId }, prefs) => cardPage(cardId, { ...prefs, markdown: true }),
      getDigitalCardInLanguageMarkdown: (params, prefs) =>
        this.handlers.getDigitalCardInLanguage(params, { ...prefs, markdown: true }),
      getDigitalCard: async ({ cardId }, prefs) => {
        const found = await live.card(cardId);
        if (found?.redirect)
          return {
            kind: 'redirect',
            status: 302,
            location: found.redirect,
            headers: { 'cache-control': CACHE.cardRedirect },
            entity: cardEntity(cardId),
          };
        return cardPage(cardId, prefs);
      },
      getDigitalCardInLanguage: async ({ cardId, lang }, prefs) =>
        version(
          await live.cardPage(cardId, exactly(lang as Lang)),
          prefs.markdown,
          pathOf('getDigitalCardInLanguage', { cardId, lang }),
          cardEntity(cardId),
          undefined,
          prefs.on,
        ),
      getDigitalCardVcard: async ({ cardId }) => {
        const found = await live.card(cardId);
        if (!found?.vcard) return { kind: 'not-found' };
        const name = found.card.name ?? found.card.cardId;
        return {
          kind: 'asset',
          asset: found.vcard,
          headers: {
            'content-disposition': contentDisposition(`${name}.vcf`, { fallback: vcardFileName(found.card) }),
            'content-usage': contentUsageOf(found.card.aiUse),
          },
          entity: { kind: 'card', key: cardId },
        };
      },
      // An image's file from the database, whose name says what it is: kept by every cache for a year, never purged.
      getImage: async ({ image }) => {
        const type = imageFileType(image);
        const bytes = type ? await deps.store.image(image) : undefined;
        return type && bytes ? asset(makeAsset(bytes, type, CACHE.immutable)) : { kind: 'not-found' };
      },
      getProfileOgImage: async ({ page }) => owners(await live.profileOg(page), profileEntity(page)),
      getProfileOgImageInLanguage: async ({ page, lang }) =>
        owners(await live.profileOg(page, lang as Lang), profileEntity(page)),
      getDigitalCardOgImage: async ({ cardId }) => owners(await live.cardOg(cardId), cardEntity(cardId)),
      getDigitalCardOgImageInLanguage: async ({ cardId, lang }) =>
        owners(await live.cardOg(cardId, lang as Lang), cardEntity(cardId)),
      getProfileQr: async ({ page: slug }) => owners(await live.profileQr(slug), profileEntity(slug)),
      getDigitalCardQr: async ({ cardId }) => owners(await live.cardQr(cardId), cardEntity(cardId)),
      getDigitalCardContactQr: async ({ cardId }) => owners(await live.contactQr(cardId), cardEntity(cardId)),
      getBlogForPreferredLanguage: async (_params, prefs) =>
        siteRedirect(baseUrl, 302, pathOf('listBlogArticles', { lang: prefs.lang }), {
          vary: 'Accept-Language',
          'cache-control': CACHE.languageRedirect,
        }),
      getSitemap: async () => ({ kind: 'asset', asset: await sitemap.index(), headers: {} }),
      getSitemapPart: async ({ n }) => {
        const part = await sitemap.part(Number(n));
        return part ? { kind: 'asset', asset: part, headers: {} } : { kind: 'not-found' };
      },
      getHealth: async () => this.health(),
      // Liveness (#50): the process answers; nothing asked of the database or the render threads.
      getLiveness: async () => ({
        kind: 'document',
        status: 200,
        type: 'application/json; charset=utf-8',
        body: JSON.stringify({ status: 'alive', ...this.deps.running }),
        headers: { 'cache-control': CACHE.none },
      }),
      getProfileAlias: async ({ alias }) => {
        const target = await live.alias(alias);
        return target
          ? {
              ...siteRedirect(baseUrl, 302, pathOf('getProfilePage', { page: target.slug }), {
                'cache-control': CACHE.alias,
              }),
              entity: { kind: 'alias', key: alias },
            }
          : { kind: 'not-found' };
      },
    };
  }

  /** What `path` (decoded and checked: no dot segments, NUL or backslash) resolves to for these preferences. */
  async resolve(path: string, prefs: ReadPreferences, options: ReadOptions): Promise<Resolution> {
    const host = options.host;
    if (this.isPlatformHost(host)) return this.resolveOnPlatform(path, { ...prefs, on: undefined }, options);
    if (hostProblem(host!) !== undefined) return { kind: 'misdirected' };
    return this.resolveOnDomain(host!, path, prefs, options);
  }

  /** Whether `host` (a request's, lower case, no port) is the platform's (owner-domains.ts isPlatformHost). */
  isPlatformHost(host: string | undefined): boolean {
    return isPlatformHost(host, this.platformHost);
  }

  /**
   * A request to an owner's domain (owner-domains.ts): the profile's paths there stand for its routes (and its cards'
   * where the domain takes them), its robots.txt, sitemap.xml and llms.txt are its own, the build's page assets are
   * served as on the platform, and nothing else is there. A host no profile has is misdirected.
   */
  private async resolveOnDomain(
    host: string,
    path: string,
    prefs: ReadPreferences,
    options: ReadOptions,
  ): Promise<Resolution> {
    const domain = await this.deps.live.domain(host);
    if (!domain) return { kind: 'misdirected' };
    if (path.includes('%2F')) return { kind: 'not-found' };
    if (path.length > 1 && path.endsWith('/'))
      return {
        kind: 'redirect',
        status: 301,
        location: canonicalWithoutTrailingSlash(domainOrigin(host), options.rawUrl ?? path).href,
        headers: {},
      };
    if (isOwnerDomainFile(path)) {
      const file = await this.deps.live.domainFile(domain, path);
      return file
        ? { kind: 'asset', asset: file, headers: {}, entity: { kind: 'profile', key: domain.page } }
        : { kind: 'not-found' };
    }
    const platform = platformPathOf(domain, path);
    if (platform !== undefined) return this.resolveOnPlatform(platform, { ...prefs, on: domain }, options);
    const file = options.staticFiles && isPageAsset(path) ? this.deps.site.files.get(path) : undefined;
    return file ? { kind: 'asset', asset: file, headers: {} } : { kind: 'not-found' };
  }

  /** A platform path, asked at the platform's address or (`prefs.on`) at an owner's domain that stands for it. */
  private async resolveOnPlatform(path: string, prefs: ReadPreferences, options: ReadOptions): Promise<Resolution> {
    // An encoded slash, kept encoded by the path's judgement (request-path.ts), names nothing: not even a trailing slash.
    if (path.includes('%2F')) return { kind: 'not-found' };
    if (prefs.on) return this.answerLive(path, prefs, options);
    if (path.length > 1 && path.endsWith('/')) {
      const canonical = canonicalWithoutTrailingSlash(this.deps.baseUrl, options.rawUrl ?? path);
      // The default language's prefix goes where it goes (below) in the same hop: /en/ to /, not to /en and on.
      if (canonical.pathname === DEFAULT_LANGUAGE_PREFIX) canonical.pathname = paths.home(DEFAULT_LANG);
      return {
        kind: 'redirect',
        status: 301,
        location: canonical.href,
        sitePath: canonical.pathname + canonical.search,
        headers: {},
      };
    }
    // The default language's home is the site's root: its prefix alone (/en, as /ar is Arabic's home) is sent there
    // for good (issue 62: it was 404).
    if (path === DEFAULT_LANGUAGE_PREFIX) return siteRedirect(this.deps.baseUrl, 301, paths.home(DEFAULT_LANG), {});
    // Error pages are answered with their status, never addressed themselves (/en/404, /en/404.md).
    if (isErrorPagePath(path)) return { kind: 'not-found' };
    if (options.staticFiles && !ANSWERED_FIXED_PATHS.has(path)) {
      const page = this.deps.site.pages.get(path);
      if (page) {
        const headers = this.pageHeaders(
          path,
          prefs.markdown,
          this.homepages.has(path) ? this.links.home : this.links.site,
        );
        return { kind: 'asset', asset: prefs.markdown ? page.markdown : page.html, headers };
      }
      const file = path.endsWith('.html') ? undefined : this.deps.site.files.get(path);
      if (file) {
        // Discovery documents are public and read by agents running in browsers, on any origin.
        const headers: Record<string, string> = corsOf(path) ? { 'access-control-allow-origin': '*' } : {};
        // A page's twin at its own URL answers as the page's Markdown does.
        const twinOf = pageOfTwin(path);
        if (twinOf !== undefined && this.deps.site.pages.has(twinOf))
          Object.assign(
            headers,
            this.pageHeaders(twinOf, true, this.homepages.has(twinOf) ? this.links.home : this.links.site),
          );
        if (path === pathOf('getLlmsTxt')) headers.link = this.links.llms;
        return { kind: 'asset', asset: file, headers };
      }
    }
    return this.answerLive(path, prefs, options);
  }

  /** A live route's answer at its page's home: elsewhere, a 301 there (the platform's address) or nothing (a domain). */
  private async answerLive(path: string, prefs: ReadPreferences, options: ReadOptions): Promise<Resolution> {
    // A parameter its declaration refuses names nothing (a slug with capitals, a card id too long).
    const match = this.matchAnswered(path);
    if (!match) return { kind: 'not-found' };
    options.onRoute?.(match.route.path);
    const away = await this.awayFromHome(match, path, prefs.on, options.rawUrl);
    if (away) return { ...away, route: match.route.path };
    return { ...(await this.answer(match, prefs)), route: match.route.path };
  }

  /**
   * What a route of a profile or a card answers when asked away from the page's home (owner-domains.ts): at the
   * platform's address of a page that lives at its owner's domain, a 301 there (one canonical address; a printed code
   * still leads to it), kept five minutes and purged with the profile; at a domain, for a page that is not its,
   * nothing. Undefined: asked at home (or a route of no one's page), answered as it is.
   */
  private async awayFromHome(
    match: RouteMatch<AnsweredRouteId>,
    path: string,
    on: OwnerDomain | undefined,
    rawUrl: string | undefined,
  ): Promise<Resolution | undefined> {
    const params = match.params as Readonly<Record<string, string>>;
    let home: OwnerDomain | null;
    let entity: Change;
    // What the render threads would refuse is refused before the record is read (live-pages.ts).
    if (RENDERED.has(match.id))
      this.deps.live.refuseBeforeReading(
        params.page !== undefined ? { kind: 'profile', key: params.page } : { kind: 'card', key: params.cardId! },
      );
    if (params.page !== undefined) {
      const found = await this.deps.live.profile(params.page);
      // A language the profile is not in is nowhere: not a redirect to a page that is not there either.
      if (!found || (params.lang !== undefined && !found.langs.includes(params.lang as Lang)))
        return { kind: 'not-found' };
      home = domainOfProfile(found.profile);
      entity = { kind: 'profile', key: params.page };
    } else if (params.cardId !== undefined) {
      const found = await this.deps.live.card(params.cardId);
      if (!found || (params.lang !== undefined && !found.langs.includes(params.lang as Lang)))
        return { kind: 'not-found' };
      home = found.card.profileDomain?.cards ? found.card.profileDomain : null;
      entity = { kind: 'card', key: params.cardId };
    } else return on && match.id !== 'getImage' ? { kind: 'not-found' } : undefined;
    if (on) return home?.host === on.host ? undefined : { kind: 'not-found' };
    if (!home) return undefined;
    const q = rawUrl?.indexOf('?') ?? -1;
    const there = pathOnDomain(home, q === -1 ? path : `${path}${rawUrl!.slice(q)}`) ?? '/';
    return {
      kind: 'redirect',
      status: 301,
      location: absoluteUrl(domainOrigin(home.host), there),
      sitePath: there,
      host: home.host,
      headers: { 'cache-control': CACHE.alias },
      entity,
    };
  }

  /** The matched route's handler, with the parameters its template names. */
  private answer(match: RouteMatch<AnsweredRouteId>, prefs: ReadPreferences): Promise<Resolution> {
    // A match's id and parameters belong to one route; TypeScript does not relate the two members of the union.
    const handler = this.handlers[match.id] as (
      params: typeof match.params,
      prefs: ReadPreferences,
    ) => Promise<Resolution>;
    return handler(match.params, prefs);
  }

  /** The declared live route of `path`, remembered: matching tried a dozen patterns and their parameters' schemas. */
  private readonly matches = new BoundedMemo<ReturnType<typeof matchAnswered>>();
  private matchAnswered(path: string): ReturnType<typeof matchAnswered> {
    return this.matches.get(path, () => matchAnswered(path));
  }

  /**
   * What every HTML and Markdown page answers with besides its body: Vary, the links to the discovery documents and to
   * its other representation (discovery.ts), and the site's one preference for AI use (ai-preferences.ts).
   */
  private pageHeaders(path: string, markdown: boolean, links: string, on?: OwnerDomain): Record<string, string> {
    // Made once a page and form, then kept (answers copy them): parsing the URL for the link cost a twentieth of a
    // cached page's answer.
    return this.headersMemo.get(
      `${markdown ? 'md' : 'html'} ${links === this.links.home ? 'home' : 'site'} ${on?.host ?? ''} ${path}`,
      () => {
        // The other representation at a URL of its own: the twin of an HTML page, the page of a Markdown answer (at
        // the owner's domain, where the page is served there).
        const other = addressesOf(this.deps.baseUrl, on, on !== undefined).url(markdown ? path : twinPath(path));
        return {
          ...VARY_ACCEPT,
          link: `${links}, ${alternateLink(other, markdown ? 'text/html' : 'text/markdown')}`,
          'content-usage': CONTENT_USAGE,
        };
      },
    );
  }

  private readonly headersMemo = new BoundedMemo<Readonly<Record<string, string>>>();

  /**
   * GET /health: ok when the database answers a real query and the process takes on work; degraded, with the reason,
   * when the database does not answer or the process sheds load (a balancer then sends the work elsewhere).
   */
  private async health(): Promise<Resolution> {
    const available = await this.deps.store.isAvailable();
    const shedding = this.deps.pressure?.why();
    const status = available && !shedding ? 'ok' : 'degraded';
    const reason = !available
      ? { reason: 'the database does not answer' }
      : shedding
        ? { reason: `shedding load: ${shedding}` }
        : {};
    // On a standby, how far behind it is: in a region cut off from the primary, its newest commit stops moving.
    const stats = this.deps.store.stats?.();
    const replica = stats
      ? { replica: { newestCommitAt: stats.newestCommitAt, replayLagMs: Math.round(stats.replicaLagMs) } }
      : {};
    const body = JSON.stringify({
      status,
      service: this.deps.serviceName,
      time: new Date().toISOString(),
      ...reason,
      ...replica,
    });
    return {
      kind: 'document',
      status: status === 'ok' ? 200 : 503,
      type: 'application/json; charset=utf-8',
      body,
      headers: { 'cache-control': CACHE.none },
    };
  }
}

/**
 * A memo of what a key computes to, for keys requests choose: at most `max` kept, all forgotten when full (a client
 * sending random paths costs a clear now and then, never memory).
 */
class BoundedMemo<V> {
  readonly #values = new Map<string, V>();
  readonly #max: number;

  constructor(max = 10_000) {
    this.#max = max;
  }

  get(key: string, make: () => V): V {
    if (this.#values.has(key)) return this.#values.get(key) as V;
    const value = make();
    if (this.#values.size >= this.#max) this.#values.clear();
    this.#values.set(key, value);
    return value;
  }
}

/**
 * The canonical URL of a request whose path ends in slashes: the raw path as the client sent it (still
 * percent-encoded), set as the path of our own origin. Never a path-relative Location: `//evil.example/` would
 * be read as another host.
 */
function canonicalWithoutTrailingSlash(baseUrl: string, rawUrl: string): URL {
  const q = rawUrl.indexOf('?');
  const url = new URL(baseUrl);
  url.pathname = withoutTrailingSlashes(q === -1 ? rawUrl : rawUrl.slice(0, q)) || '/';
  if (q !== -1) url.search = rawUrl.slice(q);
  return url;
}

/** A redirect to a page of this site: absolute for HTTP, with its site path for read_page. */
/** The default language's prefix, which names no page of its own: its home is the root (paths.home). */
const DEFAULT_LANGUAGE_PREFIX = `/${DEFAULT_LANG}`;

function siteRedirect(
  baseUrl: string,
  status: 301 | 302,
  sitePath: string,
  headers: Record<string, string>,
): Resolution {
  return { kind: 'redirect', status, location: absoluteUrl(baseUrl, sitePath), sitePath, headers };
}
