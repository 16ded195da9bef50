import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
import { articleSchema } from './lib/blog/article-schema.ts';
import { LANGS } from './lib/surface.ts';

const blog = defineCollection({
  loader: glob({ pattern: `{${LANGS.join(',')}}/*.md`, base: './content/blog' }),
  schema: articleSchema,
});

export const collections = { blog };
