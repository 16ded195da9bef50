// Every declared route answers as src/lib/surface.ts says: a declared status, a declared media type, the declared
// Cache-Control and CORS. Runs against the sidecar alone and through the front (nginx filled from the declaration).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE, isFingerprinted, ROUTES, type RouteDeclaration, type RouteId } from '../../src/lib/surface.ts';
import { OpenApiAnswers } from '../../scripts/fuzz/openapi-answers.ts';
import { clientDir } from '../helpers/env.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** A request that succeeds for each route, from the demo data and the build (the compiler asks for one per route). */
const EXAMPLES: Record<RouteId, { path: string; init?: RequestInit }> = {
  homepage: { path: '/' },
  getProfilePage: { path: '/p/layla' },
  getDigitalCard: { path: '/c/k7f2q9' },
  getProfilePageMarkdown: { path: '/p/layla.md' },
  getDigitalCardMarkdown: { path: '/c/k7f2q9.md' },
  getDigitalCardVcard: { path: '/c/k7f2q9.vcf' },
  getProfileQr: { path: '/p/layla/qr.svg' },
  getDigitalCardQr: { path: '/c/r8x1/qr.svg' },
  getDigitalCardContactQr: { path: '/c/k7f2q9/contact-qr.svg' },
  getBlogForPreferredLanguage: { path: '/blog' },
  getBlogArticleList: { path: '/blog/articles.json' },
  listBlogArticles: { path: '/ar/blog' },
  getBlogArticle: { path: '/en/blog/qr-or-nfc-business-card' },
  getBlogFeed: { path: '/en/blog/rss.xml' },
  getBlogJsonFeed: { path: '/ar/blog/feed.json' },
  // The repository's blog fits on one page: page 2 is the declared 404 here; test/build/blog-scale.test.ts serves it.
  listBlogArticlesPage: { path: '/en/blog/page/2' },
  listBlogTopics: { path: '/ar/blog/topics' },
  listBlogTopicArticles: { path: '/ar/blog/topics/link-in-bio' },
  listBlogTopicArticlesPage: { path: '/ar/blog/topics/link-in-bio/page/2' },
  searchBlog: { path: '/en/blog/search' },
  getSitemap: { path: '/sitemap.xml' },
  getSitemapPart: { path: '/sitemaps/1.xml' },
  getRobots: { path: '/robots.txt' },
  getLlmsTxt: { path: '/llms.txt' },
  getApiCatalog: { path: '/.well-known/api-catalog' },
  getOpenApi: { path: '/openapi.json' },
  getApiDocs: { path: '/docs/api' },
  getApiDocsMarkdown: { path: '/docs/api.md' },
  getAuthMd: { path: '/auth.md' },
  getMcpServerCard: { path: '/.well-known/mcp/server-card.json' },
  getMcpServerCardAtEndpoint: { path: '/mcp/server-card' },
  getMcpCatalog: { path: '/.well-known/mcp/catalog.json' },
  getAiCatalog: { path: '/.well-known/ai-catalog.json' },
  getAgentSkillsIndex: { path: '/.well-known/agent-skills/index.json' },
  getAgentSkillFile: { path: '/.well-known/agent-skills/use-the-mcp-server/SKILL.md' },
  mcp: {
    path: '/mcp',
    init: {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    },
  },
  getHealth: { path: '/health' },
  getProfileAlias: { path: '/layla' },
};

let server: TestServer;
let openApi: OpenApiAnswers;
beforeAll(async () => {
  server = await startTestServer();
  openApi = new OpenApiAnswers(await (await fetch(server.url + '/openapi.json')).json());
});
afterAll(() => server.close());

describe('every declared route answers as declared', () => {
  it.each(Object.entries(ROUTES) as [RouteId, RouteDeclaration][])('%s', async (id, route) => {
    const { path, init } = EXAMPLES[id];
    const res = await fetch(server.url + path, { redirect: 'manual', ...init });
    expect(route.statuses, `${id}: status ${res.status}`).toContain(res.status);
    // What a validating proxy would say of it, by the served OpenAPI document (issue 27: feed.json was declared a string).
    const body = await res.text();
    expect(
      openApi.problems(init?.method ?? 'GET', path, {
        status: res.status,
        headers: Object.fromEntries(res.headers),
        body,
      }),
      id,
    ).toEqual([]);
    // Success as declared: a sitemap part exists only once the sitemap is an index, so 404 is the declared answer.
    if (res.status === 200) {
      const type = (res.headers.get('content-type') ?? '').split(';')[0];
      expect(route.media, id).toContain(type);
      expect(res.headers.get('cache-control'), id).toBe(CACHE[route.cache]);
      expect(res.headers.get('access-control-allow-origin'), id).toBe(route.cors ? '*' : null);
    } else if (res.status === 302 || res.status === 301) {
      expect(res.headers.get('cache-control'), id).toBe(CACHE[route.cache]);
    }
    if (route.negotiated) {
      const md = await fetch(server.url + path, { headers: { accept: 'text/markdown' } });
      expect(md.headers.get('content-type'), id).toBe('text/markdown; charset=utf-8');
      expect(md.headers.get('vary'), id).toContain('Accept');
    }
  });
});

describe('answers the fuzzer found undeclared', () => {
  it('POST /mcp subscriptions/listen on 2026-07-28 (method not found, 404) is an answer OpenAPI declares', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const init = {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'subscriptions/listen', params: { _meta: meta }, id: '' }),
    };
    const res = await fetch(server.url + '/mcp', init);
    const body = await res.text();
    expect(res.status).toBe(404);
    expect(JSON.parse(body)).toMatchObject({ id: '', error: { code: -32601 } });
    expect(
      openApi.problems('POST', '/mcp', { status: res.status, headers: Object.fromEntries(res.headers), body }),
    ).toEqual([]);
  });
});

describe('files of the build that no route declares (issue 30: one rule for which files never change)', () => {
  /** One file of each kind under `dir` of the build, by the pattern of its name. */
  const oneUnder = (dir: string, name: RegExp) => {
    const file = readdirSync(join(clientDir, dir)).find((f) => name.test(f) && !/\.(br|gz)$/.test(f));
    expect(file, `${dir} has a file like ${name}`).toBeDefined();
    return `/${dir}/${file}`;
  };

  it('a fingerprinted file (Astro asset, Pagefind fragment, index chunk, metadata) is immutable for a year, as the CDN keeps it', async () => {
    const fingerprinted = [
      oneUnder('_astro', /\.svg$/),
      oneUnder('pagefind/en/fragment', /\.pf_fragment$/),
      oneUnder('pagefind/ar/index', /\.pf_index$/),
      oneUnder('pagefind/en', /\.pf_meta$/),
    ];
    for (const path of fingerprinted) {
      expect(isFingerprinted(path), path).toBe(true);
      const res = await fetch(server.url + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('cache-control'), path).toBe(CACHE.immutable);
    }
  });

  it('a file of the search index that keeps its name across builds is a page’s five minutes', async () => {
    for (const path of ['/pagefind/en/pagefind-entry.json', '/pagefind/ar/pagefind.js']) {
      expect(isFingerprinted(path), path).toBe(false);
      const res = await fetch(server.url + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('cache-control'), path).toBe(CACHE.page);
    }
  });
});
