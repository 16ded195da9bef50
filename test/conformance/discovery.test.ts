// The discovery documents and pages, checked by the validators agents and crawlers rely on.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import robotsParser from 'robots-parser';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { builtFiles } from '../helpers/dist.ts';
import { clientDir, projectRoot, testConfig } from '../helpers/env.ts';
import { xmllintSitemap } from '../../scripts/validators.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const fetchText = async (path: string) => (await fetch(server.url + path)).text();
const base = testConfig.baseUrl;

describe('openapi.json', () => {
  it('lints clean with redocly (recommended rules, see redocly.yaml)', () => {
    const result = spawnSync(
      join(projectRoot, 'node_modules/.bin/redocly'),
      ['lint', join(clientDir, 'openapi.json'), '--format', 'stylish'],
      {
        cwd: projectRoot,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', NO_COLOR: '1' },
        encoding: 'utf8',
      },
    );
    const output = result.stdout + result.stderr;
    expect(result.status, output).toBe(0);
    expect(output).not.toMatch(/\bwarning\b/i);
  });

  it('parses and validates as OpenAPI 3.1 with every operation of the spec', async () => {
    const doc = JSON.parse(await fetchText('/openapi.json'));
    const api = (await SwaggerParser.validate(structuredClone(doc))) as unknown as typeof doc;
    expect(api.openapi).toBe('3.1.0');
    expect(api.info.version).toBe('1.0.0');
    expect(api.servers).toEqual([{ url: base, description: 'Production' }]);
    const ids = Object.values(
      api.paths as Record<string, Record<string, { operationId: string; security?: unknown[] }>>,
    ).flatMap((item) => Object.values(item).map((op) => op.operationId));
    for (const id of [
      'getProfilePage',
      'getDigitalCard',
      'listBlogArticles',
      'getBlogArticle',
      'getSitemap',
      'getRobots',
      'getApiCatalog',
      'getOpenApi',
      'getApiDocs',
      'getAuthMd',
      'getMcpServerCard',
      'mcp',
      'getHealth',
      'homepage',
      'getProfileAlias',
    ]) {
      expect(ids).toContain(id);
    }
    expect(api.components.securitySchemes.token).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'token' });
    // Declared, and required by no operation.
    expect(JSON.stringify(api.paths)).not.toContain('"token"');
    expect(api.paths['/c/{cardId}'].get.responses['302'].headers.Location).toBeDefined();
    expect(api.paths['/health'].get.responses['503']).toBeDefined();
    expect(api.paths['/mcp'].post.responses['406']).toBeDefined();
  });
});

describe('/.well-known/api-catalog', () => {
  it('is an RFC 9264 linkset with service-desc, service-doc, service-meta and status', async () => {
    const catalog = JSON.parse(await fetchText('/.well-known/api-catalog'));
    expect(Object.keys(catalog)).toEqual(['linkset']);
    expect(Array.isArray(catalog.linkset)).toBe(true);
    for (const context of catalog.linkset) {
      expect(new URL(context.anchor).href).toBe(context.anchor);
      for (const [rel, targets] of Object.entries(context)) {
        if (rel === 'anchor') continue;
        expect(Array.isArray(targets), rel).toBe(true);
        for (const target of targets as { href: string; type?: string }[]) {
          expect(() => new URL(target.href), target.href).not.toThrow();
          expect(Object.keys(target).every((k) => ['href', 'type', 'title', 'hreflang'].includes(k))).toBe(true);
        }
      }
    }
    const [entry] = catalog.linkset;
    expect(entry.anchor).toBe(`${base}/`);
    expect(entry['service-desc']).toEqual([{ href: `${base}/openapi.json`, type: 'application/json' }]);
    expect(entry['service-doc']).toEqual([
      { href: `${base}/docs/api`, type: 'text/html' },
      { href: `${base}/docs/api.md`, type: 'text/markdown' },
    ]);
    expect(entry['service-meta']).toEqual([{ href: `${base}/auth.md`, type: 'text/markdown' }]);
    expect(entry.status).toEqual([{ href: `${base}/health`, type: 'application/json' }]);
  });

  it('answers HEAD too', async () => {
    const res = await fetch(server.url + '/.well-known/api-catalog', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/linkset\+json/);
  });
});

