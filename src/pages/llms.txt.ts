import type { APIRoute } from 'astro';
import { articlesIn } from '../lib/blog.ts';
import { config } from '../lib/build-config.ts';
import { llmsTxt } from '../lib/discovery.ts';
import { twinPath } from '../lib/urls.ts';

export const GET: APIRoute = async () => {
  const list = async (lang: 'ar' | 'en') =>
    (await articlesIn(lang)).map((a) => ({ title: a.entry.data.title, path: twinPath(a.path), description: a.entry.data.description }));
  return new Response(llmsTxt(config, { en: await list('en'), ar: await list('ar') }));
};
