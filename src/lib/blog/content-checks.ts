// The content checks (`npm run check:content`, and the build before it starts): every mistake in content/blog, all
// at once, each with its file, its line where it has one, the value and what is expected. Front matter (the
// collection's own schema), file names, translation pairs, internal links (articles, anchors, images) and the syntax
// of external links. External links are not fetched.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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
  data: Record<string, unknown>;
  draft: boolean;
  translationKey: string | undefined;
  anchors: Set<string>;
}

const LINK = /(!?)\[([^[\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const SCHEMES = /^(https?|mailto|tel):/i;

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

/** The problems of the articles under `root`, and what is scheduled, at `now`. */
export function contentReport(root: string, now = new Date()): ContentReport {
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
      const lines = text.split('\n');
      const slug = name.slice(0, -'.md'.length);
      const badSlug = slugProblem(slug);
      if (badSlug) say(file, undefined, badSlug);
      let parsed: { data: Record<string, unknown> };
      try {
        // As written: a date stays the text the editor typed (article-dates.ts).
        parsed = { data: writtenFrontMatter(text) };
      } catch (err) {
        say(file, 1, (err as Error).message.split('\n')[0]!);
        continue;
      }
      const frontLines = text.startsWith('---') ? lines.indexOf('---', 1) + 1 : 0;
      const result = articleSchema.safeParse(parsed.data);
      if (!result.success) {
        for (const issue of result.error.issues) {
          const key = String(issue.path[0] ?? '');
          const given =
            key && key in parsed.data
              ? issue.path.length > 1
                ? (parsed.data[key] as unknown[])[issue.path[1] as number]
                : parsed.data[key]
              : undefined;
          const shown = given === undefined ? undefined : JSON.stringify(given);
          const value = shown === undefined || issue.message.startsWith(shown) ? '' : ` (got ${shown})`;
          say(file, key ? keyLine(lines, frontLines, key) : 1, `${key || 'front matter'}: ${issue.message}${value}`);
        }
      }
      // When it appears: a date still ahead is listed; more than a year ahead is a mistake unless the article says so.
      const written = writtenDates(parsed.data).date;
      const when = written === undefined ? undefined : readWrittenDate(written);
      if (when?.ok && parsed.data.draft !== true && when.instant.getTime() > now.getTime()) {
        const at = when.instant.getTime();
        if (at - now.getTime() > MAX_AHEAD_DAYS * 86_400_000 && parsed.data[FAR_AHEAD_KEY] !== true) {
          say(
            file,
            keyLine(lines, frontLines, 'date'),
            `date: "${written}" is more than a year ahead (it would appear on ${describeMoment(when.instant)}): if that is meant, add "${FAR_AHEAD_KEY}: true"; if not, correct the year`,
          );
        } else {
          scheduled.push({ at, line: `${relative(root, file)}: appears on ${describeMoment(when.instant)}` });
        }
      }
      const slugger = new GithubSlugger();
      const anchors = new Set<string>();
      for (const line of lines.slice(frontLines)) {
        const text = headingText(line);
        if (text) anchors.add(slugger.slug(text.replace(/[*_`]/g, '')));
      }
      const data = parsed.data;
      articles.push({
        file,
        lang: folder,
        slug,
        lines,
        bodyStart: frontLines + 1,
        data,
        draft: data.draft === true,
        translationKey: typeof data.translationKey === 'string' ? data.translationKey : undefined,
        anchors,
      });
    }
  }

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
