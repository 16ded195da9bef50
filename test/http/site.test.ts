// The sidecar serving the built site: negotiation, headers, HEAD, errors. Real server on 127.0.0.1, real fetch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import matter from 'gray-matter';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { readBuilt } from '../helpers/dist.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  fetch(server.url + path, { method, headers, redirect: 'manual' });

const pages = {
  homepage: '/',
  'blog index': '/ar/blog',
  article: '/en/blog/qr-or-nfc-business-card',
  'Arabic article': '/ar/blog/kitabat-nabdha-bilarabiya',
  'API docs': '/docs/api',
};

const MARKDOWN = 'text/markdown; charset=utf-8';
const HTML = 'text/html; charset=utf-8';

describe('Markdown negotiation (rule M)', () => {
  const matrix: [string, string | undefined, string][] = [
    ['text/markdown', 'text/markdown', MARKDOWN],
    ['text/html', 'text/html', HTML],
    ['*/*', '*/*', HTML],
    ['no Accept', undefined, HTML],
    ['markdown preferred by q', 'text/html;q=0.5, text/markdown', MARKDOWN],
    ['html preferred by q', 'text/markdown;q=0.8, text/html', HTML],
    ['markdown with a wildcard fallback', 'text/markdown, */*;q=0.1', MARKDOWN],
    ['browser default', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', HTML],
    ['only an unrelated type', 'application/json', HTML],
    ['garbage', ';;;q=x,,', HTML],
    // A parameter of the type (the charset every twin is in, RFC 7763's variant) still names Markdown (issue 36).
    ['markdown with its charset', 'text/markdown; charset=utf-8', MARKDOWN],
    ['markdown with a variant, in capitals', 'Text/Markdown;Variant=GFM', MARKDOWN],
    ['html with its charset beside markdown', 'text/html; charset=utf-8;q=0.5, text/markdown; charset=UTF-8', MARKDOWN],
  ];

  for (const [name, path] of Object.entries(pages)) {
    it.each(matrix)(`${name}: %s`, async (_label, accept, type) => {
      const res = await get(path, accept === undefined ? {} : { accept });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('vary')).toMatch(/\bAccept\b/);
      const body = await res.text();
      if (type === MARKDOWN) {
        const { data } = matter(body);
        expect(Object.keys(data)).toEqual(['title', 'description', 'url', 'lang']);
        expect(data.url).toBe(`http://localhost:8080${path}`);
      } else {
        expect(body.startsWith('<!DOCTYPE html>')).toBe(true);
      }
    });
  }

  it('serves the same bytes as the build, in both forms', async () => {
    const path = '/en/blog/how-ai-agents-read-this-site';
    expect(await (await get(path)).text()).toBe(readBuilt(`${path}.html`));
    expect(await (await get(path, { accept: 'text/markdown' })).text()).toBe(readBuilt(`${path}.md`));
  });

  it('serves every twin at its own .md URL too', async () => {
    for (const path of ['/index.md', '/ar.md', '/en/blog.md', '/docs/api.md']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe(MARKDOWN);
    }
  });
});

describe('404 pages', () => {
  const missing = [
    '/en/blog/no-such-article',
    '/ar/blog/لا-يوجد',
    '/fr/blog',
    '/de',
    '/nothing/here',
    '/en/blog.html',
    '/p',
    '/index.html',
  ];

  it.each(missing)('%s answers 404 with an HTML error page, or Markdown on request', async (path) => {
    const html = await get(encodeURI(path));
    expect(html.status).toBe(404);
    expect(html.headers.get('content-type')).toBe(HTML);
    expect(html.headers.get('vary')).toMatch(/\bAccept\b/);
    expect(await html.text()).toContain('<meta name="robots" content="noindex">');

    const md = await get(encodeURI(path), { accept: 'text/markdown' });
    expect(md.status).toBe(404);
    expect(md.headers.get('content-type')).toBe(MARKDOWN);
    const { data } = matter(await md.text());
    expect(Object.keys(data)).toEqual(['title', 'description', 'url', 'lang']);
  });

  // A twin's own URL asks for Markdown: its 404 is the Markdown error page whatever Accept says (issue 36).
  it.each(['/p/nobody.md', '/c/nope00.md', '/en/blog/nope.md', '/ar/blog/لا-يوجد.md', '/nothing.md'])(
    '%s answers 404 as Markdown',
    async (path) => {
      for (const accept of [undefined, 'text/html', '*/*']) {
        const res = await get(encodeURI(path), accept ? { accept } : {});
        expect(res.status, `${path} ${accept}`).toBe(404);
        expect(res.headers.get('content-type'), `${path} ${accept}`).toBe(MARKDOWN);
        expect(Object.keys(matter(await res.text()).data)).toEqual(['title', 'description', 'url', 'lang']);
      }
    },
  );

  it('answers in the language of the path, or of Accept-Language when the path has none', async () => {
    expect(await (await get('/ar/blog/missing')).text()).toContain('lang="ar"');
    expect(await (await get('/en/blog/missing', { 'accept-language': 'ar' })).text()).toContain('lang="en"');
    const arabic = await get('/missing', { 'accept-language': 'ar-SA,ar;q=0.9,en;q=0.5' });
    expect(await arabic.text()).toContain('الصفحة غير موجودة');
    expect(arabic.headers.get('vary')).toMatch(/Accept-Language/);
    expect(await (await get('/missing', { 'accept-language': 'fr' })).text()).toContain('Page not found');
  });

  it('reads the language of a path as read_page does: its first non-empty segment, in any case (issue 38)', async () => {
    for (const path of ['//ar/blog/missing', '/AR/blog/missing']) {
      const res = await get(path, { 'accept-language': 'en' });
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).toContain('lang="ar"');
      expect(res.headers.get('vary'), path).not.toMatch(/Accept-Language/);
    }
  });

  it('is not cached in place of a page that may exist later', async () => {
    expect((await get('/en/blog/missing')).headers.get('cache-control')).toBe('no-cache');
  });
});

