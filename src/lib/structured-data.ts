// The site's schema.org graph: each page's JSON-LD as nodes with stable @ids, so that what several pages describe is
// one node wherever it appears: the site's Organization and WebSite (with a SearchAction per language's search page),
// a profile's owner (Person or Organization), which a card naming that profile describes too, an article with its
// translations and breadcrumbs. Pages hand their facts to these builders; HeadTags serialises the graph so that no
// string can close the script element.
import { platformAddresses, type Addresses } from './owner-domains.ts';
import { inEachLanguage, type CardVersion, type ProfileVersion, type Version } from './live-content.ts';
import { LANGS, type Lang } from './locales.ts';
import { dayOf, isoClock, type Place, type Schedule } from './place.ts';
import type { PublicConfig } from './site-config.ts';
import { absoluteUrl, paths } from './urls.ts';
import { pathOf } from './surface.ts';

type Node = Record<string, unknown>;
type Base = Pick<PublicConfig, 'baseUrl' | 'serviceName'>;

/** The @ids: fragments of the URL of the page that is about each thing. */
const nodeIds = {
  organization: (c: Base) => `${c.baseUrl}/#organization`,
  website: (c: Base) => `${c.baseUrl}/#website`,
  /**
   * A profile's owner, whichever page describes them (the profile, a card that names the profile): at the profile's
   * home (`at`: its owner's domain, if it has one).
   */
  owner: (at: Addresses, slug: string) => `${at.url(pathOf('getProfilePage', { page: slug }))}#owner`,
  /** A card's holder when the card names no profile. */
  holder: (at: Addresses, cardId: string) => `${at.url(pathOf('getDigitalCard', { cardId }))}#holder`,
  page: (url: string) => `${url}#page`,
  article: (url: string) => `${url}#article`,
  breadcrumbs: (url: string) => `${url}#breadcrumbs`,
};

const ref = (id: string) => ({ '@id': id });

/** A page's JSON-LD: the nodes it describes, as one graph. */
export function graph(...nodes: (Node | undefined)[]): Node {
  return { '@context': 'https://schema.org', '@graph': nodes.filter((n): n is Node => n !== undefined) };
}

/** The service itself: the publisher of the blog and the site. */
export function organizationNode(c: Base): Node {
  return { '@type': 'Organization', '@id': nodeIds.organization(c), name: c.serviceName, url: `${c.baseUrl}/` };
}

/** The site, searchable: a SearchAction per language opens that language's search page with ?q=. */
export function websiteNode(c: Base, description: string): Node {
  return {
    '@type': 'WebSite',
    '@id': nodeIds.website(c),
    name: c.serviceName,
    url: `${c.baseUrl}/`,
    inLanguage: [...LANGS],
    description,
    publisher: ref(nodeIds.organization(c)),
    potentialAction: LANGS.map((l) => ({
      '@type': 'SearchAction',
      target: {
        '@type': 'EntryPoint',
        urlTemplate: `${absoluteUrl(c.baseUrl, pathOf('searchBlog', { lang: l }))}?q={search_term_string}`,
      },
      'query-input': 'required name=search_term_string',
    })),
  };
}

/** Home › … › the page: each crumb a name and a URL. */
export function breadcrumbsNode(url: string, crumbs: { name: string; url: string }[]): Node {
  return {
    '@type': 'BreadcrumbList',
    '@id': nodeIds.breadcrumbs(url),
    itemListElement: crumbs.map((crumb, i) => ({
      '@type': 'ListItem',
      position: i + 1,
      name: crumb.name,
      item: crumb.url,
    })),
  };
}

/** The crumbs above a page of the blog in `lang`: the homepage, then the blog. */
export function blogCrumbs(
  c: Base,
  lang: Lang,
  names: { home: string; blog: string },
): { name: string; url: string }[] {
  return [
    { name: names.home, url: absoluteUrl(c.baseUrl, paths.home(lang)) },
    { name: names.blog, url: absoluteUrl(c.baseUrl, pathOf('listBlogArticles', { lang })) },
  ];
}

/**
 * Between a record's language versions, as between an article's: the one in its own language names the others
 * (workTranslation), each other one names it (translationOfWork). Nothing for a record in one language.
 */
function translationRelation(version: Version, urlOf: (lang: Lang) => string, lang: Lang): Node {
  const page = (l: Lang) => ({ ...ref(nodeIds.page(urlOf(l))), '@type': 'ProfilePage', url: urlOf(l), inLanguage: l });
  if (version.langs.length < 2) return {};
  return lang === version.primary
    ? { workTranslation: version.langs.filter((l) => l !== lang).map(page) }
    : { translationOfWork: page(version.primary) };
}

/** What the thing a record describes is called in its other languages, where that differs (schema.org alternateName). */
function otherNames(names: (string | null | undefined)[], shown: string): { alternateName?: string[] } {
  const others = [...new Set(names.filter((n): n is string => !!n && n !== shown))];
  return others.length > 0 ? { alternateName: others } : {};
}

/**
 * A profile page, in one of the profile's languages: a ProfilePage about its owner, named in that language (and by
 * their names in the others), related to its versions in the others.
 */
