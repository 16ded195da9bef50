// The content checks (`npm run check:content`, and the build before it starts): every mistake in content/blog, all
// at once, each with its file, its line where it has one, the value and what is expected. Front matter (the
// collection's own schema), file names, translation pairs, internal links (articles, anchors, images) and the syntax
// of external links. External links are not fetched.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import {
  describeMoment,
  FAR_AHEAD_KEY,
  MAX_AHEAD_DAYS,
  readWrittenDate,
  writtenDates,
  writtenFrontMatter,
} from './article-dates.ts';
import { articleSchemaWith, slugProblem } from './article-schema.ts';
import { BLOG_TIME_ZONE, CALENDAR_FILE } from './calendar.ts';
import { isLang, LANGS, pathOf, RESERVED_ARTICLE_SLUGS } from '../surface.ts';
import { parseTopics, TOPICS_FILE } from './topics.ts';

interface Article {
  file: string;
  lang: string;
  slug: string;
  lines: string[];
  /** Line number (1-based) of the first body line. */
  bodyStart: number;
  draft: boolean;
  translationKey: string | undefined;
  anchors: Set<string>;
}

const LINK = /(!?)\[([^[\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const SCHEMES = /^(https?|mailto|tel):/i;

/**
 * What one article's file says by itself, whatever the others say and whenever it is checked: its problems (its
 * name, its front matter against the schema), and what the checks across articles and of the calendar read of it;
 * no `article` when its front matter cannot be read at all (it is left out of those checks). Kept between runs
 * (ContentCache) under a hash of the file's name and text and of everything else it depends on.
 */
interface FileVerdict {
  problems: [line: number | undefined, message: string][];
  article?: {
    bodyStart: number;
    draft: boolean;
    translationKey?: string;
    anchors: string[];
    /** `date` as written, the moment it names (when it names one), and its line. */
    written?: string;
    instant?: number;
    dateLine: number;
    farAhead: boolean;
  };
}

/**
 * Where the verdicts of unchanged files are kept between runs (the build passes one in .cache/bio-build/; a file),
 * and a hash of the code that makes them: a changed article, changed code, other topics or another time zone are
 * checked again.
 */
export interface ContentCache {
  file: string;
  code: string;
}

/** The code a file's verdict is made by, from the project's root (the build hashes it for its ContentCache). */
export const CONTENT_CHECK_CODE = [
  'src/lib/blog/content-checks.ts',
  'src/lib/blog/article-schema.ts',
  'src/lib/blog/article-dates.ts',
  'src/lib/blog/topics.ts',
  'src/lib/surface.ts',
  'src/lib/locales.ts',
];

/** Every problem of the articles under `root` (the project), as `file:line: message` lines; none when all is well. */
export function checkContent(root: string, now = new Date()): string[] {
  return contentReport(root, now).problems;
}

export interface ContentReport {
  /** Every mistake, as `file:line: message` lines. */
  problems: string[];
  /** Every article not yet shown because its date is ahead, soonest first: `file: appears on … (zone)`. */
  scheduled: string[];
}

/** What is scheduled, in lines for a person: a heading, then an article a line (or that nothing is). */
export function scheduledLines(scheduled: string[]): string[] {
  if (scheduled.length === 0)
    return [
      `Scheduled: nothing (every article is out, or a draft). Dates without an hour are midnight in ${BLOG_TIME_ZONE} (${CALENDAR_FILE}).`,
    ];
  return [
    `Scheduled: ${scheduled.length} article${scheduled.length === 1 ? '' : 's'}, not shown until then (dates without an hour are midnight in ${BLOG_TIME_ZONE}, ${CALENDAR_FILE}):`,
    ...scheduled.map((line) => `  ${line}`),
  ];
}

/** The verdict on one article's file (its text, its slug, the schema of this folder's topics). */
function fileVerdict(text: string, slug: string, articleSchema: ReturnType<typeof articleSchemaWith>): FileVerdict {
  const problems: FileVerdict['problems'] = [];
  const lines = text.split('\n');
  const badSlug = slugProblem(slug);
  if (badSlug) problems.push([undefined, badSlug]);
  let data: Record<string, unknown>;
  try {
    // As written: a date stays the text the editor typed (article-dates.ts).
    data = writtenFrontMatter(text);
  } catch (err) {
    problems.push([1, (err as Error).message.split('\n')[0]!]);
    return { problems };
  }
  const frontLines = text.startsWith('---') ? lines.indexOf('---', 1) + 1 : 0;
  const result = articleSchema.safeParse(data);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const key = String(issue.path[0] ?? '');
      const given =
        key && key in data
          ? issue.path.length > 1
            ? (data[key] as unknown[])[issue.path[1] as number]
            : data[key]
          : undefined;
      const shown = given === undefined ? undefined : JSON.stringify(given);
      const value = shown === undefined || issue.message.startsWith(shown) ? '' : ` (got ${shown})`;
      problems.push([key ? keyLine(lines, frontLines, key) : 1, `${key || 'front matter'}: ${issue.message}${value}`]);
    }
  }
  const written = writtenDates(data).date;
  const when = written === undefined ? undefined : readWrittenDate(written);
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const line of lines.slice(frontLines)) {
    const heading = headingText(line);
    if (heading) anchors.add(slugger.slug(heading.replace(/[*_`]/g, '')));
  }
  return {
    problems,
    article: {
      bodyStart: frontLines + 1,
      draft: data.draft === true,
      ...(typeof data.translationKey === 'string' ? { translationKey: data.translationKey } : {}),
      anchors: [...anchors],
      ...(written === undefined ? {} : { written }),
      ...(when?.ok ? { instant: when.instant.getTime() } : {}),
      dateLine: keyLine(lines, frontLines, 'date'),
      farAhead: data[FAR_AHEAD_KEY] === true,
    },
  };
}

/** The verdicts kept by the last run, by key; every verdict of this run is kept for the next, and no other. */
function openVerdicts(cache: ContentCache | undefined) {
  let kept: Record<string, FileVerdict> = {};
  if (cache && existsSync(cache.file)) {
    try {
      kept = JSON.parse(readFileSync(cache.file, 'utf8')) as Record<string, FileVerdict>;
    } catch {
      // Unreadable: every file is checked.
    }
  }
  const next: Record<string, FileVerdict> = {};
  return {
    verdict(context: string, name: string, text: string, make: () => FileVerdict): FileVerdict {
      if (!cache) return make();
      const key = createHash('sha256').update(context).update(`\0${name}\0`).update(text).digest('base64url');
      return (next[key] = kept[key] ?? make());
    },
    save() {
      if (!cache) return;
      // Whole or not at all: written beside, then renamed into place.
      const tmp = `${cache.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(next));
      renameSync(tmp, cache.file);
    },
  };
}

/**
 * The problems of the articles under `root`, and what is scheduled, at `now`; with a cache, a file whose verdict is
 * kept there is not read again as YAML nor against the schema.
 */
export function contentReport(root: string, now = new Date(), cache?: ContentCache): ContentReport {
  const base = join(root, 'content', 'blog');
  const problems: string[] = [];
  const scheduled: { at: number; line: string }[] = [];
  const say = (file: string, line: number | undefined, message: string) =>
    problems.push(`${relative(root, file)}${line ? `:${line}` : ''}: ${message}`);
  const articles: Article[] = [];

  // The topics registry: each problem at its key's line.
  const topicsFile = join(root, TOPICS_FILE);
  let topicKeys: string[] = [];
  if (existsSync(topicsFile)) {
    const text = readFileSync(topicsFile, 'utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      say(topicsFile, undefined, `is not valid JSON: ${(err as Error).message}`);
    }
    if (value !== undefined) {
      const { topics, problems: topicProblems } = parseTopics(value);
      const lines = text.split('\n');
      for (const problem of topicProblems) {
        const at = problem.key === undefined ? -1 : lines.findIndex((l) => l.includes(JSON.stringify(problem.key)));
        say(topicsFile, at === -1 ? 1 : at + 1, problem.message);
      }
      topicKeys = [...topics.keys()];
    }
  } else {
    say(
      topicsFile,
      undefined,
      'is missing: it declares the topics articles may name ({ "key": { "en": "Name", "ar": "الاسم" } })',
    );
  }
  const articleSchema = articleSchemaWith(topicKeys);
  // What a file's verdict depends on besides its name and text.
  const context = JSON.stringify([cache?.code, topicKeys, BLOG_TIME_ZONE, process.versions.tz]);
  const verdicts = openVerdicts(cache);

  for (const folder of existsSync(base) ? readdirSync(base) : []) {
    const dir = join(base, folder);
    if (!statSync(dir).isDirectory() || folder === 'images') continue;
    if (!isLang(folder)) {
      say(
        dir,
        undefined,
        `"${folder}" is not a language of the site (${LANGS.join(', ')}): articles live in content/blog/{${LANGS.join(',')}}/`,
      );
      continue;
    }
    for (const name of readdirSync(dir)
      .filter((n) => n.endsWith('.md'))
      .sort()) {
      const file = join(dir, name);
      const text = readFileSync(file, 'utf8');
      const slug = name.slice(0, -'.md'.length);
      const { problems: own, article } = verdicts.verdict(context, relative(root, file), text, () =>
        fileVerdict(text, slug, articleSchema),
      );
      for (const [line, message] of own) say(file, line, message);
      if (!article) continue;
      // When it appears: a date still ahead is listed; more than a year ahead is a mistake unless the article says so.
      const at = article.instant;
      if (at !== undefined && !article.draft && at > now.getTime()) {
        if (at - now.getTime() > MAX_AHEAD_DAYS * 86_400_000 && !article.farAhead) {
          say(
            file,
            article.dateLine,
            `date: "${article.written}" is more than a year ahead (it would appear on ${describeMoment(new Date(at))}): if that is meant, add "${FAR_AHEAD_KEY}: true"; if not, correct the year`,
          );
        } else {
          scheduled.push({ at, line: `${relative(root, file)}: appears on ${describeMoment(new Date(at))}` });
        }
      }
      articles.push({
        file,
        lang: folder,
        slug,
        lines: text.split('\n'),
        bodyStart: article.bodyStart,
        draft: article.draft,
        translationKey: article.translationKey,
        anchors: new Set(article.anchors),
      });
    }
  }
  verdicts.save();

  // Translations: a key pairs articles of different languages; two in one language, or one alone, is a mistake.
  const byKey = new Map<string, Article[]>();
  for (const a of articles)
    if (a.translationKey && !a.draft) byKey.set(a.translationKey, [...(byKey.get(a.translationKey) ?? []), a]);
  for (const [key, group] of byKey) {
    for (const lang of LANGS) {
      const same = group.filter((a) => a.lang === lang);
      if (same.length > 1)
        for (const a of same.slice(1))
          say(
            a.file,
            keyLine(a.lines, a.bodyStart, 'translationKey'),
            `translationKey "${key}" is also used by ${relative(root, same[0]!.file)} in the same language: one article per language`,
          );
    }
    if (new Set(group.map((a) => a.lang)).size < 2)
      say(
        group[0]!.file,
        keyLine(group[0]!.lines, group[0]!.bodyStart, 'translationKey'),
        `translationKey "${key}" pairs no translation: no published article in another language (${LANGS.filter((l) => l !== group[0]!.lang).join(', ')}) has it`,
      );
  }

  // Links and images in the bodies.
  const published = new Map(
    articles.filter((a) => !a.draft).map((a) => [pathOf('getBlogArticle', { lang: a.lang, slug: a.slug }), a]),
  );
  for (const a of articles) {
    a.lines.forEach((line, i) => {
      if (i < a.bodyStart - 1) return;
      for (const match of line.matchAll(LINK)) {
        const [, bang, label, target] = match as unknown as [string, string, string, string];
        const at = i + 1;
        if (bang && !label.trim())
          say(a.file, at, `an image without alt text: ![](${target}) — describe what it shows`);
        if (SCHEMES.test(target)) {
          try {
            new URL(target);
          } catch {
            say(a.file, at, `"${target}" is not a valid URL`);
          }
          continue;
        }
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
          say(a.file, at, `"${target}": only https, http, mailto and tel links are allowed`);
          continue;
        }
        const [path = '', anchor] = target.split('#');
        if (!path) {
          if (anchor && !a.anchors.has(anchor))
            say(
              a.file,
              at,
              `"#${anchor}": no heading of this article has that anchor (${[...a.anchors].slice(0, 5).join(', ') || 'it has no headings'})`,
            );
          continue;
        }
        if (!path.startsWith('/')) {
          // Relative: an image or file beside the content.
          if (!existsSync(resolve(join(a.file, '..'), path)))
            say(a.file, at, `"${target}": no file at ${relative(root, resolve(join(a.file, '..'), path))}`);
          continue;
        }
        const topic = /^\/([^/]+)\/blog\/topics\/([^/]+)$/.exec(path);
        if (topic) {
          if (!topicKeys.includes(topic[2]!))
            say(a.file, at, `"${target}": no topic "${topic[2]}" in ${TOPICS_FILE} (${topicKeys.join(', ')})`);
          continue;
        }
        const article = /^\/([^/]+)\/blog\/([^/]+)$/.exec(path);
        if (article && RESERVED_ARTICLE_SLUGS.has(article[2]!)) continue;
        if (article) {
          const linked = published.get(path);
          if (!linked) say(a.file, at, `"${target}": no published article ${article[2]} in ${article[1]}`);
          else if (anchor && !linked.anchors.has(anchor))
            say(a.file, at, `"${target}": ${relative(root, linked.file)} has no heading with the anchor "${anchor}"`);
        }
      }
    });
  }
  return { problems, scheduled: scheduled.sort((a, b) => a.at - b.at).map((s) => s.line) };
}

/** The line (1-based) of a front-matter key among the first `frontLines` lines; the first line when it is absent. */
function keyLine(lines: string[], frontLines: number, key: string): number {
  const at = lines.slice(0, frontLines).findIndex((l) => l.startsWith(`${key}:`));
  return at === -1 ? 1 : at + 1;
}

/**
 * The text of an ATX heading line (`## Title ##` → `Title`), or undefined for any other line. Read by hand: a pattern
 * for the closing `#`s and the spaces around them had runs of spaces that it could read several ways (backtracking).
 */
function headingText(line: string): string | undefined {
  const open = /^#{1,6}[ \t]+/.exec(line);
  if (!open) return undefined;
  let end = line.length;
  const trimEnd = () => {
    while (end > open[0].length && (line[end - 1] === ' ' || line[end - 1] === '\t')) end--;
  };
  trimEnd();
  while (end > open[0].length && line[end - 1] === '#') end--;
  trimEnd();
  const text = line.slice(open[0].length, end);
  return text === '' ? undefined : text;
}
