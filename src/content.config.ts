import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
import { z } from 'astro/zod';
import { LANGS, SLUG_PATTERN } from './lib/surface.ts';


const blog = defineCollection({
  loader: glob({ pattern: `{${LANGS.join(',')}}/*.md`, base: './content/blog' }),
  schema: z
    .object({
      title: z.string().trim().min(1).max(120),
      description: z.string().trim().min(20).max(300),
      date: z.coerce.date(),
      updated: z.coerce.date().optional(),
      tags: z.array(z.string().trim().min(1).max(40)).max(10).default([]),
      draft: z.boolean().default(false),
      /** Articles that share a translation key are translations of each other; their slugs may differ. */
      translationKey: z.string().regex(SLUG_PATTERN, 'translationKey must be lowercase words joined by hyphens').optional(),
    })
    .strict()
    .refine((a) => !a.updated || a.updated >= a.date, { message: 'updated must not be before date', path: ['updated'] }),
});

export const collections = { blog };
