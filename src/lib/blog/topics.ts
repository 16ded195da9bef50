// The blog's topics, declared once in content/blog/topics.json: a stable key (what editors write in an article's
// `topics`) and a name in every language of the site, the way translationKey pairs translations. Pages, feeds, the
// articles list, the MCP tool's filter and the content checks all read it from here.
import { z } from 'zod';
import registry from '../../../content/blog/topics.json' with { type: 'json' };
import { LANGS, type Lang } from '../locales.ts';
import { SLUG_PATTERN } from '../surface.ts';

export const TOPICS_FILE = 'content/blog/topics.json';

export type TopicNames = Record<Lang, string>;

const names = z
  .object(
    Object.fromEntries(LANGS.map((lang) => [lang, z.string().trim().min(1).max(60)])) as Record<Lang, z.ZodString>,
  )
  .strict();

/**
 * The registry's valid topics, and a message for every entry that is not (a key that is not a slug, a name missing
 * in a language): the content checks report the problems, the rest of the build uses the valid topics.
 */
export function parseTopics(value: unknown): {
  topics: Map<string, TopicNames>;
  problems: { key?: string; message: string }[];
} {
  const topics = new Map<string, TopicNames>();
  const problems: { key?: string; message: string }[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      topics,
      problems: [{ message: 'must be an object of topics: { "key": { "en": "Name", "ar": "الاسم" } }' }],
    };
  }
  for (const [key, entry] of Object.entries(value)) {
    if (!SLUG_PATTERN.test(key))
      problems.push({ key, message: `the key "${key}" must be lowercase words joined by hyphens` });
    const parsed = names.safeParse(entry);
    if (!parsed.success) {
      problems.push({
        key,
        message: `"${key}": ${parsed.error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; ')} (every topic has a name in ${LANGS.join(' and ')})`,
      });
    } else if (SLUG_PATTERN.test(key)) topics.set(key, parsed.data);
  }
  return { topics, problems };
}

/** The site's topics, in the registry's order. */
export const TOPICS: ReadonlyMap<string, TopicNames> = parseTopics(registry).topics;

export function topicName(key: string, lang: Lang): string {
  return TOPICS.get(key)?.[lang] ?? key;
}
