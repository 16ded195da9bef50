// Starts the sidecar: validates the configuration and the build, listens, and shuts down gracefully.
import { fileURLToPath } from 'node:url';
import { Server } from 'node:net';
import { loadConfigOrExit } from './config.ts';
import { buildOutsideInstallation, servedBuild } from './served-build.ts';
import { pathOf } from '../src/lib/surface.ts';
import { manifestMismatch, readManifest } from '../src/lib/build-manifest.ts';
import { buildApp, openServices, type Services } from './app.ts';
import { serveMetrics, sidecarMetrics } from './metrics.ts';
import { lowerPlatformThreads } from './background-threads.ts';
import { RENDER_NICE_INCREMENT } from './render/render-pool.ts';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';

/** Counts every answer by its declared route (`/p/{page}`), `/mcp`, or `static`, and serves the metrics. */
async function startMetrics(app: FastifyInstance, services: Services, listen: string) {
  const metrics = sidecarMetrics(services, app.server);
  app.addHook('onResponse', (request, reply, done) => {
    const url = request.routeOptions.url;
    metrics.request(
      request.surfaceRoute ?? (url === '/*' ? 'static' : (url ?? 'not-found')),
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  return serveMetrics(metrics.registry, listen);
}

function openConnections(server: Server): Promise<number> {
  return new Promise((resolve) => server.getConnections((err, count) => resolve(err ? 0 : count)));
}

/** One request of each MCP leg, in process: what the first client would otherwise pay for. */
async function warmMcp(app: FastifyInstance): Promise<void> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  await app.inject({
    method: 'POST',
    url: pathOf('mcp'),
    headers: { ...headers, 'mcp-protocol-version': '2025-11-25' },
    payload: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'read_page', arguments: { path: '/' } },
    }),
  });
  await app.inject({
    method: 'POST',
    url: pathOf('mcp'),
    headers: { ...headers, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } }),
  });
}

/**
 * The listening socket a service manager handed over (systemd's socket activation, sd_listen_fds(3): the first is fd 3,
 * LISTEN_FDS counts them, LISTEN_PID names the process they are for); undefined when none was. Taken from the
 * environment once, so that nothing this process starts believes it was handed one too.
 */
function inheritedSocket(): { fd: number } | undefined {
  const count = Number(process.env.LISTEN_FDS ?? 0);
  const pid = process.env.LISTEN_PID;
  delete process.env.LISTEN_FDS;
  delete process.env.LISTEN_PID;
  delete process.env.LISTEN_FDNAMES;
  if (!(count >= 1) || (pid !== undefined && Number(pid) !== process.pid)) return undefined;
  return { fd: 3 };
}

