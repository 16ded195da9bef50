// Builds the Fastify app (plugins and routes) apart from listening, so tests and server.ts share it. Layers: routes
// (HTTP in and out) over services (site reader, live pages, sitemap, static site) over the store.
import { runningBuild } from './version.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyServerOptions,
} from 'fastify';
import { buildStyleHashes } from '../src/lib/build-manifest.ts';
import { STATIC_SITEMAP_FILE } from '../src/lib/sitemap.ts';
import { pathOf, CACHE, MCP_BODY_LIMIT, RETRY_AFTER } from '../src/lib/surface.ts';
import type { ServerConfig } from './config.ts';
import { clientErrorHandler } from './client-errors.ts';
import { Admission } from './admission/admission.ts';
import type { Pipelining } from './admission/pipelining.ts';
import { clientOf, runAs } from './admission/clients.ts';
import { proxyCheck } from './admission/connection-limits.ts';
import { CODES, errorResponse } from './mcp/jsonrpc.ts';
import { ErrorPages } from './error-pages.ts';
import { LiveCache } from './live-cache.ts';
import { requestIds } from './request-id.ts';
import { RequestLog } from './logging.ts';
import { Pressure } from './admission/pressure.ts';
import { Overloaded } from './admission/fair-slots.ts';
import { RenderPool } from './render/render-pool.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { edgeTags, pageRoutes } from './routes/pages.ts';
import { securityHeaders } from './security-headers.ts';
import { STALL_MS } from './send.ts';
import { hasBody, holdBody, lingerOnUnreadBody } from './request-body.ts';
import { originForm, checkedPathOfRequest, hasValidHost } from './request-path.ts';
import { followNotices, Freshness } from './services/freshness.ts';
import { LivePages } from './services/live-pages.ts';
import { SiteReader } from './services/site-reader.ts';
import { Sitemap } from './services/sitemap.ts';
import { StaticSite } from './services/static-site.ts';
import { openStore } from './store/open-store.ts';
import { StoreUnavailableError } from './store/store.ts';

export interface AppOptions {
  config: ServerConfig;
  /** dist/ of a build made for config.baseUrl (client/, server/, sitemap-static.json). */
  distDir: string;
  logger?: FastifyServerOptions['logger'];
  /** Bounded number of rendered live pages kept in memory. */
  liveCacheSize?: number;
  /** URLs per sitemap file before /sitemap.xml becomes an index (50,000 by the sitemaps.org protocol). */
  sitemapLimit?: number;
  /** Services already opened (openServices) by a caller that reads them too, such as a test counting renders. */
  services?: Services;
}

export type Services = Awaited<ReturnType<typeof openServices>>;

