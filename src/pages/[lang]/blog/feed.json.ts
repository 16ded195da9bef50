// The JSON Feed 1.1 (https://www.jsonfeed.org/version/1.1/) of the blog in one language: the newest FEED_SIZE
// articles with their summaries, dates, topics and translations.
import type { APIRoute } from 'astro';
import { articlesIn, FEED_SIZE } from '../../../lib/blog/articles.ts';
import { config } from '../../../lib/build-config.ts';
import { t } from '../../../lib/i18n.ts';
import { LANGS, type Lang } from '../../../lib/locales.ts';
import { topicName } from '../../../lib/blog/topics.ts';
import { absoluteUrl } from '../../../lib/urls.ts';
import { pathOf } from '../../../lib/surface.ts';

export function getStaticPaths() {
  return LANGS.map((lang) => ({ params: { lang } }));
}

export const GET: APIRoute = async ({ params }) => {
  const lang = params.lang as Lang;
  const strings = t(lang);
  const url = (path: string) => absoluteUrl(config.baseUrl, path);
  const feed = {
    version: 'https://jsonfeed.org/version/1.1',
    title: `${config.serviceName} · ${strings.blogTitle}`,
    home_page_url: url(pathOf('listBlogArticles', { lang })),
    feed_url: url(pathOf('getBlogJsonFeed', { lang })),
    description: strings.blogDescription,
    language: lang,
    authors: [{ name: config.serviceName, url: config.baseUrl }],
    items: (await articlesIn(lang)).slice(0, FEED_SIZE).map((a) => ({
      id: url(a.path),
      url: url(a.path),
      title: a.entry.data.title,
      summary: a.entry.data.description,
      content_text: `${a.entry.data.description}\n\n${url(a.path)}`,
      date_published: a.date.toISOString(),
      ...(a.updated ? { date_modified: a.updated.toISOString() } : {}),
      language: lang,
      tags: a.topics.map((key) => topicName(key, lang)),
    })),
  };
  return new Response(JSON.stringify(feed, null, 2) + '\n');
};