/** Starts the sidecar; resolves with the address it serves on (`http://host:port`). */
export async function startServer(): Promise<string> {
  const config = loadConfigOrExit();

  // A `current` link is followed here, once: this process serves that build whole (its pages, its render threads'
  // code, its styles' hashes) until it is restarted, however the link moves meanwhile (docs/operations.md).
  const distDir = servedBuild(config);
  const problem = buildOutsideInstallation(distDir) ?? manifestMismatch(readManifest(distDir), config);
  if (problem) {
    console.error(
      `Cannot serve: ${problem}.\nBuild for this configuration first: BASE_URL=${config.baseUrl} npm run build (or use npm start, which builds when needed).`,
    );
    process.exit(1);
  }

  const services = await openServices({ config, distDir });
  await services.pool.warm(config.renderThreads);
  lowerPlatformThreads(RENDER_NICE_INCREMENT);
  const app = await buildApp({ config, distDir, logger: { level: config.logLevel }, services });
  // Metrics for operators, on an internal address of their own (never the public port), only when asked for.
  const metricsServer = config.metricsListen ? await startMetrics(app, services, config.metricsListen) : undefined;

  // Graceful shutdown. http.Server#close would also close idle keep-alive sockets that a client may be reusing at
  // that very moment (a reset mid-request). So: stop accepting at the TCP level only (net.Server#close: new
  // connections are refused cleanly), drain (every response says `Connection: close`, so clients stop reusing their
  // sockets), then close the app, which lets in-flight requests finish.
  let draining = false;
  app.addHook('onRequest', (_request, reply, done) => {
    if (draining) reply.raw.setHeader('connection', 'close');
    done();
  });
  const drainMs = config.shutdownDrainMs;
  const shutdown = async (signal: string) => {
    if (draining) return;
    draining = true;
    app.log.info({ signal, drainMs }, 'draining, then shutting down');
    // Connections the kernel completed before the signal wait in the listener's queue until the loop takes them, one a
    // turn (on a busy machine, many): closing the listener now would reset them with their requests. So the queue is
    // taken first, until a turn takes none (at most a second: a balancer still sending is refused after it); their
    // requests are answered with `Connection: close`.
    await acceptQueued(app.server, 1000);
    Server.prototype.close.call(app.server);
    await new Promise((resolve) => setTimeout(resolve, drainMs));
    // Sockets that stayed idle through the drain are closed; those with a request in flight are waited for (bounded).
    app.server.closeIdleConnections();
    for (let waited = 0; waited < 5000 && (await openConnections(app.server)) > 0; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    metricsServer?.close();
    try {
      await app.close();
    } catch (err) {
      // The listener is already closed; anything else is worth a log line, but the process still exits cleanly.
      if ((err as { code?: string }).code !== 'ERR_SERVER_NOT_RUNNING') app.log.error({ err }, 'error while closing');
    }
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  // The MCP layer compiles its schemas on first use (some 20 ms of the event loop): done here, before anyone waits.
  await warmMcp(app);
  // The kernel's queue of connections not yet taken: Node's 511 overflowed under a stranger's burst (a client opening
  // hundreds at once), and a new visitor's connection was dropped with them, to be tried again a second later. The
  // kernel caps it at net.core.somaxconn (4096 since Linux 5.4); each waiting connection is a few KB of its memory.
  const inherited = inheritedSocket();
  if (inherited) {
    // A listening socket systemd holds (socket activation): this process accepts on it beside any other holding it,
    // and closing its copy at SIGTERM leaves the socket open, so nothing is refused while versions change (issue 64).
    await app.listen({ ...inherited, host: config.host === 'localhost' ? '127.0.0.1' : config.host });
  } else {
    try {
      await app.listen({ port: config.port, host: config.host, backlog: config.listenBacklog });
    } catch (err) {
      // One line an operator can act on (issue 62), not Node's stack.
      if ((err as { code?: string }).code !== 'EADDRINUSE') throw err;
      const free = await freePortAfter(config.host, config.port);
      console.error(
        `Cannot serve: ${config.host}:${config.port} is in use by another program; stop it, or set PORT to another port` +
          (free === undefined ? '.' : ` (PORT=${free} is free now).`),
      );
      process.exit(1);
    }
  }
  // The address listened on, which PORT=0 (or the socket handed over) decides.
  const { address, port } = app.server.address() as AddressInfo;
  const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  console.log(`Serving ${config.baseUrl} on ${url}${inherited ? ' (a socket handed over: LISTEN_FDS)' : ''}`);
  return url;
}

/** The first port after `port` that `host` can listen on now (of the next twenty), to suggest in its place. */
async function freePortAfter(host: string, port: number): Promise<number | undefined> {
  for (let candidate = port + 1; candidate <= Math.min(port + 20, 65_535); candidate++) {
    const probe = new Server();
    const free = await new Promise<boolean>((resolve) => {
      probe.once('error', () => resolve(false));
      probe.listen(candidate, host, () => probe.close(() => resolve(true)));
    });
    if (free) return candidate;
  }
  return undefined;
}

/** Turns of the loop until one accepts no connection on `server`, at most `ms`: what its listener's queue held is taken. */
async function acceptQueued(server: Server, ms: number): Promise<void> {
  let accepted = 0;
  const count = () => void accepted++;
  server.on('connection', count);
  const until = Date.now() + ms;
  try {
    for (let quiet = 0; quiet < 2 && Date.now() < until;) {
      const before = accepted;
      await new Promise((resolve) => setImmediate(resolve));
      quiet = accepted === before ? quiet + 1 : 0;
    }
  } finally {
    server.off('connection', count);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await startServer();
}
