// Every declared route answers as src/lib/surface.ts says: a declared status, a declared media type, the declared
// Cache-Control and CORS. Runs against the sidecar alone and through the front (nginx filled from the declaration).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CACHE,
  examplePath,
  isFingerprinted,
  ROUTES,
  type RouteDeclaration,
  type RouteId,
} from '../../src/lib/surface.ts';
import { OpenApiAnswers } from '../../scripts/fuzz/openapi-answers.ts';
import { clientDir } from '../helpers/env.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * What a route is asked besides its example path (surface.ts `examplePath`: the declaration's parameter examples, from
 * the demo data and the build): a route that is not a GET says how it is asked. A new GET route needs nothing here.
 */
const REQUESTS: Partial<Record<RouteId, RequestInit>> = {
  mcp: {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  },
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
    // The repository's blog fits on one page: a list's page 2 is the declared 404 here (blog-scale.test.ts serves it).
    const path = examplePath(id);
    const init = REQUESTS[id];
    expect(route.method === 'GET' || init !== undefined, `${id}: how is a ${route.method} asked?`).toBe(true);
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
