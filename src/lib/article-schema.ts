// An article's front matter: the one schema the content collection (src/content.config.ts) and the content checks
// (src/lib/content-checks.ts) both apply.
import { z } from 'astro/zod';
import { SLUG_PATTERN } from './surface.ts';

export const articleSchema = z
  .object({
    title: z.string().trim().min(1).max(120),
    description: z.string().trim().min(20).max(300),
    date: z.coerce.date({ error: 'must be a date, written like 2026-09-14' }),
    updated: z.coerce.date({ error: 'must be a date, written like 2026-09-14' }).optional(),
    tags: z.array(z.string().trim().min(1).max(40)).max(10).default([]),
    draft: z.boolean().default(false),
    /** Articles that share a translation key are translations of each other; their slugs may differ. */
    translationKey: z.string().regex(SLUG_PATTERN, 'translationKey must be lowercase words joined by hyphens').optional(),
  })
  .strict()
  .refine((a) => !a.updated || a.updated >= a.date, { message: 'updated must not be before date', path: ['updated'] });