describe('robots.txt', () => {
  it('allows public pages to every agent and to GPTBot, keeps them out of the owner app, and names the sitemap', async () => {
    const text = await fetchText('/robots.txt');
    const robots = robotsParser(`${base}/robots.txt`, text);
    for (const agent of ['*', 'GPTBot', 'Googlebot', 'ClaudeBot']) {
      for (const path of [
        '/',
        '/ar',
        '/en/blog',
        '/en/blog/qr-or-nfc-business-card',
        '/p/layla',
        '/c/k7f2q9',
        '/docs/api',
        '/openapi.json',
        '/auth.md',
        '/layla',
        '/loginhelp',
      ]) {
        expect(robots.isAllowed(`${base}${path}`, agent) === true, `${agent} ${path}`).toBe(true);
      }
      for (const path of [
        '/login',
        '/login/otp',
        '/oauth/callback',
        '/checkout',
        '/payment/confirm',
        '/auth',
        '/auth/google',
        '/mcp',
        '/login?next=/p/x',
      ]) {
        expect(robots.isDisallowed(`${base}${path}`, agent) === true, `${agent} ${path}`).toBe(true);
      }
    }
    expect(robots.getSitemaps()).toEqual([`${base}/sitemap.xml`]);
    expect(text).toMatch(/^Content-Signal: /m);
  });
});

describe('sitemap.xml', () => {
  it('validates against the sitemaps.org XSD with xhtml:link alternates', async () => {
    const { ok, output } = xmllintSitemap(await fetchText('/sitemap.xml'));
    expect(ok, output).toBe(true);
  });

  it('lists every indexable static page, published profile and active page-mode card, and no error page', async () => {
    const xml = await fetchText('/sitemap.xml');
    const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    const expected = builtFiles('.html')
      .map((f) => f.urlPath)
      .filter((p) => !/\/(404|500|503)\.html$/.test(p))
      .map((p) => base + (p === '/index.html' ? '/' : p.replace(/\.html$/, '')));
    // From the demo data: not the unpublished profile, not the redirect card; the café's profile and card in each of
    // their languages, at their own addresses, not at the printed one (issue 48).
    const live = [
      '/p/layla',
      '/p/northwind-studio',
      '/p/qahwat-alnakheel/ar',
      '/p/qahwat-alnakheel/en',
      '/p/sam-rivera',
      '/c/k7f2q9',
      '/c/n0rth1',
      '/c/nakheel1/ar',
      '/c/nakheel1/en',
    ].map((p) => base + p);
    expect([...locs].sort()).toEqual([...expected, ...live].sort());
    expect(xml).toContain(
      `<xhtml:link rel="alternate" hreflang="x-default" href="${base}/en/blog/link-in-bio-that-works"/>`,
    );
    // Each version names the other and the printed address as x-default; a page in one language names none.
    const entryOf = (loc: string) => new RegExp(`<url><loc>${loc}</loc>[\\s\\S]*?</url>`).exec(xml)?.[0] ?? '';
    for (const version of ['ar', 'en'])
      expect(entryOf(`${base}/p/qahwat-alnakheel/${version}`)).toContain(
        `<xhtml:link rel="alternate" hreflang="ar" href="${base}/p/qahwat-alnakheel/ar"/>` +
          `<xhtml:link rel="alternate" hreflang="en" href="${base}/p/qahwat-alnakheel/en"/>` +
          `<xhtml:link rel="alternate" hreflang="x-default" href="${base}/p/qahwat-alnakheel"/>`,
      );
    expect(entryOf(`${base}/p/layla`)).not.toContain('xhtml:link');
  });
});

describe('llms.txt', () => {
  it('follows the llmstxt.org shape and names the docs, both blogs and the MCP endpoint', async () => {
    const text = await fetchText('/llms.txt');
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^# \S/);
    expect(lines.find((l) => l.startsWith('>'))).toBeDefined();
    expect(text).toMatch(/^## Docs$/m);
    for (const url of [
      '/docs/api.md',
      '/openapi.json',
      '/.well-known/api-catalog',
      '/auth.md',
      '/mcp',
      '/.well-known/mcp/server-card.json',
      '/en/blog.md',
      '/ar/blog.md',
    ]) {
      expect(text).toContain(`(${base}${url})`);
    }
    for (const link of text.matchAll(/\]\(([^)]+)\)/g)) expect(link[1]).toMatch(/^https?:\/\//);
  });
});

describe('auth.md', () => {
  it("states the authentication policy of the spec and the operators' contact", async () => {
    const text = await fetchText('/auth.md');
    for (const phrase of [
      'no public write API',
      'no self-service agent registration',
      '/login',
      'one-time code',
      'Google',
      'Facebook',
      '`token`',
      'no OAuth authorization server',
      'no OAuth protected-resource metadata',
      testConfig.contactEmail,
    ]) {
      expect(text).toContain(phrase);
    }
  });
});