/** The services every route stands on, over one store (also used alone, by the in-process MCP bench). */
export async function openServices(options: Omit<AppOptions, 'logger'>) {
  const { config, distDir } = options;
  const site = new StaticSite(join(distDir, 'client'));
  const running = runningBuild(distDir);
  // What every client is held to (admission/admission.ts), and the slots the render threads and the store share out.
  const admission = new Admission(config);
  const store = openStore(config, (poolSize) => admission.pgSlots(poolSize));
  const pool = new RenderPool({
    serverEntry: join(distDir, 'server', 'entry.mjs'),
    threads: config.renderThreads,
    slots: admission.renderSlots(config.renderThreads),
  });
  const pressure = new Pressure({
    maxEventLoopDelayMs: config.maxEventLoopDelayMs,
    requests: admission.requests,
    lightRequests: config.lightRequests,
  });
  const freshness = new Freshness(store, config.changePollMs);
  // Told of each commit by the primary (issue 65), beside the poll.
  const notices = config.changeNotifyUrl ? followNotices(freshness, config.changeNotifyUrl) : undefined;
  const live = new LivePages({
    baseUrl: config.baseUrl,
    serviceName: config.serviceName,
    store,
    freshness,
    pool,
    pressure,
    cache: new LiveCache(options.liveCacheSize ?? config.liveCacheSize, config.liveCacheMb * 1024 * 1024),
  });
  const sitemap = new Sitemap({
    baseUrl: config.baseUrl,
    store,
    freshness,
    pressure,
    staticEntriesFile: join(distDir, STATIC_SITEMAP_FILE),
    limit: options.sitemapLimit,
  });
  const reader = new SiteReader({
    baseUrl: config.baseUrl,
    serviceName: config.serviceName,
    site,
    live,
    sitemap,
    store,
    pressure,
    running,
  });
  return {
    site,
    store,
    pool,
    pressure,
    admission,
    live,
    sitemap,
    reader,
    freshness,
    notices,
    running,
    errors: new ErrorPages(site),
  };
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const { site, store, pool, pressure, admission, live, reader, errors, notices, freshness } =
    options.services ?? (await openServices(options));
  const { requests, rate, turns } = admission;

  const headers = securityHeaders(config, buildStyleHashes(options.distDir));
  const http = {
    requestTimeout: config.requestTimeoutMs,
    headersTimeout: Math.min(60_000, config.requestTimeoutMs),
    connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(config.requestTimeoutMs / 4))),
  };
  let pipelining: Pipelining | undefined;
  const app = Fastify({
    logger: options.logger ?? false,
    // Long enough for any real URL, short enough that a hostile one is refused early.
    routerOptions: { maxParamLength: 2048 },
    rewriteUrl: originForm,
    return503OnClosing: true,
    logController: new RequestLog(),
    // One id a request, in its log lines and its answer's X-Request-Id (request-id.ts).
    requestIdHeader: false,
    genReqId: requestIds(config.trustProxy),
    trustProxy: config.trustProxy || false,
    // A client that never finishes its request, or goes silent, must not hold a socket and its buffers for as long
    // as it likes (Node's default request timeout is off). Node checks request deadlines on an interval: check often
    // enough that the deadline holds to within a quarter. The deadlines must be given when the server is created:
    // Node does not enforce a requestTimeout set afterwards (as Fastify's own option does).
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.idleTimeoutMs,
    http,
    // A connection's requests reach the app one at a time, however many it pipelines (admission/pipelining.ts). The
    // server is made as Fastify makes it, with that in front of its handler.
    serverFactory: (handler) => {
      let server: Server;
      ({ server, pipelining } = admission.server((gated) => createServer(http, gated), handler, config.trustProxy));
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
      server.setTimeout(config.idleTimeoutMs);
      return server;
    },
    // A request Node cannot read (too large, too slow, not HTTP) is answered with our headers too.
    clientErrorHandler: clientErrorHandler(headers, (socket) => pipelining?.readOf(socket)),
    // A URL the router cannot decode gets our 400, with our headers, not Fastify's JSON echoing the URL.
    frameworkErrors: (error, _request, anyReply) => {
      const reply = anyReply as FastifyReply;
      reply.headers(headers);
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
        return reply.code(414).type('text/plain; charset=utf-8').send('URI too long\n');
      return sendBadRequest(reply);
    },
  });

  // The slots, lines and budgets every route shares (admission/admission.ts), for the routes to take theirs from.
  app.decorate('admission', admission);
  // RFC 9112 §9.6: a client may close its half of the connection once its request is sent (`printf … | nc`); its
  // answer still comes. Node's default answered nothing then, once the answer had to wait for a render.
  (app.server as typeof app.server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  expectations(app, headers);
  // An answer larger than the kernel's buffers take at once is sent only as fast as its client reads: one that stops
  // reading loses its connection after SEND_TIMEOUT_MS without progress (Node sets the idle timeout back when the
  // answer is done), so that a thousand readers that read nothing do not hold a thousand answers.
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (
      payload !== null &&
      typeof payload === 'object' &&
      (!Buffer.isBuffer(payload) || payload.length > SEND_WATCHED_BYTES)
    )
      request.raw.socket?.setTimeout(
        Math.min(config.sendTimeoutMs, (payload as { [STALL_MS]?: number })[STALL_MS] ?? Infinity),
      );
    done(null, payload);
  });

  // Every reply carries the security headers (set as Fastify headers: cheaper than on the raw response, which Node
  // validates twice). A URL that cannot name anything here (broken percent-encoding, NUL, backslash, `.` or `..`
  // segments) is a 400 whatever the route, as nginx in front answers it too.
  app.decorateRequest('sitePath', '');
  app.decorateRequest('surfaceRoute', undefined);
  const fromProxy = proxyCheck(config.trustProxy);
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(headers);
    reply.header('x-request-id', request.id);
    // A body waits in the kernel until the route that reads it, or the answer that drops it, comes (request-body.ts).
    if (hasBody(request.raw)) holdBody(request.raw);
    // Whose request this is, counted while it is in progress: one client's share of requests, and its identity for
    // every shared queue below (clients.ts).
    const client = clientOf(request.ip);
    const refused = !rate.take(client)
      ? `has started more than ${config.requestRatePerClient} a second (and a burst of ${config.requestBurstPerClient})`
      : !requests.enter(client)
        ? `has ${config.maxRequestsPerClient} in progress already`
        : undefined;
    if (refused) {
      // A client's own connection (not a front's, which carries everyone's) is closed after it: the client pays for
      // its next refusal with a new connection, which its budget of those bounds (connection-limits.ts), and not
      // with a trip through the app a request, thousands a second (issue 60).
      if (!fromProxy(request.raw.socket.remoteAddress)) pipelining?.closeAfter(reply.raw);
      reply
        .code(429)
        .header('retry-after', String(RETRY_AFTER.busy))
        .header('cache-control', CACHE.none)
        .type('text/plain; charset=utf-8')
        .send(`Too many requests: this client ${refused}; retry in ${RETRY_AFTER.busy} s.\n`);
      return;
    }
    reply.raw.once('close', () => requests.leave(client));
    if (!hasValidHost(request)) {
      const why = 'Bad request: one Host header is required, naming a host and a port from 0 to 65535';
      reply.code(400).header('cache-control', CACHE.none);
      // The MCP endpoint refuses as JSON-RPC, as it refuses everything else.
      if (request.url === pathOf('mcp'))
        reply.type('application/json').send(JSON.stringify(errorResponse(null, CODES.invalidRequest, why)));
      else reply.type('text/plain; charset=utf-8').send(`${why}.\n`);
      return;
    }
    const path = checkedPathOfRequest(request);
    if (path === undefined) {
      sendBadRequest(reply);
      return;
    }
    request.sitePath = path;
    turns.start(client, () => runAs(client, done, reply.raw));
  });
  // An edge's fetch of what it keeps (deploy/edge.vcl names one `x-edge-fetch`; a proxy TRUST_PROXY names is believed,
  // anyone else is not) reads the change log first, whenever it was last read: the edge fetches after a purge, which
  // the region's purger sent once it found an edit on this same database, and this sidecar may not have learnt of it
  // yet (its notice not yet read from its socket, its poll not due). Answered from its cache, the old page was kept at
  // the edge until the purger's next purge, a third of a second later (issue 65). A read under way may have looked
  // before the edit was replayed: it is waited for, then the database's version looked at again, one look shared by
  // the fetches meanwhile (Freshness.catchUp); a database that cannot be read is the route's to answer.
  app.addHook('preHandler', async (request) => {
    if (request.headers['x-edge-fetch'] !== undefined && fromProxy(request.raw.socket.remoteAddress))
      await freshness.catchUp().catch(() => undefined);
  });
  // A body is read only by the route that takes one (/mcp reads its own, bounded: request-body.ts). Anywhere else it
  // is not parsed: the answer (405, 404) is sent at once and the rest of the body lingers out, dropped, or, declared
  // over what may linger, is not read at all (request-body.ts).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  // A body from a proxy TRUST_PROXY names is read to its end: the proxy bounded it and sends it whole (nginx buffers
  // it first), and a connection reset under it is a failed sidecar to the proxy: nginx took healthy sidecars out of
  // service for it, and every reader got 503 (issue 46).
  app.addHook('onSend', (request, reply, payload, done) => {
    if (hasBody(request.raw) && !request.raw.readableEnded)
      lingerOnUnreadBody(
        request,
        reply,
        request.sitePath === pathOf('mcp') || fromProxy(request.raw.socket.remoteAddress)
          ? Infinity
          : config.unreadBodyLingerBytes,
      );
    done(null, payload);
  });

  // The one place where HTTP errors become answers. A client's error (4xx) says what was wrong; a database that
  // cannot be read is the negotiated 503 page (it may recover); anything else is our defect (a corrupt row, a bug):
  // logged with its context at error level, answered with the negotiated 500 page.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    reply.headers(headers);
    if (error instanceof StoreUnavailableError) {
      request.log.warn({ err: error.message, path: request.sitePath }, 'store unavailable');
      return errors.send(request, reply, 503, request.sitePath || '/');
    }
    // Work this process cannot take on now (load shed): the client tries again in a moment.
    if (error instanceof Overloaded)
      return errors.send(request, reply, 503, request.sitePath || '/', error.retryAfterSeconds);
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply
        .code(error.statusCode)
        .type('text/plain; charset=utf-8')
        .header('cache-control', CACHE.none)
        .send(`${error.message}\n`);
    }
    request.log.error({ err: error, url: request.url }, 'request failed');
    return errors.send(request, reply, 500, request.sitePath || '/');
  });

  app.addHook('onClose', async () => {
    await notices?.stop();
    await store.close();
    await pool.close();
  });
  // Under pressure an /mcp request is refused before its body is read; the services refuse other costly work.
  await pressure.measure(
    app,
    (method, url) => method === 'POST' && url === pathOf('mcp'),
    (why) => ({
      statusCode: 503,
      headers: {
        'retry-after': String(RETRY_AFTER.busy),
        'content-type': 'application/json',
        'cache-control': CACHE.none,
      },
      body: JSON.stringify(
        errorResponse(null, CODES.serverError, `Service busy: ${why}; retry in ${RETRY_AFTER.busy} s`),
      ),
    }),
  );
  await mcpRoutes(app, { config, reader, live, site, errors, pool, limits: config });
  pageRoutes(app, {
    reader,
    errors,
    staticFiles: config.staticFiles === 'serve',
    edge: edgeTags(config.edgeTagHeader),
  });
  return app;
}

