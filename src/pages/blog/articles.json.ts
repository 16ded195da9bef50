// /blog/articles.json: every published article in both languages, newest first, as the MCP and WebMCP tools list them
// (and filter by language and topic).
import type { APIRoute } from 'astro';
import type { z } from 'zod';
import { getArticles } from '../../lib/blog/articles.ts';
import { config } from '../../lib/build-config.ts';
import type { articleListEntry } from '../../lib/mcp-tools.ts';
import { absoluteUrl } from '../../lib/urls.ts';

export const GET: APIRoute = async () => {
  const articles = (await getArticles()).map((a): z.infer<typeof articleListEntry> => ({
    slug: a.slug,
    title: a.entry.data.title,
    date: a.date.toISOString(),
    url: absoluteUrl(config.baseUrl, a.path),
    lang: a.lang,
    topics: a.topics,
    readingMinutes: a.minutes,
  }));
  return new Response(JSON.stringify(articles, null, 2) + '\n');
};