/**
 * What schema.org says of a place: its address, its coordinates, and its hours of the coming week as one
 * OpeningHoursSpecification an opening (times in its own zone, as Google reads them: an opening past midnight closes
 * the next morning; one to midnight closes at 23:59).
 */
function placeFacts(place: Pick<Place, 'address' | 'geo'> | null, schedule: Schedule | undefined): Node {
  if (!place) return {};
  return {
    ...(place.address ? { address: place.address } : {}),
    ...(place.geo ? { geo: { '@type': 'GeoCoordinates', latitude: place.geo.lat, longitude: place.geo.lon } } : {}),
    ...(schedule
      ? {
          openingHoursSpecification: schedule.days
            .filter((day) => !day.special)
            .flatMap((day) =>
              day.spans.map((span) => ({
                '@type': 'OpeningHoursSpecification',
                dayOfWeek: `https://schema.org/${day.weekday}`,
                opens: isoClock(span.from, schedule.zone),
                closes: isoClock(span.to, schedule.zone, true),
              })),
            ),
          // A day of special hours (issue 62) by its date: its openings, or closed all day (opens = closes = 00:00,
          // as schema.org says a closed day is written).
          ...(schedule.days.some((day) => day.special)
            ? {
                specialOpeningHoursSpecification: schedule.days
                  .filter((day) => day.special)
                  .flatMap((day) => {
                    const date = dayOf(day.noon, schedule.zone);
                    const spec = { '@type': 'OpeningHoursSpecification', validFrom: date, validThrough: date };
                    return day.spans.length === 0
                      ? [{ ...spec, opens: '00:00', closes: '00:00' }]
                      : day.spans.map((span) => ({
                          ...spec,
                          opens: isoClock(span.from, schedule.zone),
                          closes: isoClock(span.to, schedule.zone, true),
                        }));
                  }),
              }
            : {}),
        }
      : {}),
  };
}

export function profileGraph(
  c: Base,
  profile: ProfileVersion,
  facts: {
    avatar: string | undefined;
    sameAs: string[];
    schedule?: Schedule | undefined;
    /** Where the page and its versions live (owner-domains.ts); the platform's by default. */
    addresses?: Addresses;
  },
): Node {
  const { langs } = profile.version;
  const at = facts.addresses ?? platformAddresses(c.baseUrl);
  const urlOf = (lang: Lang) => at.url(paths.profile(profile.slug, lang, langs));
  const url = urlOf(profile.lang);
  const owner = nodeIds.owner(at, profile.slug);
  return graph(
    {
      '@type': 'ProfilePage',
      '@id': nodeIds.page(url),
      url,
      inLanguage: profile.lang,
      dateModified: profile.updatedAt,
      isPartOf: ref(nodeIds.website(c)),
      mainEntity: ref(owner),
      ...translationRelation(profile.version, urlOf, profile.lang),
    },
    {
      // An organisation with a place is a local business (a LocalBusiness is an Organization).
      '@type': profile.kind === 'organization' ? (profile.place ? 'LocalBusiness' : 'Organization') : 'Person',
      '@id': owner,
      name: profile.name,
      ...otherNames(Object.values(inEachLanguage(profile.version.original, 'name')), profile.name),
      url: at.url(pathOf('getProfilePage', { page: profile.slug })),
      ...(profile.bio ? { description: profile.bio } : {}),
      ...(facts.avatar ? { image: facts.avatar } : {}),
      ...(facts.sameAs.length > 0 ? { sameAs: facts.sameAs } : {}),
      ...placeFacts(profile.place, facts.schedule),
    },
  );
}

/**
 * A card page: a ProfilePage about its holder, with a ContactPoint per phone and e-mail and the organisation they work
 * for. A card that names a person's profile describes that person: the same @id, so the two pages merge into one node.
 * A card that names an organization's profile is its holder's, who works for that organization (its node).
 */
