// The blog as a reader meets it once it has grown: a copy of the project with 45 English and 23 Arabic articles,
// built and served by a real sidecar. Pages of the index and of a topic (counts, links, rel=prev/next, hreflang,
// sitemap, twins, 404 past the last page in HTML and Markdown), topics in both languages and their cross-links,
// reading time and table of contents in each language, related and neighbouring articles, feeds (item count, RSS
// against its schema, JSON Feed 1.1), and a scheduled article that is not published yet.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDocument } from '@mixmark-io/domino';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../sidecar/app.ts';
import { PAGE_SIZE } from '../../src/lib/blog/pagination.ts';
import { createDatabase } from '../helpers/database.ts';
import { cleanEnv, projectRoot, testConfig } from '../helpers/env.ts';
import { xmllintRss, xmllintSitemap } from '../../scripts/validators.ts';

const EN = 45;
const AR = 23;
let dir: string;
let client: string;
let app: FastifyInstance;
let url: string;
const read = (path: string) => readFileSync(join(client, path), 'utf8');
const doc = (path: string) => createDocument(read(path), true);
const titles = (path: string) =>
  Array.from(doc(path).querySelectorAll('.article-list h2 a')).map((a) => a.getAttribute('href'));

const day = (i: number) => new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10);
const words = (n: number, word: string) => Array.from({ length: n }, () => word).join(' ');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'blog-scale-'));
  for (const entry of ['src', 'content', 'public', 'astro.config.mjs', 'package.json', 'tsconfig.json'])
    cpSync(join(projectRoot, entry), join(dir, entry), { recursive: true });
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
  for (const lang of ['en', 'ar'])
    for (const f of readdirSync(join(dir, 'content/blog', lang))) rmSync(join(dir, 'content/blog', lang, f));
  // Article i is dated day i: the highest number is the newest. Every one is on link-in-bio, the even ones on privacy.
  const write = (lang: string, slug: string, front: string, body: string) =>
    writeFileSync(join(dir, 'content/blog', lang, `${slug}.md`), `---\n${front}\n---\n\n${body}\n`);
  for (let i = 1; i <= EN; i++) {
    write(
      'en',
      `post-${i}`,
      `title: English post ${i}\ndescription: A generated English article about link-in-bio pages.\ndate: ${day(i)}\ntopics: [link-in-bio${i % 2 === 0 ? ', privacy' : ''}]`,
      `Short text ${i}.`,
    );
  }
  for (let i = 1; i <= AR; i++) {
    write(
      'ar',
      `maqal-${i}`,
      `title: مقال عربي ${i}\ndescription: مقال مولّد عن صفحات الروابط لاختبار الصفحات.\ndate: ${day(i)}\ntopics: [link-in-bio]`,
      `نص قصير ${i}.`,
    );
  }
  // A photograph, 1600×900, in the long English article.
  await sharp({ create: { width: 1600, height: 900, channels: 3, background: { r: 10, g: 107, b: 93 } } })
    .png()
    .toFile(join(dir, 'content/blog/images/photo.png'));
  // Long pieces: 684 words each (three minutes in English at 228 a minute, five in Arabic at 138), four sections.
  write(
    'en',
    'long-read',
    `title: A long read\ndescription: An English article with several sections to read.\ndate: ${day(100)}\nupdated: ${day(101)}\ntopics: [privacy, creators]`,
    [
      '## First part',
      words(171, 'word'),
      '![A green test photograph](../images/photo.png)',
      '## Second part',
      words(171, 'word'),
      '## Third part',
      words(171, 'word'),
      '## Fourth part',
      words(171, 'word'),
    ].join('\n\n'),
  );
  write(
    'ar',
    'maqal-tawil',
    `title: مقال طويل\ndescription: مقال عربي فيه عدة أقسام لاختبار المحتويات.\ndate: ${day(100)}\ntopics: [link-in-bio, arabic]`,
    [
      '## القسم الأول',
      words(171, 'كلمة'),
      '## القسم الثاني',
      words(171, 'كلمة'),
      '## القسم الثالث',
      words(171, 'كلمة'),
      '## القسم الرابع',
      words(171, 'كلمة'),
    ].join('\n\n'),
  );
  // Scheduled: dated a year ahead, built from the same files, published by no build before then.
  write(
    'en',
    'coming-soon',
    `title: Coming soon\ndescription: An article scheduled for next year, not before.\ndate: ${new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10)}\ntopics: [privacy]`,
    'Not yet.',
  );

  const build = spawnSync(process.execPath, [join(projectRoot, 'node_modules/astro/bin/astro.mjs'), 'build'], {
    cwd: dir,
    env: cleanEnv({}),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(build.status, build.stdout.slice(-3000) + build.stderr.slice(-3000)).toBe(0);
  client = join(dir, 'dist/client');
  app = await buildApp({ config: { ...testConfig, databasePath: await createDatabase() }, distDir: join(dir, 'dist') });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
}, 240_000);
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('pages of the blog index', () => {
  it(`cuts ${EN + 1} English articles into pages of ${PAGE_SIZE}, newest first, and ${AR + 1} Arabic ones likewise`, () => {
    expect(titles('en/blog.html')).toEqual([
      '/en/blog/long-read',
      ...Array.from({ length: 19 }, (_, i) => `/en/blog/post-${EN - i}`),
    ]);
    expect(titles('en/blog/page/2.html')).toHaveLength(20);
    expect(titles('en/blog/page/3.html')).toHaveLength(EN + 1 - 40);
    expect(titles('en/blog/page/3.html').at(-1)).toBe('/en/blog/post-1');
    expect(existsSync(join(client, 'en/blog/page/4.html'))).toBe(false);
    expect(existsSync(join(client, 'en/blog/page/1.html'))).toBe(false);
    expect(titles('ar/blog.html')).toHaveLength(20);
    expect(titles('ar/blog/page/2.html')).toHaveLength(AR + 1 - 20);
  });

  it('links each page to its neighbours with rel=prev/next, in the head and the page, and marks the current one', () => {
    const page = doc('en/blog/page/2.html');
    expect(page.querySelector('link[rel="prev"]')?.getAttribute('href')).toBe('http://localhost:8080/en/blog');
    expect(page.querySelector('link[rel="next"]')?.getAttribute('href')).toBe('http://localhost:8080/en/blog/page/3');
    expect(page.querySelector('.pager a[rel="prev"]')?.getAttribute('href')).toBe('/en/blog');
    expect(page.querySelector('.pager a[rel="next"]')?.getAttribute('href')).toBe('/en/blog/page/3');
    expect(page.querySelector('.pager a[aria-current="page"]')?.textContent).toBe('2');
    expect(page.querySelector('title')?.textContent).toContain('Page 2 of 3');
    expect(doc('en/blog.html').querySelector('link[rel="prev"]')).toBeFalsy();
    expect(doc('en/blog/page/3.html').querySelector('link[rel="next"]')).toBeFalsy();
    // Arabic: the same links, in Arabic.
    expect(doc('ar/blog.html').querySelector('.pager p')?.textContent).toBe('الصفحة 1 من 2');
  });

  it('pairs each page with the same page in the other language where it exists (hreflang), and lists every page in the sitemap', () => {
    const alternates = (path: string) =>
      Array.from(doc(path).querySelectorAll('link[rel="alternate"][hreflang]')).map(
        (l) => `${l.getAttribute('hreflang')} ${l.getAttribute('href')}`,
      );
    expect(alternates('en/blog/page/2.html')).toEqual(
      expect.arrayContaining(['ar http://localhost:8080/ar/blog/page/2', 'en http://localhost:8080/en/blog/page/2']),
    );
    expect(alternates('en/blog/page/3.html')).toEqual([]);
    const sitemap = read('sitemap.xml');
    expect(xmllintSitemap(sitemap).ok).toBe(true);
    for (const path of [
      '/en/blog/page/2',
      '/en/blog/page/3',
      '/ar/blog/page/2',
      '/en/blog/topics/link-in-bio/page/3',
      '/ar/blog/topics',
    ])
      expect(sitemap).toContain(`<loc>http://localhost:8080${path}</loc>`);
  });

  it('keeps the page links in the Markdown twin, so an agent pages through too', () => {
    const twin = read('en/blog/page/2.md');
    expect(twin).toContain('(http://localhost:8080/en/blog/page/3)');
    expect(twin).toContain(`(http://localhost:8080/en/blog/post-${EN - 19})`);
  });

  it('is served with the index’s caching, in HTML and Markdown; a page past the last, page 1 and a non-number are 404 in both', async () => {
    const page = await fetch(`${url}/en/blog/page/2`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe((await fetch(`${url}/en/blog`)).headers.get('cache-control'));
    const twin = await fetch(`${url}/en/blog/page/2`, { headers: { accept: 'text/markdown' } });
    expect([twin.status, twin.headers.get('content-type')]).toEqual([200, 'text/markdown; charset=utf-8']);
    for (const path of [
      '/en/blog/page/4',
      '/en/blog/page/1',
      '/en/blog/page/0',
      '/en/blog/page/two',
      '/ar/blog/page/3',
      '/en/blog/topics/privacy/page/9',
    ]) {
      const html = await fetch(url + path);
      const md = await fetch(url + path, { headers: { accept: 'text/markdown' } });
      expect([path, html.status, (html.headers.get('content-type') ?? '').split(';')[0]]).toEqual([
        path,
        404,
        'text/html',
      ]);
      expect([path, md.status, md.headers.get('content-type')]).toEqual([path, 404, 'text/markdown; charset=utf-8']);
    }
  });
});

describe('topics', () => {
  it('gives each topic pages of its own in each language, newest first', () => {
    expect(titles('en/blog/topics/link-in-bio.html')).toHaveLength(20);
    expect(titles('en/blog/topics/link-in-bio/page/3.html')).toHaveLength(EN - 40);
    expect(titles('en/blog/topics/privacy.html')[0]).toBe('/en/blog/long-read');
    expect(titles('en/blog/topics/privacy/page/2.html')).toHaveLength(Math.floor(EN / 2) + 1 - 20);
    expect(titles('ar/blog/topics/link-in-bio/page/2.html')).toHaveLength(AR + 1 - 20);
    // No page for a topic without an article in that language.
    expect(existsSync(join(client, 'ar/blog/topics/privacy.html'))).toBe(false);
  });

  it('links a topic to the same topic in the other language, and the topics index counts articles in the reader’s language', () => {
    const en = doc('en/blog/topics/link-in-bio.html');
    const other = en.querySelector('main a[hreflang="ar"]');
    expect(other?.getAttribute('href')).toBe('/ar/blog/topics/link-in-bio');
    expect(other?.textContent).toContain('صفحات الروابط');
    expect(doc('ar/blog/topics/link-in-bio.html').querySelector('main a[hreflang="en"]')?.getAttribute('href')).toBe(
      '/en/blog/topics/link-in-bio',
    );
    // privacy has no Arabic page: the switch goes to the Arabic topics.
    expect(
      doc('en/blog/topics/privacy.html').querySelector('.site-header a[hreflang="ar"]')?.getAttribute('href'),
    ).toBe('/ar/blog/topics');
    const index = doc('en/blog/topics.html').querySelector('.topic-list')?.textContent ?? '';
    expect(index).toContain(`Link-in-bio pages (${EN} articles)`);
    expect(index).toContain(`Privacy (${Math.floor(EN / 2) + 1} articles)`);
    expect(doc('ar/blog/topics.html').querySelector('.topic-list')?.textContent).toContain(
      `صفحات الروابط (${AR + 1} مقالًا)`,
    );
  });

  it('links every article to its topics’ pages, in its language', () => {
    const topics = Array.from(doc('ar/blog/maqal-tawil.html').querySelectorAll('article .tags a')).map(
      (a) => `${a.getAttribute('href')} ${a.textContent}`,
    );
    expect(topics).toEqual(['/ar/blog/topics/link-in-bio صفحات الروابط', '/ar/blog/topics/arabic العربية']);
  });
});

describe('reading aids', () => {
  it.each([
    ['en/blog/long-read', '3 minutes read', ['first-part', 'second-part', 'third-part', 'fourth-part']],
    ['ar/blog/maqal-tawil', '5 دقائق للقراءة', ['القسم-الأول', 'القسم-الثاني', 'القسم-الثالث', 'القسم-الرابع']],
  ])(
    '%s: reading time at the language’s speed, and a table of contents whose links reach their headings',
    (path, time, ids) => {
      const page = doc(`${path}.html`);
      expect(page.querySelector('article .meta')?.textContent).toContain(time);
      const links = Array.from(page.querySelectorAll('.toc a')).map((a) => a.getAttribute('href') ?? '');
      expect(links).toEqual(ids.map((id) => `#${id}`));
      for (const link of links) {
        // However a checker writes the fragment (raw or percent-encoded), it decodes to a heading's id.
        const id = decodeURIComponent(encodeURIComponent(link.slice(1)));
        expect(page.getElementById(id)?.tagName, link).toBe('H2');
      }
    },
  );

  it('offers no table of contents for an article with fewer than three sections', () => {
    expect(doc('en/blog/post-3.html').querySelector('.toc')).toBeFalsy();
  });

  it('links the newer and older article in the same language, and up to three related by shared topics', () => {
    const page = doc('en/blog/post-10.html');
    expect(page.querySelector('.neighbours a[rel="prev"]')?.getAttribute('href')).toBe('/en/blog/post-11');
    expect(page.querySelector('.neighbours a[rel="next"]')?.getAttribute('href')).toBe('/en/blog/post-9');
    const related = Array.from(page.querySelectorAll('.related a')).map((a) => a.getAttribute('href'));
    // post-10 is on link-in-bio and privacy: the newest others on both come first.
    expect(related).toEqual(['/en/blog/post-44', '/en/blog/post-42', '/en/blog/post-40']);
    expect(
      Array.from(doc('ar/blog/maqal-1.html').querySelectorAll('.related a')).every((a) =>
        a.getAttribute('href')?.startsWith('/ar/'),
      ),
    ).toBe(true);
    expect(doc('en/blog/long-read.html').querySelector('.neighbours a[rel="prev"]')).toBeFalsy();
    expect(doc('en/blog/long-read.html').querySelector('article .meta')?.textContent).toContain('Updated');
  });
});

describe('images', () => {
  it('gives a photograph width, height, lazy loading, WebP widths for phones and desktops, and sizes', async () => {
    const img = doc('en/blog/long-read.html').querySelector('article img');
    expect(img?.getAttribute('alt')).toBe('A green test photograph');
    expect([img?.getAttribute('width'), img?.getAttribute('height'), img?.getAttribute('loading')]).toEqual([
      '1600',
      '900',
      'lazy',
    ]);
    expect(img?.getAttribute('sizes')).toBeTruthy();
    const candidates = (img?.getAttribute('srcset') ?? '').split(',').map((c) => c.trim().split(/\s+/));
    expect(candidates.length).toBeGreaterThanOrEqual(3);
    expect(candidates.map(([, w]) => w)).toEqual(expect.arrayContaining(['640w', '1600w']));
    for (const [url, w] of candidates) {
      expect(url, url).toMatch(/^\/_astro\/photo\.[\w-]+\.webp$/);
      const meta = await sharp(join(client, url!)).metadata();
      expect([meta.format, `${meta.width}w`]).toEqual(['webp', w]);
    }
  });
});

describe('feeds', () => {
  it.each(['en', 'ar'])('%s: RSS carries the newest 20 items and is valid RSS 2.0', (lang) => {
    const rss = read(`${lang}/blog/rss.xml`);
    const result = xmllintRss(rss);
    expect(result.ok, result.output).toBe(true);
    const feed = createDocument(`<body>${rss.replace(/<\?xml[^>]*>/, '')}</body>`);
    expect(feed.querySelectorAll('item')).toHaveLength(20);
    for (const required of ['title', 'link', 'description'])
      expect(feed.querySelector(`channel > ${required}`), required).toBeTruthy();
    expect(rss).toContain(
      lang === 'en'
        ? '<link>http://localhost:8080/en/blog/long-read</link>'
        : '<link>http://localhost:8080/ar/blog/maqal-tawil</link>',
    );
  });

  it.each(['en', 'ar'])('%s: the JSON Feed 1.1 carries the newest 20 items, linked from the head', (lang) => {
    const feed = JSON.parse(read(`${lang}/blog/feed.json`)) as {
      version: string;
      language: string;
      items: { id: string; url: string; title: string; summary: string; date_published: string }[];
    };
    expect(feed.version).toBe('https://jsonfeed.org/version/1.1');
    expect(feed.language).toBe(lang);
    expect(feed.items).toHaveLength(20);
    for (const item of feed.items)
      expect(
        item.url.startsWith(`http://localhost:8080/${lang}/blog/`) &&
          item.title &&
          item.summary &&
          !Number.isNaN(Date.parse(item.date_published)),
      ).toBeTruthy();
    expect(
      doc(`${lang}/blog.html`)
        .querySelector('link[rel="alternate"][type="application/feed+json"]')
        ?.getAttribute('href'),
    ).toBe(`http://localhost:8080/${lang}/blog/feed.json`);
  });
});

describe('a scheduled article', () => {
  it('is not published before its date: no page, twin, list entry, feed item, sitemap entry or search record', () => {
    expect(existsSync(join(client, 'en/blog/coming-soon.html'))).toBe(false);
    expect(existsSync(join(client, 'en/blog/coming-soon.md'))).toBe(false);
    for (const file of [
      'en/blog.html',
      'en/blog/rss.xml',
      'en/blog/feed.json',
      'en/blog/topics/privacy.html',
      'sitemap.xml',
      'blog/articles.json',
      'llms.txt',
    ])
      expect(read(file), file).not.toContain('coming-soon');
  });
});
