// Builds the Fastify app (plugins and routes) apart from listening, so tests and server.ts share it.
import { join } from 'node:path';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import { sendErrorPage } from './error-pages.ts';
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

  const headers = securityHeaders(config);
  const app = Fastify({
    logger: options.logger ?? false,
    // Long enough for any real URL, short enough that a hostile one is refused early.
    routerOptions: { maxParamLength: 2048 },
    return503OnClosing: true,
    logController: new RequestLog(),
    trustProxy: config.trustProxy || false,
    // A client that never finishes its request, or goes silent, must not hold a socket and its buffers for as long
    // as it likes (Node's default request timeout is off). Node checks request deadlines on an interval: check often
    // enough that the deadline holds to within a quarter. The deadlines must be given when the server is created:
    // Node does not enforce a requestTimeout set afterwards (as Fastify's own option does).
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.idleTimeoutMs,
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: Math.min(60_000, config.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(config.requestTimeoutMs / 4))),
    },
    // A URL the router cannot decode gets our 400, with our headers, not Fastify's JSON echoing the URL.
    frameworkErrors: (error, _request, anyReply) => {
      const reply = anyReply as FastifyReply;
      reply.headers(headers);
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return reply.code(414).type('text/plain; charset=utf-8').send('URI too long\n');
      return sendBadRequest(reply);
    },
  });
  app.decorate('live', live);
  app.addHook('onClose', async () => store.close());

  // Every reply carries the security headers (set as Fastify headers: cheaper than on the raw response, which Node
  // validates twice). A URL that cannot name anything here (broken percent-encoding, NUL, backslash, `.` or `..`
  // segments) is a 400 whatever the route, as nginx in front answers it too.
  app.decorateRequest('sitePath', '');
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(headers);
    const path = requestPath(request);
    if (path === undefined) {
      sendBadRequest(reply);
      return;
    }
    request.sitePath = path;
    done();
  });

  // The one place where HTTP errors become answers. A client's error (4xx) says what was wrong; anything else is our
  // defect (a corrupt row, a bug): logged with its context at error level, answered with the negotiated 500 page.
  // A database that cannot be read never gets here: live routes answer it with the 503 page (live-pages.ts).
  app.setErrorHandler((error: FastifyError, request, reply) => {
    reply.headers(headers);
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send(`${error.message}\n`);
    }
    request.log.error({ err: error, url: request.url }, 'request failed');
    return sendErrorPage(site, request, reply, 500, request.sitePath || '/');
  });

  healthRoutes(app, { config, store });
  await mcpRoutes(app, { config, site, live, limits: config });
  sitemapRoutes(app, { config, store, staticEntriesFile: join(distDir, STATIC_SITEMAP_FILE), limit: options.sitemapLimit });
  const aliasFallback = livePageRoutes(app, { config, site, live });
  siteRoutes(app, { config, site, fallback: aliasFallback });
  return app;
}

function sendBadRequest(reply: FastifyReply) {
  return reply
    .code(400)
    .type('text/plain; charset=utf-8')
    .header('cache-control', 'no-store')
    .send('Bad request: the URL is not a valid path (broken percent-encoding, NUL, backslash or dot segments).\n');
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
