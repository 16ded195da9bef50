// The docs name things that must exist: a page they link to and its heading, a file or folder of the repository, an
// npm script, an environment variable. A rename that leaves a doc behind fails here, not in a reader's terminal.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/env.ts';

const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: projectRoot,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file !== '' && existsSync(join(projectRoot, file)));
const folders = new Set(
  tracked.flatMap((file) =>
    file
      .split('/')
      .slice(0, -1)
      .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
  ),
);
const basenames = new Set(tracked.map((file) => basename(file)));

/** The pages a contributor reads: the README and docs/, the benchmark records included. */
const pages = tracked.filter((file) => file === 'README.md' || (file.startsWith('docs/') && file.endsWith('.md')));

const scripts = Object.keys(
  (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts,
);

/** Every name the code reads from the environment, wherever it reads it. */
const sources = tracked.filter(
  (file) => /\.(?:ts|mjs|js|sh|yml|vcl|conf|service|sql)$/.test(file) && !file.startsWith('docs/'),
);
const sourceText = sources.map((file) => readFileSync(join(projectRoot, file), 'utf8')).join('\n');

/** Prose only: fenced blocks hold commands and output, checked by the command rule below on their own. */
function withoutFences(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
}

function anchorsOf(file: string): Set<string> {
  const slugger = new GithubSlugger();
  const headings = withoutFences(readFileSync(join(projectRoot, file), 'utf8')).match(/^#{1,6} .+$/gm) ?? [];
  return new Set(headings.map((heading) => slugger.slug(heading.replace(/^#+ /, '').replace(/`/g, ''))));
}

/** Backticked spans of a page's prose and tables. */
function codeSpans(text: string): string[] {
  return [...withoutFences(text).matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);
}

/** The repository paths a page names: a backticked span that starts with a top-level folder of the repository. */
const TOP = ['sidecar', 'src', 'scripts', 'test', 'deploy', 'docs', 'content', '.github', '.ci', 'public'];
function namedPaths(span: string): string[] {
  return span
    .split(/[\s,()]+/)
    .filter((word) => TOP.some((top) => word.startsWith(top + '/')))
    .map(withoutTrailingPunctuation)
    .filter((word) => !/[{}*<>[\]|]|\.\.\./.test(word));
}

/** What the docs name as an example of what a reader would create: an article, a language's folder, a page's twin. */
const EXAMPLES = new Set(['content/blog/en/my-article.md', 'content/blog/fr', 'x.md']);

/** Variables read by what runs the code rather than by the code: glibc's allocator. */
const OUTSIDE_VARIABLES = new Set(['GLIBC_TUNABLES']);

/** `sidecar/config.ts.` or `docs/` as a sentence ends them: the name without its last dots, colons and slash. */
function withoutTrailingPunctuation(word: string): string {
  let end = word.length;
  while (end > 0 && '.:;/'.includes(word[end - 1]!)) end -= 1;
  return word.slice(0, end);
}

const FILE_NAME = /^[\w.-]+\.(?:ts|mjs|js|json|md|sql|vcl|sh|conf|yml|service|astro|css|txt)$/;

describe('the docs', () => {
  it('cover the README and every page of docs/', () => {
    expect(pages).toContain('README.md');
    expect(pages).toContain('docs/benchmarks/README.md');
    expect(pages.length).toBeGreaterThan(10);
  });

  for (const page of pages) {
    const text = readFileSync(join(projectRoot, page), 'utf8');

    it(`${page}: every relative link reaches a page and its heading`, () => {
      const broken: string[] = [];
      for (const [, target] of withoutFences(text)
        .replace(/`[^`\n]+`/g, '')
        .matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(?:[a-z]+:|\/)/i.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const file = path === '' ? page : relative(projectRoot, join(projectRoot, dirname(page), path));
        const exists = tracked.includes(file) || folders.has(file.replace(/\/$/, ''));
        if (!exists) broken.push(`${target}: no ${file}`);
        else if (anchor !== undefined && !anchorsOf(file).has(anchor))
          broken.push(`${target}: no heading #${anchor} in ${file}`);
      }
      expect(broken).toEqual([]);
    });

    it(`${page}: every file and folder it names exists`, () => {
      const missing: string[] = [];
      for (const span of codeSpans(text)) {
        for (const path of namedPaths(span)) {
          if (!tracked.includes(path) && !folders.has(path) && !EXAMPLES.has(path)) missing.push(path);
        }
        if (FILE_NAME.test(span) && !basenames.has(span) && !served(span) && !EXAMPLES.has(span)) missing.push(span);
      }
      expect(missing).toEqual([]);
    });

    it(`${page}: every npm script it runs is in package.json`, () => {
      const unknown = [...text.matchAll(/npm run (?:--silent )?([\w:-]+)/g)]
        .map((match) => match[1]!)
        .filter((name) => !scripts.includes(name));
      expect(unknown).toEqual([]);
    });

    it(`${page}: every environment variable it names is read by the code`, () => {
      const names = codeSpans(text).flatMap((span) =>
        [...span.matchAll(/\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g)].map((match) => match[1]!),
      );
      const unread = [...new Set(names)].filter(
        (name) => !OUTSIDE_VARIABLES.has(name) && !new RegExp(`\\b${name}\\b`).test(sourceText),
      );
      expect(unread).toEqual([]);
    });
  }
});

/** Documents the service answers at a URL, named in the docs by that name (`llms.txt`, `auth.md`), not files here. */
function served(name: string): boolean {
  return [
    'llms.txt',
    'llms-full.txt',
    'auth.md',
    'robots.txt',
    'index.md',
    'security.txt',
    'api-catalog.json',
    'openapi.json',
    'server-card.json',
  ].includes(name);
}
