// Builds the Fastify app (plugins and routes) apart from listening, so tests and server.ts share it.
import { join } from 'node:path';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { STATIC_SITEMAP_FILE } from '../src/lib/build-manifest.ts';
import type { SiteConfig } from '../src/lib/site-config.ts';
import { loadAstroRenderer } from './astro-renderer.ts';
import { LiveCache } from './live-cache.ts';
import { RequestLog } from './logging.ts';
import { securityHeaders } from './security-headers.ts';
import { requestPath } from './send.ts';
import { StaticSite } from './static-site.ts';
import { Store } from './store/store.ts';
import { healthRoutes } from './routes/health.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { LivePages, livePageRoutes } from './routes/live-pages.ts';
import { siteRoutes } from './routes/site.ts';
import { sitemapRoutes } from './routes/sitemap.ts';

export interface AppOptions {
  config: SiteConfig;
  /** dist/ of a build made for config.baseUrl (client/, server/, sitemap-static.json). */
  distDir: string;
  logger?: FastifyServerOptions['logger'];
  /** Bounded number of rendered live pages kept in memory. */
  liveCacheSize?: number;
  /** URLs per sitemap file before /sitemap.xml becomes an index (50,000 by the sitemaps.org protocol). */
  sitemapLimit?: number;
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, distDir } = options;
  const site = new StaticSite(join(distDir, 'client'));
  const store = new Store(config.databasePath);
  const renderer = await loadAstroRenderer(join(distDir, 'server', 'entry.mjs'));
  const live = new LivePages({ config, site, store, renderer, cache: new LiveCache(options.liveCacheSize ?? config.liveCacheSize) });

  const app = Fastify({
    logger: options.logger ?? false,
    // Long enough for any real URL, short enough that a hostile one is refused early.
    routerOptions: { maxParamLength: 2048 },
    return503OnClosing: true,
    logController: new RequestLog(),
    trustProxy: config.trustProxy || false,
  });
  app.decorate('live', live);
  app.addHook('onClose', async () => store.close());

  // Every reply carries the security headers (set as Fastify headers: cheaper than on the raw response, which Node
  // validates twice). A URL that cannot name anything here (broken percent-encoding, NUL, backslash, `.` or `..`
  // segments) is a 400 whatever the route, as nginx in front answers it too.
  const headers = securityHeaders(config);
  app.decorateRequest('sitePath', '');
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(headers);
    const path = requestPath(request);
    if (path === undefined) {
      reply.code(400).type('text/plain; charset=utf-8').send('Bad request: the URL is not a valid path (broken percent-encoding, NUL, backslash or dot segments).\n');
      return;
    }
    request.sitePath = path;
    done();
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error, url: request.url }, 'request failed');
    reply.code(status).type('text/plain; charset=utf-8').send(status === 500 ? 'Internal server error\n' : `${error.message}\n`);
  });

  healthRoutes(app, { config, store });
  await mcpRoutes(app, { config, site, live, limits: config });
  sitemapRoutes(app, { config, store, staticEntriesFile: join(distDir, STATIC_SITEMAP_FILE), limit: options.sitemapLimit });
  const aliasFallback = livePageRoutes(app, { config, site, live });
  siteRoutes(app, { config, site, fallback: aliasFallback });
  return app;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The decoded path, checked by the onRequest hook (no dot segment, NUL, backslash or broken encoding). */
    sitePath: string;
  }
  interface FastifyInstance {
    /** Live pages (profiles, cards) as HTML and Markdown: the same service the MCP tools read through. */
    live: LivePages;
  }
}
