// The build at scale, as an editor waits for it (`npm run bench -- --build [--articles N]`, docs/benchmarks/build.md; the
// full bench's "Build" rows come from here too). A copy of the project with N generated articles a language (the
// QR/NFC article's body in that language, two topics each), built three ways: cold (every cache empty), again after
// one article's text changed (what an editor's push costs; the median of three edits), and Hugo (Debian's, installed
// when missing) building the same articles, so the comparison is always measured. Reports each step's share, the
// sizes of what the blog adds (index and topic pages, the search index, Open Graph images) and what a phone
// downloads of the search index for a typical query.
import { spawnSync } from 'node:child_process';
import { writeRecord } from './records.ts';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { filesUnder } from '../../src/lib/files.ts';
import { LANGS } from '../../src/lib/locales.ts';
import { TOPICS } from '../../src/lib/blog/topics.ts';
import { projectRoot } from '../ensure-build.ts';
import { cleanEnv } from '../sidecar-process.ts';
import { fmt } from './numbers.ts';
import { currentRevision, demoDatabase, scratch, worktreeAt } from './harness.ts';
import { loadConfig } from '../../sidecar/config.ts';
import type { Lang } from '../../src/lib/surface.ts';

export interface BuildTimes {
  seconds: number;
  /** Seconds of each post-build step, by the name its log line gives. */
  steps: Record<string, number>;
}

export interface BuildBench {
  perLang: number;
  cold: BuildTimes;
  rebuild: BuildTimes;
  hugoSeconds?: number;
  /**
   * Astro alone on the same articles: a project with the same content collection and one page that reads none of it,
   * rebuilt after one edit (the median of three): what any Astro site holding these articles pays before rendering a
   * page (starting, syncing the content layer, bundling), which no change to this project's code can remove.
   */
  astroFloorSeconds: number;
  sizes: {
    listPages: number;
    topicPages: number;
    searchIndexBytes: number;
    searchIndexFiles: number;
    ogImages: number;
    ogBytes: number;
  };
  /** dist/ of the build, for a caller that serves it (removed by the caller's scratch). */
  dist: string;
}

const STEPS: [name: string, pattern: RegExp][] = [
  ['content checks', /\[content-checks\].* in (\d+) ms/],
  ['Markdown twins', /Markdown twins .*in (\d+) ms/],
  ['search index', /search index of .* in (\d+) ms/],
  ['Open Graph images', /Open Graph images drawn.* in (\d+) ms/],
  ['precompression', /precompressed .* in (\d+) ms/],
  ['publish manifest', /files in publish-manifest\.json in (\d+) ms/],
];