describe('headers', () => {
  it('homepage carries the four discovery Link relations (rule L)', async () => {
    for (const accept of ['text/html', 'text/markdown']) {
      const link = (await get('/', { accept })).headers.get('link') ?? '';
      expect(link).toContain(
        '<http://localhost:8080/.well-known/api-catalog>; rel="api-catalog"; type="application/linkset+json"',
      );
      expect(link).toContain('<http://localhost:8080/openapi.json>; rel="service-desc"; type="application/json"');
      expect(link).toContain('<http://localhost:8080/docs/api>; rel="service-doc"; type="text/html"');
      expect(link).toContain('<http://localhost:8080/auth.md>; rel="service-meta"; type="text/markdown"');
    }
  });

  const discovery: [string, string][] = [
    ['/.well-known/api-catalog', 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"'],
    ['/openapi.json', 'application/json'],
    ['/auth.md', MARKDOWN],
    ['/docs/api', HTML],
    ['/docs/api.md', MARKDOWN],
    ['/llms.txt', 'text/plain; charset=utf-8'],
    ['/robots.txt', 'text/plain; charset=utf-8'],
    ['/sitemap.xml', 'application/xml'],
  ];

  it.each(discovery)('%s: its media type and Cache-Control: public, max-age=3600', async (path, type) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
  });

  it('serves RSS feeds as RSS', async () => {
    const res = await get('/ar/blog/rss.xml');
    expect(res.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
  });

  it('sets security headers on every response, errors included', async () => {
    for (const path of ['/', '/openapi.json', '/missing']) {
      const res = await get(path);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
      const csp = res.headers.get('content-security-policy') ?? '';
      // Scripts of this origin only; WebAssembly for the blog's search, never eval or inline scripts.
      expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval';");
      expect(csp).not.toContain("'unsafe-eval'");
      expect(csp).not.toContain("'unsafe-inline'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
    }
  });

  it('answers If-None-Match with 304 per representation', async () => {
    const html = await get('/en/blog');
    const md = await get('/en/blog', { accept: 'text/markdown' });
    const htmlTag = html.headers.get('etag') ?? '';
    expect(htmlTag).toMatch(/^"/);
    expect(md.headers.get('etag')).not.toBe(htmlTag);
    expect((await get('/en/blog', { 'if-none-match': htmlTag })).status).toBe(304);
    expect((await get('/en/blog', { 'if-none-match': htmlTag, accept: 'text/markdown' })).status).toBe(200);
  });

  // RFC 9110 §13.1.1: a condition that is false is not ignored on a GET either (issue 36).
  it('answers If-Match with 412 when no tag matches, and with the page when one does or it is *', async () => {
    const page = await get('/en/blog');
    const tag = page.headers.get('etag') ?? '';
    await page.arrayBuffer();
    const refused = await get('/en/blog', { 'if-match': '"nope"' });
    expect(refused.status).toBe(412);
    expect(refused.headers.get('content-security-policy')).toBeTruthy();
    expect((await get('/en/blog', { 'if-match': `"nope", ${tag}` })).status).toBe(200);
    expect((await get('/en/blog', { 'if-match': '*' })).status).toBe(200);
    // A weak tag never matches If-Match (strong comparison).
    expect((await get('/en/blog', { 'if-match': `W/${tag}` })).status).toBe(412);
    expect((await get('/p/layla', { 'if-match': '"nope"' })).status).toBe(412);
  });
});

describe('HEAD', () => {
  it.each(['/', '/en/blog', '/openapi.json', '/.well-known/api-catalog', '/missing', '/sitemap.xml'])(
    '%s: same status and headers as GET, no body',
    async (path) => {
      // Without compression too: a document kept only compressed is decompressed as it is sent (issue 36: HEAD said 0).
      for (const encoding of ['identity', 'gzip, br']) {
        const headers = { accept: 'text/markdown', 'accept-encoding': encoding };
        const [g, h] = await Promise.all([get(path, headers), get(path, headers, 'HEAD')]);
        expect(h.status).toBe(g.status);
        for (const name of ['content-type', 'content-length', 'etag', 'vary', 'cache-control', 'link']) {
          expect(h.headers.get(name), `${path} ${encoding} ${name}`).toBe(g.headers.get(name));
        }
        const body = await g.arrayBuffer();
        if (encoding === 'identity' && g.headers.get('content-length') !== null)
          expect(Number(g.headers.get('content-length')), `${path} ${encoding}`).toBe(body.byteLength);
        expect(await h.text()).toBe('');
      }
    },
  );
});

describe('URLs', () => {
  it('redirects a trailing slash to the canonical URL, built from BASE_URL', async () => {
    const res = await get('/en/blog/?x=1');
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('http://localhost:8080/en/blog?x=1');
  });

  it('answers broken percent-encoding with 400', async () => {
    expect((await get('/en/blog/%E0%A4%A')).status).toBe(400);
  });

  it('never serves files outside the build', async () => {
    for (const path of [
      '/..%2fpackage.json',
      '/%2e%2e/package.json',
      '/global-scripts/..%2f..%2fpackage.json',
      '/../dist/build-manifest.json',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
      expect(await res.text()).not.toContain('"devDependencies"');
    }
  });
});

// A phone on a slow network paints from the first response: no stylesheet to fetch before the first paint, and the
// inlined CSS allowed by hash, so the Content-Security-Policy needs no 'unsafe-inline' (issue 21).
describe('first paint from the first response', () => {
  it.each([
    ['card', '/c/k7f2q9'],
    ['profile', '/p/layla'],
    ['article', '/ar/blog/bitaqat-qr-am-nfc'],
    ['blog index', '/en/blog'],
    ['homepage', '/'],
    ['404 page', '/en/blog/missing'],
  ])(
    'the %s page (%s) has no render-blocking stylesheet, and its inline CSS is allowed by hash',
    async (_kind, path) => {
      const res = await get(path);
      const html = await res.text();
      const head = html.slice(0, html.indexOf('</head>'));
      expect(head).not.toMatch(/<link[^>]+rel="?stylesheet/i);
      // Scripts in the head do not block the first paint.
      for (const script of head.match(/<script\b[^>]*>/g) ?? [])
        expect(script).toMatch(/\b(defer|async|type="module"|type="application\/ld\+json")/);
      const styles = [...head.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)].map((m) => m[1] ?? '');
      expect(styles.length).toBeGreaterThan(0);
      const csp = res.headers.get('content-security-policy') ?? '';
      const styleSrc = /(?:^|;)\s*style-src ([^;]*)/.exec(csp)?.[1] ?? '';
      expect(styleSrc).not.toContain('unsafe-inline');
      const { createHash } = await import('node:crypto');
      for (const css of styles)
        expect(styleSrc).toContain(`'sha256-${createHash('sha256').update(css).digest('base64')}'`);
    },
  );
});

describe("each language's home at its prefix (issue 62)", () => {
  it("/en answers as /ar does: the default language's home is /, and its prefix is sent there for good", async () => {
    expect((await get('/ar')).status).toBe(200);
    const res = await get('/en');
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('http://localhost:8080/');
    // With a slash too (and slashes, and a query), in one hop: not /en/ to /en to /.
    for (const [path, location] of [
      ['/en/', 'http://localhost:8080/'],
      ['/en//', 'http://localhost:8080/'],
      ['/en/?utm_source=card', 'http://localhost:8080/?utm_source=card'],
    ]) {
      const next = await get(path!);
      expect(next.status, path).toBe(301);
      expect(next.headers.get('location'), path).toBe(location);
    }
  });
});
