import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import matter from 'gray-matter';
import { createDocument } from '@mixmark-io/domino';
import { builtFiles, read, readBuilt } from '../helpers/dist.ts';
import { testConfig } from '../helpers/env.ts';
import { pathOf } from '../../src/lib/surface.ts';

const htmlPages = builtFiles('.html');
const twinOf = (file: string) => file.replace(/\.html$/, '.md');
const base = testConfig.baseUrl;

describe('the build', () => {
  it('has both homepages, both blog indexes, four articles per language, the API docs and two 404 pages', () => {
    const paths = htmlPages.map((p) => p.urlPath);
    for (const expected of [
      '/index.html',
      '/ar.html',
      '/en/blog.html',
      '/ar/blog.html',
      '/docs/api.html',
      '/en/404.html',
      '/ar/404.html',
    ]) {
      expect(paths).toContain(expected);
    }
    expect(paths.filter((p) => p.startsWith('/en/blog/')).length).toBeGreaterThanOrEqual(4);
    expect(paths.filter((p) => p.startsWith('/ar/blog/')).length).toBeGreaterThanOrEqual(4);
  });

  it.each(htmlPages)('$urlPath has a Markdown twin with exactly the four front-matter keys', ({ file }) => {
    expect(existsSync(twinOf(file))).toBe(true);
    const { data } = matter(read(twinOf(file)));
    expect(Object.keys(data)).toEqual(['title', 'description', 'url', 'lang']);
    const doc = createDocument(read(file), true);
    expect(data.url).toBe(doc.querySelector('link[rel="canonical"]')?.getAttribute('href'));
    expect(data.lang).toBe(doc.documentElement.getAttribute('lang'));
    expect(data.title.length).toBeGreaterThan(0);
    expect(data.description.length).toBeGreaterThan(0);
  });

  it.each(htmlPages)('$urlPath twin has no script, style or form and no relative link', ({ file }) => {
    const { content } = matter(read(twinOf(file)));
    expect(content).not.toMatch(/<script|<style|<form/i);
    const targets = [...content.matchAll(/\]\(([^)\s]+)/g)].map((m) => m[1] ?? '');
    for (const target of targets) expect(target, `link ${target}`).toMatch(/^(https?:|mailto:|tel:)/);
  });

  it.each(htmlPages)('$urlPath advertises its twin and carries lang, dir and a canonical URL', ({ file, urlPath }) => {
    const doc = createDocument(read(file), true);
    const html = doc.documentElement;
    const lang = html.getAttribute('lang');
    expect(['ar', 'en']).toContain(lang);
    expect(html.getAttribute('dir')).toBe(lang === 'ar' ? 'rtl' : 'ltr');
    const pagePath = urlPath === '/index.html' ? '/' : urlPath.replace(/\.html$/, '');
    expect(doc.querySelector('link[rel="canonical"]')?.getAttribute('href')).toBe(base + pagePath);
    const twin = doc.querySelector('link[rel="alternate"][type="text/markdown"]')?.getAttribute('href');
    expect(twin).toBe(base + (pagePath === '/' ? '/index.md' : `${pagePath}.md`));
    for (const prop of ['og:title', 'og:description', 'og:url', 'og:type']) {
      expect(doc.querySelector(`meta[property="${prop}"]`), prop).not.toBeNull();
    }
    expect(doc.querySelector('meta[name="twitter:card"]')).not.toBeNull();
  });

  // Nothing shifts as a page loads (Lighthouse's "unsized images", issue 21): every image says its size.
  it.each(htmlPages)('$urlPath: every image has alt text, a width and a height', ({ file }) => {
    const doc = createDocument(read(file), true);
    for (const img of Array.from(doc.querySelectorAll('img'))) {
      const what = img.getAttribute('src');
      expect(img.getAttribute('alt'), `${what} alt`).toBeTruthy();
      expect(Number(img.getAttribute('width')), `${what} width`).toBeGreaterThan(0);
      expect(Number(img.getAttribute('height')), `${what} height`).toBeGreaterThan(0);
    }
  });

  it('keeps tables, code blocks, both list kinds, images with alt text and links in the article twins', () => {
    const twins = builtFiles('.md')
      .filter((f) => /\/(ar|en)\/blog\/./.test(f.urlPath))
      .map((f) => read(f.file))
      .join('\n');
    expect(twins).toMatch(/^\| --- \| --- \| --- \|$/m);
    expect(twins).toMatch(/^```sh$/m);
    expect(twins).toMatch(/^1\. /m);
    expect(twins).toMatch(/^- /m);
    expect(twins).toMatch(/!\[[^\]]+\]\(http:\/\/localhost:8080\/_astro\/card-qr-nfc\.[\w-]+\.svg\)/);
    expect(twins).toContain('](http://localhost:8080/en/blog/how-ai-agents-read-this-site)');
    expect(twins).toContain('](https://llmstxt.org/)');
  });

  it('pairs translations with hreflang alternates and x-default, and describes articles with JSON-LD', () => {
    const doc = createDocument(readBuilt('/ar/blog/bitaqat-qr-am-nfc.html'), true);
    const alternates = Object.fromEntries(
      Array.from(doc.querySelectorAll('link[rel="alternate"][hreflang]')).map((l) => [
        l.getAttribute('hreflang'),
        l.getAttribute('href'),
      ]),
    );
    expect(alternates).toEqual({
      ar: `${base}/ar/blog/bitaqat-qr-am-nfc`,
      en: `${base}/en/blog/qr-or-nfc-business-card`,
      'x-default': `${base}/en/blog/qr-or-nfc-business-card`,
    });
    const ld = JSON.parse(doc.querySelector('script[type="application/ld+json"]')?.textContent ?? '{}') as {
      '@graph': Record<string, unknown>[];
    };
    const posting = ld['@graph'].find((n) => n['@type'] === 'BlogPosting');
    // date: 2026-10-02, midnight in the blog's zone (Asia/Riyadh)
    expect(posting).toMatchObject({
      '@id': `${base}/ar/blog/bitaqat-qr-am-nfc#article`,
      inLanguage: 'ar',
      url: `${base}/ar/blog/bitaqat-qr-am-nfc`,
      datePublished: '2026-10-01T21:00:00.000Z',
    });
  });

  it('links each blog index to its RSS feed, which lists that language only', () => {
    for (const lang of ['ar', 'en']) {
      const doc = createDocument(readBuilt(`/${lang}/blog.html`), true);
      expect(doc.querySelector('link[rel="alternate"][type="application/rss+xml"]')?.getAttribute('href')).toBe(
        `${base}/${lang}/blog/rss.xml`,
      );
      const feed = readBuilt(pathOf('getBlogFeed', { lang }));
      const links = [...feed.matchAll(/<link>([^<]+)<\/link>/g)].map((m) => m[1]).slice(1);
      expect(links.length).toBeGreaterThanOrEqual(4);
      for (const link of links) expect(link).toMatch(new RegExp(`^${base}/${lang}/blog/[a-z0-9-]+$`));
      expect(feed).toContain(`<language>${lang}</language>`);
    }
  });

  it('lists blog articles newest first', () => {
    const doc = createDocument(readBuilt('/en/blog.html'), true);
    const dates = Array.from(doc.querySelectorAll('main time')).map((t) => t.getAttribute('datetime') ?? '');
    expect(dates.length).toBeGreaterThanOrEqual(4);
    expect([...dates].sort().reverse()).toEqual(dates);
  });

  it('loads no font or script from another host', () => {
    for (const { file } of htmlPages) {
      const html = read(file);
      expect(html).not.toMatch(/<link[^>]+rel="(stylesheet|preload)"[^>]+href="https?:/);
      expect(html).not.toMatch(/<script[^>]+src="https?:/);
      expect(html).not.toMatch(/@import|fonts\.googleapis/);
    }
  });
});
