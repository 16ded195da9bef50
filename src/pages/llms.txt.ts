import type { APIRoute } from 'astro';
import { articlesIn, FEED_SIZE } from '../lib/blog/articles.ts';
import { config } from '../lib/build-config.ts';
import { llmsTxt } from '../lib/discovery.ts';
import { LANGS, type Lang } from '../lib/surface.ts';
import { twinPath } from '../lib/urls.ts';

export const GET: APIRoute = async () => {
  const list = async (lang: Lang) =>
    (await articlesIn(lang))
      .slice(0, FEED_SIZE)
      .map((a) => ({ title: a.entry.data.title, path: twinPath(a.path), description: a.entry.data.description }));
  const entries = await Promise.all(LANGS.map(async (lang) => [lang, await list(lang)] as const));
  return new Response(llmsTxt(config, Object.fromEntries(entries) as Record<Lang, Awaited<ReturnType<typeof list>>>));
};