export function timedBuild(dir: string): BuildTimes {
  const started = performance.now();
  const out = spawnSync(process.execPath, [join(projectRoot, 'node_modules/astro/bin/astro.mjs'), 'build'], {
    cwd: dir,
    env: cleanEnv({ LOG_LEVEL: 'warn' }),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const seconds = (performance.now() - started) / 1000;
  if (out.status !== 0) throw new Error(`the build failed:\n${out.stdout.slice(-2000)}${out.stderr.slice(-2000)}`);
  const steps: Record<string, number> = {};
  for (const [name, pattern] of STEPS) {
    const ms = pattern.exec(out.stdout)?.[1];
    if (ms !== undefined) steps[name] = Number(ms) / 1000;
  }
  const pages = /prerendering static routes[\s\S]*?✓ Completed in ([\d.]+)(m?s)/.exec(out.stdout);
  if (pages) steps['pages (Astro)'] = Number(pages[1]) / (pages[2] === 'ms' ? 1000 : 1);
  return { seconds, steps };
}

/** Debian's Hugo, installed when missing and this runs as root; undefined when it cannot be had. */
function hugoBinary(): string | undefined {
  if (spawnSync('hugo', ['version']).status === 0) return 'hugo';
  if (
    process.getuid?.() === 0 &&
    spawnSync('apt-get', ['install', '-y', '-qq', 'hugo'], {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status === 0
  )
    return 'hugo';
  return undefined;
}

const bytesUnder = (dir: string) => filesUnder(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);

/**
 * A copy of the project under `scratch` with `perLang` generated articles a language (each language's QR/NFC article's
 * body, two topics each), and the same articles as Hugo content under its `hugo/` folder.
 */
export function scaledProject(perLang: number, scratch: string, root = projectRoot): string {
  const dir = mkdtempSync(join(scratch, `build-${perLang}-`));
  for (const entry of ['src', 'content', 'public', 'astro.config.mjs', 'package.json', 'tsconfig.json'])
    cpSync(join(root, entry), join(dir, entry), { recursive: true });
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
  // Each language's own QR/NFC article (translationKey qr-nfc-cards): Arabic search is measured on Arabic text.
  const bodyOf = (lang: string) => {
    const folder = join(root, 'content/blog', lang);
    const text = readdirSync(folder)
      .map((f) => readFileSync(join(folder, f), 'utf8'))
      .find((t) => /^translationKey: qr-nfc-cards$/m.test(t));
    if (!text) throw new Error(`no article with translationKey qr-nfc-cards in ${folder}`);
    return text.split('---').slice(2).join('---');
  };
  const topics = [...TOPICS.keys()];
  const hugo = join(dir, 'hugo');
  for (const lang of LANGS) {
    mkdirSync(join(hugo, 'content', lang), { recursive: true });
    const body = bodyOf(lang);
    for (let i = 0; i < perLang; i++) {
      const date = `2026-01-${String((i % 28) + 1).padStart(2, '0')}`;
      const front = (extra: string) =>
        `---\ntitle: Generated article ${i} (${lang})\ndescription: A generated article used to measure the build at scale.\ndate: ${date}\n${extra}---\n`;
      writeFileSync(
        join(dir, 'content/blog', lang, `generated-${i}.md`),
        front(`topics: [${topics[i % topics.length]}, ${topics[(i + 3) % topics.length]}]\n`) + body,
      );
      writeFileSync(join(hugo, 'content', lang, `generated-${i}.md`), front('') + body);
    }
  }
  return dir;
}

/** Edits the text of generated article `i` (English), as an editor's push would. */
export function editArticle(dir: string, i: number): void {
  const edited = join(dir, 'content/blog/en', `generated-${i}.md`);
  writeFileSync(
    edited,
    readFileSync(edited, 'utf8').replace('There are two ways to do it', 'There are exactly two ways to do it'),
  );
}

/** The build bench at `perLang` articles a language, of the code at `root` (this checkout's unless told), with Hugo. */
export function buildBench(perLang: number, scratch: string, root = projectRoot): BuildBench {
  return buildBenches(perLang, scratch, [root])[0]!;
}

/**
 * The build bench of the code at each of `roots`, each in a project of its own with the same articles, their builds
 * taking turns (every cold build, then each edit's rebuild in every project before the next edit), so that what the
 * machine does meanwhile falls on all alike; Hugo once, on the same articles.
 */
export function buildBenches(perLang: number, scratch: string, roots: string[]): BuildBench[] {
  const dirs = roots.map((root) => scaledProject(perLang, scratch, root));
  // The order of the turns alternates: the first build of a run pays for what the next ones find made (Node's
  // compiled modules, the disk's writes), so four runs had the first of two cold builds 1-11% slower, whichever code it
  // was. Each project is built cold twice, in one order and then the other (its caches emptied between), and the
  // mean reported (for the baseline's comparison; alone, once); each cold build starts with the disk's writes settled.
  const order = (round: number) => (round % 2 === 0 ? dirs.map((_, k) => k) : dirs.map((_, k) => dirs.length - 1 - k));
  const colds = dirs.map((): BuildTimes[] => []);
  for (const round of dirs.length > 1 ? [0, 1] : [0])
    for (const k of order(round)) {
      const dir = dirs[k]!;
      rmSync(join(dir, '.cache'), { recursive: true, force: true });
      rmSync(join(dir, 'dist'), { recursive: true, force: true });
      spawnSync('sync');
      colds[k]!.push(timedBuild(dir));
    }
  // Three edits, each to another article's text, each followed by a rebuild: the median is reported, as for Hugo.
  const rebuilds = dirs.map((): BuildTimes[] => []);
  [7, 8, 9].forEach((i, round) => {
    for (const k of order(round)) {
      editArticle(dirs[k]!, i);
      rebuilds[k]!.push(timedBuild(dirs[k]!));
    }
  });
  const hugoSeconds = hugoMedian(join(dirs[0]!, 'hugo'));
  const astroFloorSeconds = astroFloor(dirs[0]!);
  return dirs.map((dir, k) => ({
    perLang,
    cold: meanOf(colds[k]!),
    rebuild: rebuilds[k]!.sort((a, b) => a.seconds - b.seconds)[1]!,
    ...(hugoSeconds === undefined ? {} : { hugoSeconds }),
    astroFloorSeconds,
    sizes: sizesOf(join(dir, 'dist/client')),
    dist: join(dir, 'dist'),
  }));
}

/** The mean of builds' times, and of each step's. */
function meanOf(builds: BuildTimes[]): BuildTimes {
  const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
  const names = [...new Set(builds.flatMap((b) => Object.keys(b.steps)))];
  return {
    seconds: mean(builds.map((b) => b.seconds)),
    steps: Object.fromEntries(names.map((name) => [name, mean(builds.map((b) => b.steps[name] ?? 0))])),
  };
}

/**
 * Astro's own part of a rebuild of `project`'s articles (BuildBench.astroFloorSeconds): a project beside it with a copy
 * of its content, the same collection (Astro's glob loader, no schema), Astro's incremental build and one page that
 * reads no article; built once, then again after each of three edits, the median reported.
 */
function astroFloor(project: string): number {
  const dir = `${project}-astro-alone`;
  mkdirSync(join(dir, 'src/pages'), { recursive: true });
  cpSync(join(project, 'content'), join(dir, 'content'), { recursive: true });
  cpSync(join(project, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(
    join(dir, 'astro.config.mjs'),
    "import { defineConfig } from 'astro/config';\nexport default defineConfig({ output: 'static', build: { format: 'file' }, experimental: { incrementalBuild: true }, cacheDir: './.cache/astro', markdown: { syntaxHighlight: false } });\n",
  );
  writeFileSync(
    join(dir, 'src/content.config.ts'),
    `import { defineCollection } from 'astro:content';\nimport { glob } from 'astro/loaders';\nexport const collections = { blog: defineCollection({ loader: glob({ pattern: '{${LANGS.join(',')}}/*.md', base: './content/blog' }) }) };\n`,
  );
  writeFileSync(
    join(dir, 'src/pages/index.astro'),
    '<html lang="en"><head><title>x</title></head><body>x</body></html>\n',
  );
  timedBuild(dir);
  const runs = [17, 18, 19].map((i) => {
    editArticle(dir, i);
    return timedBuild(dir).seconds;
  });
  return runs.sort((a, b) => a - b)[1]!;
}

/** Hugo's build of the articles in `hugo` (a minimal layout), the median of three; undefined without Hugo. */
function hugoMedian(hugo: string): number | undefined {
  const binary = hugoBinary();
  if (!binary) return undefined;
  mkdirSync(join(hugo, 'layouts/_default'), { recursive: true });
  writeFileSync(
    join(hugo, 'hugo.toml'),
    "baseURL = 'http://localhost:8080/'\ntitle = 'bench'\ndisableKinds = ['taxonomy', 'term']\n",
  );
  writeFileSync(
    join(hugo, 'layouts/_default/baseof.html'),
    '<!doctype html><html><head><title>{{ .Title }}</title></head><body><main>{{ block "main" . }}{{ end }}</main></body></html>',
  );
  writeFileSync(
    join(hugo, 'layouts/_default/single.html'),
    '{{ define "main" }}<article><h1>{{ .Title }}</h1>{{ .Content }}</article>{{ end }}',
  );
  writeFileSync(
    join(hugo, 'layouts/_default/list.html'),
    '{{ define "main" }}<ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul>{{ end }}',
  );
  // The median of three: Hugo's build is short enough for the machine's noise to matter.
  const runs = [0, 1, 2].map(() => {
    rmSync(join(hugo, 'public'), { recursive: true, force: true });
    const h = performance.now();
    const out = spawnSync(binary, ['--quiet', '--source', hugo], { encoding: 'utf8' });
    return out.status === 0 ? (performance.now() - h) / 1000 : NaN;
  });
  return runs.sort((a, b) => a - b)[1];
}

/** What the blog adds to the built site in `client`. */
function sizesOf(client: string): BuildBench['sizes'] {
  const count = (pattern: RegExp) => filesUnder(client).filter((f) => pattern.test(f)).length;
  const og = readdirSync(join(client, '_astro')).filter((f) => /^og-.*\.png$/.test(f));
  return {
    listPages: count(/^[a-z]+\/blog(\/page\/\d+)?\.html$/),
    topicPages: count(/^[a-z]+\/blog\/topics\/.+\.html$/),
    searchIndexBytes: bytesUnder(join(client, 'pagefind')),
    searchIndexFiles: filesUnder(join(client, 'pagefind')).length,
    ogImages: og.length,
    ogBytes: og.reduce((sum, f) => sum + statSync(join(client, '_astro', f)).size, 0),
  };
}

/**
 * What a phone downloads of the search index for one query: the search page opened with ?q= in Chromium, served by a
 * sidecar over the build, and the bytes of every /pagefind/ response (Pagefind loads the index in fragments).
 */
export async function searchDownload(
  url: string,
  queries: { lang: string; q: string }[],
): Promise<{ lang: string; q: string; bytes: number; requests: number; results: number }[]> {
  const { launchChromium } = await import('../../test/helpers/browser.ts');
  const browser = await launchChromium();
  const rows = [];
  try {
    for (const { lang, q } of queries) {
      const page = await browser.newPage();
      let bytes = 0;
      let requests = 0;
      page.on('response', async (res) => {
        if (!new URL(res.url()).pathname.startsWith('/pagefind/')) return;
        requests++;
        bytes += Number(res.headers()['content-length'] ?? (await res.body().catch(() => Buffer.alloc(0))).length);
      });
      await page.goto(`${url}/${lang}/blog/search?q=${encodeURIComponent(q)}`);
      await page.locator('.search-status').filter({ hasText: /./ }).waitFor({ timeout: 30_000 });
      await page.waitForLoadState('networkidle');
      const results = await page.locator('.search-results li').count();
      rows.push({ lang, q, bytes, requests, results });
      await page.close();
    }
  } finally {
    await browser.close();
  }
  return rows;
}

export function buildReport(
  rows: BuildBench[],
  searches: Awaited<ReturnType<typeof searchDownload>>,
  command: string,
  machine: string,
  baseline?: { rev: string; rows: BuildBench[] },
): string {
  const ratio = (s: number, h?: number) => (h ? `${fmt(s / h, 1)}×` : 'Hugo not installed');
  const stepNames = [...new Set(rows.flatMap((r) => [...Object.keys(r.cold.steps), ...Object.keys(r.rebuild.steps)]))];
  return [
    '# Benchmarks: the build',
    '',
    `Produced by \`${command}\` on ${new Date().toISOString().slice(0, 10)}: ${machine}. Generated articles (the QR/NFC article's body in each language, two topics each) in both languages; "cold" with every build cache empty (Astro's incremental build, twins, compressed copies, Open Graph images), the mean of two with a baseline; "rebuild" after one article's text changed, the caches warm: what an editor's push waits for (the median of three edits, each to another article). Hugo (Debian's) builds the same articles with a minimal layout, the median of three runs.`,
    '',
    '| Articles a language | Cold build (s) | Rebuild after one edit (s) | Hugo (s) | Cold / Hugo | Rebuild / Hugo |',
    '|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${fmt(r.perLang)} | ${fmt(r.cold.seconds, 1)} | ${fmt(r.rebuild.seconds, 1)} | ${r.hugoSeconds === undefined ? '—' : fmt(r.hugoSeconds, 2)} | ${ratio(r.cold.seconds, r.hugoSeconds)} | ${ratio(r.rebuild.seconds, r.hugoSeconds)} |`,
    ),
    '',
    "Astro alone: the same articles in a project of Astro's own with the same collection (its glob loader) and one page that reads none of them, rebuilt after one edit with Astro's incremental build, the median of three. It is what any Astro site holding these articles pays before it renders a page (Astro starting, syncing its content layer, bundling); no change to this project's code removes it.",
    '',
    "| Articles a language | Astro alone, after one edit (s) | Astro alone / Hugo | This project's rebuild less Astro alone (s) |",
    '|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${fmt(r.perLang)} | ${fmt(r.astroFloorSeconds, 1)} | ${ratio(r.astroFloorSeconds, r.hugoSeconds)} | ${fmt(r.rebuild.seconds - r.astroFloorSeconds, 1)} |`,
    ),
    '',
    ...(baseline
      ? [
          `Against the code at \`${baseline.rev}\`, built the same way in this run (its worktree, the same articles and node_modules; its builds and this code's taking turns, in one order and then the other):`,
          '',
          `| Articles a language | Cold: ${baseline.rev} (s) | Cold: this code (s) | This / ${baseline.rev} | Rebuild: ${baseline.rev} (s) | Rebuild: this code (s) | This / ${baseline.rev} |`,
          '|---:|---:|---:|---:|---:|---:|---:|',
          ...rows.map((r, i) => {
            const b = baseline.rows[i]!;
            return `| ${fmt(r.perLang)} | ${fmt(b.cold.seconds, 1)} | ${fmt(r.cold.seconds, 1)} | ${fmt(r.cold.seconds / b.cold.seconds, 2)}× | ${fmt(b.rebuild.seconds, 1)} | ${fmt(r.rebuild.seconds, 1)} | ${fmt(r.rebuild.seconds / b.rebuild.seconds, 2)}× |`;
          }),
          '',
        ]
      : []),
    'Where the time goes (seconds; the rest is Astro starting, syncing the content and bundling):',
    '',
    `| Articles a language | Build | ${stepNames.join(' | ')} |`,
    `|---:|---|${stepNames.map(() => '---:').join('|')}|`,
    ...rows.flatMap((r) =>
      (['cold', 'rebuild'] as const).map(
        (kind) =>
          `| ${fmt(r.perLang)} | ${kind} | ${stepNames.map((s) => (r[kind].steps[s] === undefined ? '—' : fmt(r[kind].steps[s], 1))).join(' | ')} |`,
      ),
    ),
    '',
    'What the blog adds at that size:',
    '',
    '| Articles a language | List pages (index, both languages) | Topic pages | Search index | Open Graph images |',
    '|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${fmt(r.perLang)} | ${fmt(r.sizes.listPages)} | ${fmt(r.sizes.topicPages)} | ${fmt(r.sizes.searchIndexBytes / 2 ** 20, 1)} MiB in ${fmt(r.sizes.searchIndexFiles)} files | ${fmt(r.sizes.ogImages)}, ${fmt(r.sizes.ogBytes / 2 ** 20, 0)} MiB |`,
    ),
    '',
    ...(searches.length === 0
      ? []
      : [
          `The search index a phone downloads for one query (Chromium on the search page, ${fmt(rows.at(-1)?.perLang ?? 0)} articles a language; Pagefind's script and WebAssembly included):`,
          '',
          '| Language | Query | Results shown | Requests to /pagefind/ | Bytes |',
          '|---|---|---:|---:|---:|',
          ...searches.map((s) => `| ${s.lang} | ${s.q} | ${s.results} | ${s.requests} | ${fmt(s.bytes)} |`),
          '',
        ]),
  ].join('\n');
}

/**
 * `npm run bench -- --build [--articles N] [--baseline REV]`: cold and incremental builds against Hugo, and what a
 * search downloads; with a baseline, the same builds of the code at REV in the same run, beside this code's (issue 65:
 * no round makes the build slower unseen).
 */
export async function buildMode(articles: string | undefined, baseline?: string): Promise<void> {
  const sizes = articles ? [Number(articles)] : [200, 2000];
  const baselineRoot = baseline === undefined ? undefined : worktreeAt(baseline, `build-baseline`);
  const said = (who: string, row: BuildBench) =>
    console.log(
      `${who} ${row.perLang}/lang: cold ${row.cold.seconds.toFixed(1)} s, rebuild ${row.rebuild.seconds.toFixed(1)} s, Hugo ${row.hugoSeconds?.toFixed(2) ?? '—'} s, Astro alone ${row.astroFloorSeconds.toFixed(1)} s`,
    );
  const theirs: BuildBench[] = [];
  const rows = sizes.map((n) => {
    console.log(`Building ${n} articles a language, cold and after one edit…`);
    // With a baseline, its builds and this code's take turns at each size: the machine's state alike for both.
    const [row, base] = buildBenches(n, scratch, baselineRoot ? [projectRoot, baselineRoot] : [projectRoot]);
    if (base) {
      theirs.push(base);
      said(`${baseline}`, base);
    }
    said(currentRevision(), row!);
    return row!;
  });
  const largest = rows.at(-1)!;
  const db = await demoDatabase('search.db');
  // A sidecar in this process over the generated build (npm run serve always serves the project's own dist/).
  const { buildApp } = await import('../../sidecar/app.ts');
  const app = await buildApp({
    config: { ...loadConfig({ LOG_LEVEL: 'warn' }), databasePath: db },
    distDir: largest.dist,
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  // A typical query a language: two words in English, one with و+ال in Arabic.
  const queries: Partial<Record<Lang, string>> = { en: 'business card', ar: 'والبطاقة' };
  const searches = await searchDownload(
    url,
    Object.entries(queries).map(([lang, q]) => ({ lang, q: q })),
  );
  await app.close();
  const command = `npm run bench -- --build${articles ? ` --articles ${articles}` : ''}${baseline ? ` --baseline ${baseline}` : ''}`;
  const report = buildReport(
    rows,
    searches,
    command,
    `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, at commit ${currentRevision()}`,
    baseline === undefined ? undefined : { rev: baseline, rows: theirs },
  );
  writeRecord('build.md', report + '\n');
  console.log('\n' + report);
}
