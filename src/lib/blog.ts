// Published articles from the content layer, with their language, slug and translations resolved once.
import { getCollection, type CollectionEntry } from 'astro:content';
import { isLang, LANGS, SLUG_PATTERN, type Lang } from './surface.ts';
import { paths } from './urls.ts';

export interface Article {
  lang: Lang;
  slug: string;
  path: string;
  entry: CollectionEntry<'blog'>;
  /** The same article in the other languages that have it: the articles that share its translationKey. */
  translations: { lang: Lang; slug: string; path: string }[];
}


let cached: Promise<Article[]> | undefined;

/** All published (non-draft) articles, newest first. Fails the build on a bad file name or a duplicate translation. */
export function getArticles(): Promise<Article[]> {
  cached ??= load();
  return cached;
}

async function load(): Promise<Article[]> {
  const entries = await getCollection('blog', (e) => !e.data.draft);
  const articles: Article[] = entries.map((entry) => {
    const [lang, slug, ...rest] = entry.id.split('/');
    if (!isLang(lang) || !slug || rest.length > 0) {
      throw new Error(`content/blog/${entry.id}: articles live in ${LANGS.map((l) => `content/blog/${l}/`).join(', ')}`);
    }
    if (!SLUG_PATTERN.test(slug)) {
      throw new Error(`content/blog/${entry.id}.md: the file name must be a slug of lowercase letters, digits and hyphens`);
    }
    return { lang: lang as Lang, slug, path: paths.article(lang as Lang, slug), entry, translations: [] };
  });

  const byKey = new Map<string, Article>();
  for (const a of articles) {
    const key = a.entry.data.translationKey;
    if (!key) continue;
    const id = `${a.lang}:${key}`;
    const clash = byKey.get(id);
    if (clash) {
      throw new Error(`content/blog/${a.entry.id}.md and content/blog/${clash.entry.id}.md share translationKey "${key}" in one language`);
    }
    byKey.set(id, a);
  }
  for (const a of articles) {
    const key = a.entry.data.translationKey;
    if (!key) continue;
    for (const lang of LANGS) {
      const other = lang === a.lang ? undefined : byKey.get(`${lang}:${key}`);
      if (other) a.translations.push({ lang: other.lang, slug: other.slug, path: other.path });
    }
  }

  return articles.sort((a, b) => b.entry.data.date.getTime() - a.entry.data.date.getTime() || a.slug.localeCompare(b.slug));
}

export async function articlesIn(lang: Lang): Promise<Article[]> {
  return (await getArticles()).filter((a) => a.lang === lang);
}
