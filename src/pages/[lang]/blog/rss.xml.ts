import rss from '@astrojs/rss';
import type { APIRoute } from 'astro';
import { articlesIn, FEED_SIZE } from '../../../lib/blog/articles.ts';
import { topicName } from '../../../lib/blog/topics.ts';
import { config } from '../../../lib/build-config.ts';
import { t } from '../../../lib/i18n.ts';
import { LANGS, type Lang } from '../../../lib/site-config.ts';
import { absoluteUrl } from '../../../lib/urls.ts';
import { pathOf } from '../../../lib/surface.ts';

export function getStaticPaths() {
  return LANGS.map((lang) => ({ params: { lang } }));
}

export const GET: APIRoute = async ({ params }) => {
  const lang = params.lang as Lang;
  const strings = t(lang);
  return rss({
    title: `${config.serviceName} · ${strings.blogTitle}`,
    description: strings.blogDescription,
    site: absoluteUrl(config.baseUrl, pathOf('listBlogArticles', { lang })),
    items: (await articlesIn(lang)).slice(0, FEED_SIZE).map((a) => ({
      title: a.entry.data.title,
      description: a.entry.data.description,
      pubDate: a.date,
      link: absoluteUrl(config.baseUrl, a.path),
      categories: a.topics.map((key) => topicName(key, lang)),
    })),
    customData: `<language>${lang}</language>`,
    trailingSlash: false,
  });
};
