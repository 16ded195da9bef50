// What an owner's own domain answers at the paths crawlers and agents ask every host for (issue 63): its robots.txt,
// its sitemap.xml and its llms.txt, each about the one profile the domain serves (and its cards where it takes them),
// every URL on the domain. Made from the profile as the live cache holds it, kept until the profile changes.
import { contentUsageOf } from '../../src/lib/ai-preferences.ts';
import type { Profile } from '../../src/lib/live-content.ts';
import type { LivePage } from '../store/store.ts';
import { languagesOf, profileAddresses } from '../../src/lib/live-content.ts';
import type { Lang } from '../../src/lib/locales.ts';
import { domainOrigin, type OwnerDomain } from '../../src/lib/owner-domains.ts';
import { escapeMarkdownText } from '../../src/lib/markdown.ts';
import { sitemapXml } from '../../src/lib/sitemap.ts';
import { pathOf } from '../../src/lib/surface.ts';
import { paths, twinPath } from '../../src/lib/urls.ts';

/** The files a domain answers itself: the routes of the same paths on the platform, about the owner's page. */
const OWNER_DOMAIN_FILES = { robots: pathOf('getRobots'), sitemap: pathOf('getSitemap'), llms: pathOf('getLlmsTxt') };
type Kind = keyof typeof OWNER_DOMAIN_FILES;
export type OwnerDomainFile = (typeof OWNER_DOMAIN_FILES)[Kind];
const FILE_KINDS = new Map(Object.entries(OWNER_DOMAIN_FILES).map(([kind, path]) => [path, kind as Kind]));
export const isOwnerDomainFile = (path: string): path is OwnerDomainFile => FILE_KINDS.has(path);

/** The most cards a domain's sitemap lists. */
export const OWNER_DOMAIN_CARDS = 1000;

/** The file at `path` of `domain`, serving `profile` (and `cards`, the profile's that the domain takes). */
export async function ownerDomainFile(
  path: OwnerDomainFile,
  domain: OwnerDomain,
  profile: Profile,
  baseUrl: string,
  cards: readonly LivePage[] = [],
): Promise<{ type: string; text: string }> {
  const { url } = profileAddresses(baseUrl, profile);
  const langs = languagesOf(profile);
  const versionUrl = (lang: Lang) => url(paths.profile(profile.slug, lang, langs));
  const home = url(pathOf('getProfilePage', { page: profile.slug }));
  switch (FILE_KINDS.get(path)) {
    case 'robots':
      return {
        type: 'text/plain; charset=utf-8',
        text: [
          `# ${domain.host}: ${profile.slug}'s page, served by the platform at ${baseUrl}.`,
          'User-agent: *',
          'Allow: /',
          '',
          `Sitemap: ${domainOrigin(domain.host)}${OWNER_DOMAIN_FILES.sitemap}`,
          '',
          // Lighthouse refuses any directive outside its list (discovery.ts robotsTxt): the owner's choice is the
          // Content-Usage header of every answer here, named for people.
          `# AI use (IETF AIPREF) of the profile, its owner's choice: ${contentUsageOf(profile.aiUse)}; each answer here says what holds for it in its Content-Usage header (a card's choice is its own).`,
          '',
        ].join('\n'),
      };
    case 'sitemap':
      return {
        type: 'application/xml; charset=utf-8',
        text: await sitemapXml([
          ...versions(langs, versionUrl, home, profile.updatedAt),
          ...cards.flatMap((card) => {
            const cardUrl = (lang: Lang) => url(paths.card(card.key, lang, card.langs));
            return versions(card.langs, cardUrl, url(pathOf('getDigitalCard', { cardId: card.key })), card.lastmod);
          }),
        ]),
      };
    default:
      return {
        type: 'text/plain; charset=utf-8',
        text: [
          // The owner's name is their words: a heading of one line, with nothing that starts Markdown structure.
          `# ${oneLine(profile.name)}`,
          '',
          `> ${domain.host} is ${oneLine(profile.name)}'s page: the platform at ${baseUrl} serves it. Every page here answers \`Accept: text/markdown\` with a Markdown twin.`,
          '',
          ...langs.map(
            (lang) =>
              `- [${lang}](${versionUrl(lang)}): the page; Markdown: ${url(twinPath(paths.profile(profile.slug, lang, langs)))}`,
          ),
          // The business cards the domain takes (their ids are letters, digits, - and _: nothing to escape).
          ...cards.map((card) => {
            const page = pathOf('getDigitalCard', { cardId: card.key });
            return `- [card ${card.key}](${url(page)}): a digital business card; Markdown: ${url(twinPath(page))}; vCard: ${url(pathOf('getDigitalCardVcard', { cardId: card.key }))}`;
          }),
          '',
          `AI use of the profile: \`${contentUsageOf(profile.aiUse)}\` (IETF AIPREF), the owner's choice; every answer here says what holds for it in its Content-Usage header (a card's choice is its own).`,
          '',
        ].join('\n'),
      };
  }
}

/** A page's sitemap entries: one a language version, each naming the others and the printed address (x-default). */
function versions(langs: readonly Lang[], urlOf: (lang: Lang) => string, printed: string, lastmod: string) {
  return langs.map((lang) => ({
    url: urlOf(lang),
    lastmod,
    ...(langs.length > 1
      ? { links: [...langs.map((l) => ({ lang: l, url: urlOf(l) })), { lang: 'x-default', url: printed }] }
      : {}),
  }));
}

/** Owner text as one line of Markdown that starts nothing (markdown.ts's escapes, its line breaks made spaces). */
const oneLine = (text: string) => escapeMarkdownText(text.replace(/\s+/g, ' '));
