// An owner's own address (issue 63): a profile served at a domain of its owner's (`https://links.example.sa/`), and,
// if they choose, the cards that name that profile. Each page has one home: its domain when it has one, else the
// platform's address, which then answers 301 to it (one canonical URL, the one the owner prints and search engines
// keep; a card already printed with the platform's address still leads there). The paths on a domain are the profile's
// routes without their `/p/{page}` prefix (`/p/layla/ar` is `/ar` there, `/p/layla.md` is `/index.md`), the cards' are
// their own (`/c/{cardId}`), and the build's assets are served there as on the platform. The one owner of that
// mapping, both ways: pages, twins, codes, vCards, the sidecar's dispatch and its redirects all use it.
import { absoluteUrl } from './urls.ts';
import { pathOf, routeIds, routeMatcher } from './surface.ts';

/** A profile's own domain, as the store holds it. */
export interface OwnerDomain {
  /** The host, lower-case ASCII (an internationalised name in its xn-- form), no port. */
  host: string;
  /** The profile's slug. */
  page: string;
  /** Whether the profile's cards are served there too. */
  cards: boolean;
}

/** The longest host name DNS allows (RFC 1035: 253 characters written out). */
export const HOST_LONGEST = 253;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const ALL_DIGITS = /^\d+$/;

/**
 * Why `host` cannot be an owner's domain, or undefined when it can: a DNS name of two labels or more, each of letters,
 * digits and hyphens, lower-case ASCII (what the URL parser makes of a name: `Links.Example.SA` and `روابط.example`
 * are given in that form by `hostOf`), not an address and not the platform's own host.
 */
export function hostProblem(host: string, platformHost?: string): string | undefined {
  if (host.length > HOST_LONGEST) return `must be at most ${HOST_LONGEST} characters`;
  const labels = host.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label)))
    return 'must be a domain name such as links.example.sa (letters, digits and hyphens in two labels or more; no scheme, port or path)';
  if (ALL_DIGITS.test(labels.at(-1)!)) return 'must be a domain name, not an IP address';
  if (platformHost && (host === platformHost || host.endsWith(`.${platformHost}`)))
    return `is the platform's own address (${platformHost}) or under it`;
  return undefined;
}

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * Whether a request's host (lower case, no port) is the platform's: BASE_URL's host and the names under it, an address
 * (`127.0.0.1`, `[::1]`), a name of one label (`localhost`), or none at all. Any other host is an owner's domain or
 * nobody's (a name that is no DNS name is nobody's: 421, never the platform's pages under a name that is not its).
 */
export function isPlatformHost(host: string | undefined, platformHost: string): boolean {
  if (!host || host === platformHost || host.endsWith(`.${platformHost}`)) return true;
  return host.startsWith('[') || !host.includes('.') || IPV4.test(host);
}

/**
 * The host an owner or an operator wrote, in the form the store keeps and a request's Host is compared in: lower case,
 * an internationalised name in its ASCII (xn--) form, without a trailing dot; undefined when it is no host name at all
 * (a scheme, a port, a path, credentials).
 */