export function cardGraph(
  c: Base,
  card: CardVersion,
  facts: {
    name: string;
    website: string | undefined;
    photo: string | undefined;
    schedule?: Schedule | undefined;
    /** The holder's social links (their hrefs, as the page links them). */
    sameAs?: string[];
    /** The organisation's logo, absolute. */
    logo?: string | undefined;
    /** Where the card's page and its profile's live (owner-domains.ts); the platform's by default. */
    addresses?: Addresses;
  },
): Node {
  const { langs, original } = card.version;
  const at = facts.addresses ?? platformAddresses(c.baseUrl);
  const sameAs = [...(facts.website ? [facts.website] : []), ...(facts.sameAs ?? [])];
  const urlOf = (lang: Lang) => at.url(paths.card(card.cardId, lang, langs));
  const url = urlOf(card.lang);
  const organizationNames = card.organization
    ? otherNames(Object.values(inEachLanguage(original, 'organization')), card.organization)
    : {};
  const samePerson = card.profileSlug !== null && card.profileKind === 'person';
  const holder = samePerson ? nodeIds.owner(at, card.profileSlug!) : nodeIds.holder(at, card.cardId);
  // The card's place is its organisation's: a local business, where it is and when it is open.
  const business = card.place ? { ...placeFacts({ address: card.address, geo: card.place.geo }, facts.schedule) } : {};
  const employerType = card.place ? 'LocalBusiness' : 'Organization';
  const logo = facts.logo ? { logo: facts.logo } : {};
  const employer =
    card.profileSlug !== null && card.profileKind === 'organization'
      ? {
          '@id': nodeIds.owner(at, card.profileSlug),
          '@type': employerType,
          ...(card.organization ? { name: card.organization, ...organizationNames } : {}),
          ...business,
          ...logo,
        }
      : card.organization
        ? { '@type': employerType, name: card.organization, ...organizationNames, ...business, ...logo }
        : undefined;
  const contactPoints = [
    ...card.phones.map((p) => ({ '@type': 'ContactPoint', telephone: p.number, contactType: p.type })),
    ...card.emails.map((e) => ({ '@type': 'ContactPoint', email: e.address, contactType: e.type })),
  ];
  return graph(
    {
      '@type': 'ProfilePage',
      '@id': nodeIds.page(url),
      url,
      inLanguage: card.lang,
      dateModified: card.updatedAt,
      isPartOf: ref(nodeIds.website(c)),
      mainEntity: ref(holder),
      ...translationRelation(card.version, urlOf, card.lang),
    },
    {
      '@type': 'Person',
      '@id': holder,
      name: facts.name,
      ...(card.name ? otherNames(Object.values(inEachLanguage(original, 'name')), card.name) : {}),
      ...(card.jobTitle ? { jobTitle: card.jobTitle } : {}),
      ...(employer ? { worksFor: employer } : {}),
      ...(contactPoints.length > 0 ? { contactPoint: contactPoints } : {}),
      ...(card.address ? { address: card.address } : {}),
      ...(facts.photo ? { image: facts.photo } : {}),
      ...(sameAs.length > 0 ? { sameAs } : {}),
      ...(samePerson ? { url: at.url(pathOf('getProfilePage', { page: card.profileSlug! })) } : {}),
    },
  );
}

/** Which of an article and its translations is the original: the earliest, the default language's on a tie. */
function originalOf<T extends { date: Date; lang: Lang }>(versions: T[], defaultLang: Lang): T {
  return versions.reduce((a, b) =>
    b.date.getTime() < a.date.getTime() || (b.date.getTime() === a.date.getTime() && b.lang === defaultLang) ? b : a,
  );
}

export interface ArticleFacts {
  url: string;
  lang: Lang;
  title: string;
  description: string;
  date: Date;
  updated: Date | undefined;
  image: string;
  keywords: string[];
  minutes: number;
  /** The same article in the other languages. */
  translations: { url: string; lang: Lang; date: Date }[];
  crumbs: { name: string; url: string }[];
}

/**
 * An article: a BlogPosting by the service, with its breadcrumbs. Between the versions in each language, the original
 * (the earliest) names its translations (workTranslation), and each translation its original (translationOfWork).
 */
export function articleGraph(c: Base, a: ArticleFacts, defaultLang: Lang): Node {
  const original = originalOf([{ url: a.url, lang: a.lang, date: a.date }, ...a.translations], defaultLang);
  const isOriginal = original.url === a.url;
  return graph(
    {
      '@type': 'BlogPosting',
      '@id': nodeIds.article(a.url),
      headline: a.title,
      description: a.description,
      inLanguage: a.lang,
      datePublished: a.date.toISOString(),
      dateModified: (a.updated ?? a.date).toISOString(),
      url: a.url,
      image: a.image,
      mainEntityOfPage: a.url,
      isPartOf: ref(nodeIds.website(c)),
      ...(a.keywords.length > 0 ? { keywords: a.keywords.join(', ') } : {}),
      timeRequired: `PT${a.minutes}M`,
      author: ref(nodeIds.organization(c)),
      publisher: ref(nodeIds.organization(c)),
      ...(isOriginal
        ? a.translations.length > 0
          ? {
              workTranslation: a.translations.map((tr) => ({
                ...ref(nodeIds.article(tr.url)),
                '@type': 'BlogPosting',
                url: tr.url,
                inLanguage: tr.lang,
              })),
            }
          : {}
        : {
            translationOfWork: {
              ...ref(nodeIds.article(original.url)),
              '@type': 'BlogPosting',
              url: original.url,
              inLanguage: original.lang,
            },
          }),
    },
    breadcrumbsNode(a.url, [...a.crumbs, { name: a.title, url: a.url }]),
    organizationNode(c),
  );
}

/** A list of the blog (an index page, a topic): a CollectionPage with its breadcrumbs. */
export function collectionGraph(
  c: Base,
  page: { url: string; lang: Lang; name: string; crumbs: { name: string; url: string }[] },
): Node {
  return graph(
    {
      '@type': 'CollectionPage',
      '@id': nodeIds.page(page.url),
      url: page.url,
      name: page.name,
      inLanguage: page.lang,
      isPartOf: ref(nodeIds.website(c)),
    },
    breadcrumbsNode(page.url, [...page.crumbs, { name: page.name, url: page.url }]),
  );
}
