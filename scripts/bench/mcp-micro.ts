// In-process cost of one MCP tools/call without HTTP (no sockets, no Fastify): where the per-request time goes.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isLegacyRequest, McpServer } from '@modelcontextprotocol/server';
import { homepageLinks } from '../../src/lib/discovery.ts';
import { loadConfig } from '../../src/lib/site-config.ts';
import { loadAstroRenderer } from '../../sidecar/astro-renderer.ts';
import { ErrorPages } from '../../sidecar/error-pages.ts';
import { LiveCache } from '../../sidecar/live-cache.ts';
import { mcpHandlers } from '../../sidecar/mcp/handlers.ts';
import { mcpEndpoints, mcpServerFactory } from '../../sidecar/mcp/server.ts';
import { Freshness } from '../../sidecar/services/freshness.ts';
import { LivePages } from '../../sidecar/services/live-pages.ts';
import { SiteReader } from '../../sidecar/services/site-reader.ts';
import { Sitemap } from '../../sidecar/services/sitemap.ts';
import { StaticSite } from '../../sidecar/services/static-site.ts';
import { defaultChangePollMs, openStore } from '../../sidecar/store/store.ts';

const config = loadConfig();
const distDir = join(import.meta.dirname, '../../dist');
const site = new StaticSite(join(distDir, 'client'));
const store = openStore(config);
const renderer = await loadAstroRenderer(join(distDir, 'server', 'entry.mjs'));
const freshness = new Freshness(store, defaultChangePollMs(config));
const live = new LivePages({ baseUrl: config.baseUrl, store, freshness, renderer, cache: new LiveCache(100) });
const sitemap = new Sitemap({ baseUrl: config.baseUrl, store, freshness, staticEntriesFile: join(distDir, 'sitemap-static.json') });
const reader = new SiteReader({ baseUrl: config.baseUrl, serviceName: config.serviceName, site, live, sitemap, store, homepageLinks: homepageLinks(config) });
const handlers = mcpHandlers({ config, site, live, reader, errors: new ErrorPages(site) });
const { legacy, modern } = mcpEndpoints(handlers);
const factory = mcpServerFactory(handlers);

const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: 'localhost:8080' };
const legacyBody = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_profile', arguments: { page: 'layla' } } };
const modernBody = { ...legacyBody, params: { ...legacyBody.params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } };
const modernHeaders = { ...headers, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_profile' };
const request = (h: Record<string, string>) => new Request('http://localhost:8080/mcp', { method: 'POST', headers: h });

async function time(label: string, fn: () => Promise<unknown> | unknown, n = 4000) {
  for (let i = 0; i < 500; i++) await fn();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn();
  console.log(`${label.padEnd(44)} ${(((performance.now() - t0) / n) * 1000).toFixed(1).padStart(7)} µs`);
}

const only = process.env.ONLY;
if (only === 'modern') { await time('modern', async () => (await modern.fetch(request(modernHeaders), { parsedBody: modernBody })).text(), 40000); process.exit(0); }
if (only === 'legacy') { await time('legacy', async () => (await legacy({ protocolVersion: undefined, webRequest: () => request(headers) }, legacyBody)).body, 40000); process.exit(0); }
await time('handler only (get_profile body)', () => handlers.tools.get_profile({ page: 'layla' }));
await time('new Request', () => request(headers));
await time('isLegacyRequest', () => isLegacyRequest(request(headers), legacyBody));
await time('factory (new McpServer, 5 tools)', () => factory({ era: 'legacy' }));
await time('legacy leg, whole (2025-11-25)', async () => (await legacy({ protocolVersion: undefined, webRequest: () => request(headers) }, legacyBody)).body);
await time('modern leg, whole (2026-07-28)', async () => (await modern.fetch(request(modernHeaders), { parsedBody: modernBody })).text());

/** The lightest transport there is: hands the parsed message in, takes the answer out. */
async function bareTransport(message: unknown) {
  const server = factory({ era: 'legacy' });
  let answer!: unknown;
  const transport = { start: async () => {}, close: async () => transport.onclose?.(), send: async (m: unknown) => { answer = m; }, onmessage: undefined as undefined | ((m: unknown, e?: unknown) => void), onclose: undefined as undefined | (() => void) };
  await server.connect(transport as never);
  transport.onmessage!(message, {});
  while (answer === undefined) await new Promise((r) => setImmediate(r));
  await server.close();
  return JSON.stringify(answer);
}
await time('same server, bare in-process transport', () => bareTransport(legacyBody));
const one = factory({ era: 'legacy' });
let answer: unknown;
const t = { start: async () => {}, close: async () => {}, send: async (m: unknown) => { answer = m; }, onmessage: undefined as undefined | ((m: unknown, e?: unknown) => void) };
await one.connect(t as never);
await time('one connected server, bare transport', async () => { answer = undefined; t.onmessage!(legacyBody, {}); while (answer === undefined) await Promise.resolve(); return JSON.stringify(answer); });
void McpServer;
process.exit(0);