/** How long a connection is kept open for its client's next request after an answer (Fastify's default). */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/** Answers smaller than this leave at once (the kernel takes them whole); larger ones and streams are watched. */
const SEND_WATCHED_BYTES = 64 * 1024;

function sendBadRequest(reply: FastifyReply) {
  return reply
    .code(400)
    .type('text/plain; charset=utf-8')
    .header('cache-control', CACHE.none)
    .send('Bad request: the URL is not a valid path (broken percent-encoding, NUL, backslash or dot segments).\n');
}

/**
 * `Expect` (RFC 9110 §10.1.1): `100 Continue` only to a request whose body a route will read (a POST to /mcp within
 * its limit); any other is answered without reading its body (a 413 before a 99 MB body is sent, not after). An
 * expectation other than 100-continue is 417, with our headers like every answer.
 */
function expectations(app: FastifyInstance, headers: Record<string, string>): void {
  app.server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    const length = Number(req.headers['content-length'] ?? 0);
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'POST' && path === pathOf('mcp') && length <= MCP_BODY_LIMIT) res.writeContinue();
    app.server.emit('request', req, res);
  });
  app.server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const body = 'Expectation failed: this server meets only Expect: 100-continue.\n';
    res.writeHead(417, {
      ...headers,
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': CACHE.none,
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    res.end(body);
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    /** What every client is held to, and the slots the routes share (admission/admission.ts). */
    admission: Admission;
  }
  interface FastifyRequest {
    /** The decoded path, checked by the onRequest hook (no dot segment, NUL, backslash or broken encoding). */
    sitePath: string;
    /** The declared route that answered, when the site reader matched one (`/p/{page}`): logged as the route. */
    surfaceRoute: string | undefined;
  }
}
