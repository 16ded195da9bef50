// What agents find from any page they land on (issue 28): every HTML and Markdown answer, static or live, carries
// RFC 8288 links to llms.txt, the API catalog, OpenAPI and the AI catalog, and to its other representation at a URL of
// its own; every link it advertises (in its Link header and its <head>) answers 200 with the type it declares. One
// preference for AI use, in robots.txt (Content-Signal, in each group, agreeing with every Disallow) and in a
// Content-Usage header (IETF AIPREF) that says the same; robots.txt stays valid to Lighthouse. Runs on the sidecar, through the front and through the edge.
import { createDocument } from '@mixmark-io/domino';
import LinkHeader from 'http-link-header';
import RobotsTxtAudit from 'lighthouse/core/audits/seo/robots-txt.js';
import robotsParser from 'robots-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AI_USE, CONTENT_USAGE } from '../../src/lib/ai-preferences.ts';
import { AI_CRAWLERS } from '../../src/lib/discovery.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const base = 'http://localhost:8080';
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** A URL of this site as the test server answers it. */
const local = (url: string) => server.url + url.slice(base.length);
const get = (url: string, accept?: string) =>
  fetch(local(url), { redirect: 'manual', headers: accept ? { accept } : {} });

// Every page kind, each as HTML and as Markdown; the twins at their own URLs; llms.txt.
const PAGES = [
  '/',
  '/ar',
  '/p/layla',
  '/c/k7f2q9',
  '/en/blog',
  '/ar/blog/bitaqat-qr-am-nfc',
  '/ar/blog/topics/link-in-bio',
  '/en/blog/search',
  '/docs/api',
];
const ANSWERS: [string, string | undefined][] = [
  ...PAGES.flatMap((path): [string, string | undefined][] => [
    [path, undefined],
    [path, 'text/markdown'],
  ]),
  ['/p/layla.md', undefined],
  ['/c/k7f2q9.md', undefined],
  ['/en/blog.md', undefined],
  ['/index.md', undefined],
];

describe('links from every page', () => {
  it.each(ANSWERS)(
    '%s (Accept: %s) links the discovery documents and its other representation, and says the AI-use preference',
    async (path, accept) => {
      const res = await fetch(server.url + path, { headers: accept ? { accept } : {} });
      expect(res.status, path).toBe(200);
      const type = (res.headers.get('content-type') ?? '').split(';')[0]!;
      expect(['text/html', 'text/markdown']).toContain(type);
      expect(res.headers.get('content-usage'), path).toBe(CONTENT_USAGE);
      const links = LinkHeader.parse(res.headers.get('link') ?? '');
      const rels = Object.fromEntries(links.refs.map((r) => [r.rel, r]));
      expect(rels.describedby?.uri, path).toBe(`${base}/llms.txt`);
      expect(rels['api-catalog']?.uri).toBe(`${base}/.well-known/api-catalog`);
      expect(rels['service-desc']?.uri).toBe(`${base}/openapi.json`);
      expect(rels['ai-catalog']?.uri).toBe(`${base}/.well-known/ai-catalog.json`);
      // Its other representation, at a URL that answers it whatever Accept says.
      expect(rels.alternate?.type).toBe(type === 'text/html' ? 'text/markdown' : 'text/html');
    },
  );

  it('every link a page advertises, in its Link header or its <head>, answers 200 with the type it declares', async () => {
    const followed = new Map<string, string | undefined>();
    for (const [path, accept] of [...ANSWERS, ['/llms.txt', undefined] as [string, undefined]]) {
      const res = await fetch(server.url + path, { headers: accept ? { accept } : {} });
      for (const ref of LinkHeader.parse(res.headers.get('link') ?? '').refs) followed.set(ref.uri, ref.type);
      if ((res.headers.get('content-type') ?? '').startsWith('text/html')) {
        const doc = createDocument(await res.text(), true);
        for (const el of Array.from(doc.querySelectorAll('head link[href]'))) {
          const href = new URL(el.getAttribute('href')!, base + path).href;
          if (href.startsWith(base) && !followed.has(href)) followed.set(href, el.getAttribute('type') ?? undefined);
        }
      } else await res.arrayBuffer();
    }
    expect(followed.size).toBeGreaterThan(20);
    for (const [url, type] of followed) {
      const res = await get(url);
      expect(res.status, url).toBe(200);
      if (type)
        expect(res.headers.get('content-type') ?? '', url).toMatch(new RegExp(`^${type.replace(/[+.]/g, '\\$&')}\\b`));
      await res.arrayBuffer();
    }
  });

  it('an HTML page names the AI catalog in its <head>', async () => {
    const doc = createDocument(await (await fetch(server.url + '/p/layla')).text(), true);
    expect(doc.querySelector('link[rel="ai-catalog"]')?.getAttribute('href')).toBe(
      `${base}/.well-known/ai-catalog.json`,
    );
  });
});

describe('one preference for AI use', () => {
  it('robots.txt says it in each group (Content-Signal), and the pages’ Content-Usage header (AIPREF) says the same', async () => {
    const text = await (await fetch(server.url + '/robots.txt')).text();
    const groups = text.split(/\n\s*\n/).filter((g) => /^User-agent:/im.test(g));
    expect(groups.length).toBeGreaterThanOrEqual(2);
    const usage = (await fetch(server.url + '/p/layla')).headers.get('content-usage') ?? '';
    const dict = (value: string) =>
      Object.fromEntries(value.split(',').map((pair) => pair.trim().split('=') as [string, string]));
    const u = dict(usage);
    for (const group of groups) {
      const s = dict(/^Content-Signal:[ \t]*(\S.*)$/m.exec(group)?.[1] ?? '');
      // Cloudflare's ai-train is AIPREF's train-ai, search is search; yes is y.
      expect(s['ai-train']).toBe(u['train-ai'] === 'y' ? 'yes' : 'no');
      expect(s.search).toBe(u.search === 'y' ? 'yes' : 'no');
      expect(s['ai-input']).toBe(AI_USE.aiInput ? 'yes' : 'no');
    }
    expect(usage).toBe(CONTENT_USAGE);
  });

  it('robots.txt is valid to Lighthouse’s own robots.txt audit (a directive outside its safelist costs every page 8 SEO points)', async () => {
    const content = await (await fetch(server.url + '/robots.txt')).text();
    const result = RobotsTxtAudit.audit({ RobotsTxt: { status: 200, content } }) as {
      score: number;
      details?: { items?: unknown[] };
    };
    expect(result.details?.items ?? []).toEqual([]);
    expect(result.score).toBe(1);
  });

  it('no Disallow contradicts it: search is allowed, so every public page of the sitemap is allowed to every agent', async () => {
    const robots = robotsParser(`${base}/robots.txt`, await (await fetch(server.url + '/robots.txt')).text());
    const sitemap = await (await fetch(server.url + '/sitemap.xml')).text();
    const urls = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThan(10);
    for (const agent of ['Googlebot', ...AI_CRAWLERS])
      for (const url of urls) expect(robots.isAllowed(url, agent) === true, `${agent} ${url}`).toBe(AI_USE.search);
  });
});