export function hostOf(written: string): string | undefined {
  const trimmed = written.trim().replace(/\.$/, '');
  if (trimmed === '' || /[/:?#@\\\s]/.test(trimmed)) return undefined;
  try {
    return new URL(`https://${trimmed}/`).hostname;
  } catch {
    return undefined;
  }
}

/** The profile routes whose paths live on the profile's domain: every route under `/p/{page}`. */
const matchProfileRoute = routeMatcher(
  routeIds((route) => route.method === 'GET' && route.path.startsWith('/p/{page}')),
);
const profileHome = (page: string) => pathOf('getProfilePage', { page });
const TWIN = '.md';
const ROOT_TWIN = '/index.md';
const CARDS = '/c/';
/** Owners' pictures (`/images/{image}`), named by their content: the page shows its own from where it is served. */
const IMAGES = '/images/';

/**
 * Where a platform path (`/p/layla/ar`, a query kept) is found on `domain`: its path there (`/ar`), or undefined when
 * it does not live there. A card's path lives there when the domain takes its profile's cards: the caller passes only
 * the paths of that profile's cards.
 */
export function pathOnDomain(domain: OwnerDomain, path: string): string | undefined {
  const q = path.indexOf('?');
  const bare = q === -1 ? path : path.slice(0, q);
  const query = q === -1 ? '' : path.slice(q);
  const home = profileHome(domain.page);
  if (bare === home) return `/${query}`;
  if (bare === `${home}${TWIN}`) return `${ROOT_TWIN}${query}`;
  if (bare.startsWith(`${home}/`)) return path.slice(home.length);
  if (domain.cards && bare.startsWith(CARDS)) return path;
  if (bare.startsWith(IMAGES)) return path;
  return undefined;
}

/**
 * The platform path a path on `domain` stands for (`/ar` → `/p/layla/ar`), or undefined when it names none of the
 * profile's routes (nor, where the domain takes them, a card's: whether the card is this profile's is the caller's
 * to check, once it has read it).
 */
export function platformPathOf(domain: OwnerDomain, path: string): string | undefined {
  const home = profileHome(domain.page);
  if (path === '/') return home;
  if (path === ROOT_TWIN) return `${home}${TWIN}`;
  if (path.startsWith(CARDS)) return domain.cards ? path : undefined;
  if (path.startsWith(IMAGES)) return path;
  const candidate = `${home}${path}`;
  const match = matchProfileRoute(candidate);
  return match && 'page' in match.params && match.params.page === domain.page ? candidate : undefined;
}

/**
 * The build's files an owner's domain serves as the platform does: what its pages load (Astro's assets, the site's
 * scripts and icon). The platform's own pages, documents and catalogs are not the owner's and stay at its address.
 * The sidecars and the front (deploy/nginx.conf, from this source) serve the same.
 */
export const OWNER_DOMAIN_ASSETS = /^\/(?:_astro\/[^/]+|global-scripts\/[^/]+\.js|favicon\.svg)$/;
export const isPageAsset = (path: string) => OWNER_DOMAIN_ASSETS.test(path);

/** HSTS at an owner's domain: a year, for that name alone (the platform's covers the names under its own). */
export const OWNER_HSTS = 'max-age=31536000';

/** The origin of an owner's domain: always https (the front or the edge holds its certificate; docs/operations.md). */
export const domainOrigin = (host: string) => `https://${host}`;

/** How a page writes the addresses of what it links: absolute (`url`), or as a link from where it is served (`href`). */
export interface Addresses {
  /** The absolute URL of a platform path, at its home. */
  url(path: string): string;
  /** A link to a platform path from the page: its path where the page's own host serves it, else its absolute URL. */
  href(path: string): string;
}

/**
 * The addresses of a page whose owner's profile has `domain` (none: the platform's only); `servedOnDomain`: whether
 * the page itself lives there (a profile's page does; a card's when the domain takes its cards).
 */
export function addressesOf(
  baseUrl: string,
  domain: OwnerDomain | null | undefined,
  servedOnDomain: boolean,
): Addresses {
  const there = (path: string) => (domain ? pathOnDomain(domain, path) : undefined);
  const url = (path: string) => {
    const onDomain = there(path);
    return onDomain !== undefined && domain
      ? absoluteUrl(domainOrigin(domain.host), onDomain)
      : absoluteUrl(baseUrl, path);
  };
  return {
    url,
    href: (path) => {
      const onDomain = there(path);
      if (servedOnDomain && domain) return onDomain ?? absoluteUrl(baseUrl, path);
      return onDomain === undefined ? path : url(path);
    },
  };
}

/** The platform's addresses: what every page without an owner's domain links by. */
export const platformAddresses = (baseUrl: string): Addresses => addressesOf(baseUrl, undefined, false);
