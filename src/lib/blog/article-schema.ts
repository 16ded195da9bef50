// An article's front matter: the one schema the content collection (src/content.config.ts) and the content checks
// (src/lib/blog/content-checks.ts) both apply.
import { z } from 'astro/zod';
import { FAR_AHEAD_KEY, readWrittenDate } from './article-dates.ts';
import { RESERVED_ARTICLE_SLUGS, SLUG_PATTERN } from '../surface.ts';
import { TOPICS, TOPICS_FILE } from './topics.ts';

/**
 * A date as the editor wrote it: text, as the content checks read front matter (article-dates.ts), checked as a date on
 * the calendar. Astro's loader hands over a Date it made itself, rolled over where the text was impossible; the checks
 * have refused those before any build, and blog.ts reads every article's dates again as written.
 */
const writtenDate = z.union([z.string(), z.date()]).superRefine((value, ctx) => {
  if (typeof value !== 'string') return;
  const read = readWrittenDate(value);
  if (!read.ok) ctx.addIssue({ code: 'custom', message: read.problem });
});

function instantOf(value: string | Date): number | undefined {
  if (typeof value !== 'string') return value.getTime();
  const read = readWrittenDate(value);
  return read.ok ? read.instant.getTime() : undefined;
}

/** The schema with the topics an article may name (the content checks pass the registry of the folder they check). */
export function articleSchemaWith(topicKeys: readonly string[]) {
  const known = new Set(topicKeys);
  return z
    .object({
      title: z.string().trim().min(1).max(120),
      description: z.string().trim().min(20).max(300),
      date: writtenDate,
      updated: writtenDate.optional(),
      /** A date more than a year ahead is meant (article-dates.ts): without this, it is taken for a typo. */
      [FAR_AHEAD_KEY]: z.boolean().default(false),
      /** Keys of content/blog/topics.json. */
      topics: z
        .array(
          z.string().refine((key) => known.has(key), {
            error: (issue) =>
              `unknown topic "${String(issue.input)}": topics are the keys of ${TOPICS_FILE} (${[...known].join(', ')})`,
          }),
        )
        .max(5)
        .refine((list) => new Set(list).size === list.length, 'names a topic twice')
        .default([]),
      draft: z.boolean().default(false),
      /** Articles that share a translation key are translations of each other; their slugs may differ. */
      translationKey: z
        .string()
        .regex(SLUG_PATTERN, 'translationKey must be lowercase words joined by hyphens')
        .optional(),
    })
    .strict()
    .refine(
      (a) => !a.updated || !instantOf(a.date) || !instantOf(a.updated) || instantOf(a.updated)! >= instantOf(a.date)!,
      { message: 'updated must not be before date', path: ['updated'] },
    );
}

export const articleSchema = articleSchemaWith([...TOPICS.keys()]);

/** Why a file name cannot be an article's slug, or undefined when it can. */
export function slugProblem(slug: string): string | undefined {
  if (!SLUG_PATTERN.test(slug))
    return `the file name "${slug}" must be a slug: lowercase letters and digits in words joined by single hyphens`;
  if (RESERVED_ARTICLE_SLUGS.has(slug))
    return `the file name "${slug}" is taken by the blog's own pages (/{lang}/blog/${slug}); reserved: ${[...RESERVED_ARTICLE_SLUGS].join(', ')}`;
  return undefined;
}
