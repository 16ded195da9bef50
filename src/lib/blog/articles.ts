// Published articles from the content layer, with their language, slug, translations, topics, neighbours and reading
// time resolved once for every page that shows them.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { getCollection, type CollectionEntry } from 'astro:content';
import { editorsPreview } from '../build-config.ts';
import { articleDates, isPublished } from './article-dates.ts';
import { pathOf, BLOG_SIZES, isLang, LANGS, type Lang } from '../surface.ts';
import { LOCALES } from '../locales.ts';
import { slugProblem } from './article-schema.ts';
import { TOPICS } from './topics.ts';
import { paths } from '../urls.ts';
import { paginate, type ListPage } from './pagination.ts';

interface ArticleLink {
  lang: Lang;
  slug: string;
  path: string;
  title: string;
}

export interface Article {
  lang: Lang;
  slug: string;
  path: string;
  entry: CollectionEntry<'blog'>;
  /** When it appears (its `date` as written, in the blog's time zone unless it names an offset: article-dates.ts). */
  date: Date;
  /** When it was last updated, read the same way. */
  updated?: Date;
  /** The same article in the other languages that have it: the articles that share its translationKey. */
  translations: { lang: Lang; slug: string; path: string; date: Date }[];
  /** Keys of content/blog/topics.json, as the front matter lists them. */
  topics: string[];
  /** Minutes to read the body at the language's reading speed (locales.ts), at least 1. */
  minutes: number;
  /** The next newer and next older article in the same language. */
  newer?: ArticleLink;
  older?: ArticleLink;
  /** Up to three articles of the same language sharing the most topics with it (newest first on a tie). */
  related: ArticleLink[];
}

/** How many related articles an article offers. */
const RELATED_COUNT = 3;

let cached: Promise<Article[]> | undefined;

/**
 * The articles readers see, newest first: not drafts, and not scheduled (dated after the build's time; the publish
 * workflow rebuilds on a schedule so they appear on their day). The preview (`npm run dev`) shows them all. Fails the
 * build on a bad file name or a duplicate translation.
 */
export function getArticles(): Promise<Article[]> {
  cached ??= load();
  return cached;
}

async function load(): Promise<Article[]> {
  // The editors' preview (Astro's dev server, `npm run dev`) shows drafts and scheduled articles; a build never does.
  const preview = editorsPreview;
  const now = new Date();
  const dated = (await getCollection('blog')).map((entry) => {
    // Astro's loader made Dates of the front matter itself; the dates are read again as the editor wrote them.
    const file = entry.filePath ?? `content/blog/${entry.id}.md`;
    return { entry, ...articleDates(readFileSync(resolve(file), 'utf8'), file) };
  });
  const entries = dated.filter((d) => preview || isPublished({ draft: d.entry.data.draft, date: d.date }, now));
  const articles: Article[] = entries.map(({ entry, date, updated }) => {
    const [lang, slug, ...rest] = entry.id.split('/');
    if (!isLang(lang) || !slug || rest.length > 0) {
      throw new Error(
        `content/blog/${entry.id}: articles live in ${LANGS.map((l) => `content/blog/${l}/`).join(', ')}`,
      );
    }
    const problem = slugProblem(slug);
    if (problem) throw new Error(`content/blog/${entry.id}.md: ${problem}`);
    return {
      lang,
      slug,
      path: pathOf('getBlogArticle', { lang, slug }),
      entry,
      date,
      ...(updated ? { updated } : {}),
      translations: [],
      topics: entry.data.topics.filter((key) => TOPICS.has(key)),
      minutes: readingMinutes(entry.body ?? '', lang),
      related: [],
    };
  });

  const byKey = new Map<string, Article>();
  for (const a of articles) {
    const key = a.entry.data.translationKey;
    if (!key) continue;
    const id = `${a.lang}:${key}`;
    const clash = byKey.get(id);
    if (clash) {
      throw new Error(
        `content/blog/${a.entry.id}.md and content/blog/${clash.entry.id}.md share translationKey "${key}" in one language`,
      );
    }
    byKey.set(id, a);
  }
  for (const a of articles) {
    const key = a.entry.data.translationKey;
    if (!key) continue;
    for (const lang of LANGS) {
      const other = lang === a.lang ? undefined : byKey.get(`${lang}:${key}`);
      if (other) a.translations.push({ lang: other.lang, slug: other.slug, path: other.path, date: other.date });
    }
  }

  articles.sort((a, b) => b.date.getTime() - a.date.getTime() || a.slug.localeCompare(b.slug));
  for (const lang of LANGS) linkNeighbours(articles.filter((a) => a.lang === lang));
  return articles;
}

/** Previous/next and related articles within one language's list (newest first). */
function linkNeighbours(list: Article[]): void {
  const byTopic = new Map<string, number[]>();
  list.forEach((a, i) => {
    for (const topic of a.topics) {
      const members = byTopic.get(topic);
      if (members) members.push(i);
      else byTopic.set(topic, [i]);
    }
  });
  list.forEach((a, i) => {
    const newer = list[i - 1];
    const older = list[i + 1];
    if (newer) a.newer = linkTo(newer);
    if (older) a.older = linkTo(older);
    const shared = new Map<number, number>();
    for (const topic of a.topics)
      for (const j of byTopic.get(topic) ?? []) if (j !== i) shared.set(j, (shared.get(j) ?? 0) + 1);
    a.related = best(shared, RELATED_COUNT).map((j) => linkTo(list[j]!));
  });
}

/**
 * The `n` articles sharing the most topics, the newest (lowest index) first on a tie: one pass, not a sort (at 2,000
 * articles a language, a topic holds hundreds).
 */
function best(shared: Map<number, number>, n: number): number[] {
  const top: [index: number, count: number][] = [];
  for (const [j, count] of shared) {
    const at = top.findIndex(([k, c]) => count > c || (count === c && j < k));
    if (at !== -1) top.splice(at, 0, [j, count]);
    else if (top.length < n) top.push([j, count]);
    if (top.length > n) top.pop();
  }
  return top.map(([j]) => j);
}

function linkTo(a: Article): ArticleLink {
  return { lang: a.lang, slug: a.slug, path: a.path, title: a.entry.data.title };
}

/**
 * Words: runs of letters and digits, with the marks (Arabic diacritics), apostrophes and hyphens inside them. Within 1%
 * of Intl.Segmenter's count on the bench's articles in both languages, and ten times faster (0.05 s against 0.5 s
 * for 4,000 articles): what separates words in Arabic and English is what separates them here.
 */
const WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}'’-]*/gu;

/** Reading time of a Markdown body: its words (code, URLs and markup left out) at the language's speed. */
function readingMinutes(markdown: string, lang: Lang): number {
  const text = markdown
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\]\([^)]*\)/g, ' ')
    .replace(/<[^<>]+>/g, ' ')
    .replace(/https?:\/\/\S+/g, ' ');
  const words = text.match(WORD)?.length ?? 0;
  return Math.max(1, Math.round(words / LOCALES[lang].wordsPerMinute));
}

export async function articlesIn(lang: Lang): Promise<Article[]> {
  return (await getArticles()).filter((a) => a.lang === lang);
}

/** The topics that have articles in `lang`, in the registry's order, with their articles (newest first). */
export async function topicsIn(lang: Lang): Promise<{ key: string; articles: Article[] }[]> {
  const list = await articlesIn(lang);
  return [...TOPICS.keys()]
    .map((key) => ({ key, articles: list.filter((a) => a.topics.includes(key)) }))
    .filter((t) => t.articles.length > 0);
}

/** The blog index of `lang`, page by page. */
export async function blogPages(lang: Lang): Promise<ListPage<Article>[]> {
  return paginate(await articlesIn(lang), (n) => paths.blogPage(lang, n));
}

/** A topic's articles in `lang`, page by page (none when the topic has no article in that language). */
async function topicPages(lang: Lang, key: string): Promise<ListPage<Article>[]> {
  const list = (await articlesIn(lang)).filter((a) => a.topics.includes(key));
  return list.length === 0 ? [] : paginate(list, (n) => paths.topic(lang, key, n));
}

/** Items in each feed (RSS and JSON Feed): the newest articles; the index pages list them all (surface.ts). */
export const FEED_SIZE = BLOG_SIZES.feed;

/** One page of a topic in one language, with how many pages the topic has in each language (for its links). */
export interface TopicListPage {
  lang: Lang;
  topic: string;
  page: ListPage<Article>;
  counts: Record<Lang, number>;
}

/** Every page of every topic in every language: the topic routes take the first pages and the rest. */
export async function allTopicPages(): Promise<TopicListPage[]> {
  const all: TopicListPage[] = [];
  for (const topic of TOPICS.keys()) {
    const pages = Object.fromEntries(
      await Promise.all(LANGS.map(async (l) => [l, await topicPages(l, topic)] as const)),
    ) as Record<Lang, ListPage<Article>[]>;
    const counts = Object.fromEntries(LANGS.map((l) => [l, pages[l].length])) as Record<Lang, number>;
    for (const lang of LANGS) for (const page of pages[lang]) all.push({ lang, topic, page, counts });
  }
  return all;
}
