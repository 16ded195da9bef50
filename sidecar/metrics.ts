// Prometheus metrics (prom-client) for operators, on an internal address of their own (METRICS_LISTEN), never the
// public port: what the sidecar and the purger do. Values the services keep as plain counters are read when scraped,
// so the request path pays only for the request counter, and only when metrics are on.
import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { CACHE } from '../src/lib/surface.ts';
import type { Services } from './app.ts';
import { hostPort } from './config.ts';
import type { Freshness } from './services/freshness.ts';
import type { ChangeNotices } from './store/postgres/change-notices.ts';
import { LoopWatch } from './loop-watch.ts';

/** A counter whose total another object keeps: read at each scrape. */
function counterOf(registry: Registry, name: string, help: string, read: () => number): void {
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

/**
 * How far the change log has been followed: its position, how long since it was last read to its end, which path
 * found each change (a notice from the primary, or the poll), and whether the primary's notices are being heard.
 */
function changeLogMetrics(registry: Registry, freshness: Freshness, notices?: ChangeNotices): void {
  new Counter({
    name: 'bio_changes_found_total',
    help: 'Reads of the change log that found changes, by what set them off: a notice from the primary, or the poll.',
    labelNames: ['via'],
    registers: [registry],
    // Like the position below, counted after the read the scrape sets off (one read shared by the three).
    async collect() {
      await freshness.sync().catch(() => undefined);
      this.reset();
      for (const [via, n] of Object.entries(freshness.found)) this.inc({ via }, n);
    },
  });
  if (notices)
    new Gauge({
      name: 'bio_change_notices_listening',
      help: "1 while the primary's notices of each commit are being heard (CHANGE_NOTIFY_URL), else 0.",
      registers: [registry],
      collect() {
        this.set(notices.listening ? 1 : 0);
      },
    });
  new Gauge({
    name: 'bio_change_log_position',
    help: 'The change log sequence this process has seen up to.',
    registers: [registry],
    // After the read the scrape brings about (the lag's, below; one read shared): not the position before it.
    async collect() {
      await freshness.sync().catch(() => undefined);
      this.set(freshness.position);
    },
  });
  new Gauge({
    name: 'bio_change_log_lag_seconds',
    help: 'Seconds since the change log was last read to its end (how stale what this process knows may be).',
    registers: [registry],
    // Brought up to date first (a cheap version check, at most every CHANGE_POLL_MS): a sidecar nobody asked for a
    // while is not behind (issue 64: the lag alert fired on every idle site); one whose database cannot be read is.
    async collect() {
      await freshness.sync().catch(() => undefined);
      this.set(freshness.syncedAt ? (Date.now() - freshness.syncedAt) / 1000 : 0);
    },
  });
}

export interface SidecarMetrics {
  registry: Registry;
  /** One answered request, by its declared route (or `static`, `mcp`, `other`), status and seconds taken. */
  request(route: string, status: number, seconds: number): void;
}

export function sidecarMetrics(
  services: Pick<Services, 'live' | 'freshness' | 'notices' | 'store' | 'sitemap' | 'admission' | 'running' | 'pool'>,
  server?: Server,
): SidecarMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'bio_http_requests_total',
    help: 'Requests answered, by route and status.',
    labelNames: ['route', 'status'],
    registers: [registry],
  });
  // How long requests take, by route (a score of them: declared by src/lib/surface.ts), from arrival to the last byte
  // handed to the socket (issue 64).
  const durations = new Histogram({
    name: 'bio_http_request_duration_seconds',
    help: 'Seconds from a request read to its answer sent, by route.',
    labelNames: ['route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  // What runs, as the convention for it is: a gauge of 1 labelled with it.
  new Gauge({
    name: 'bio_build_info',
    help: 'What this process runs, as labels: the version (package.json), the source commit and the build; always 1.',
    labelNames: ['version', 'revision', 'build'],
    registers: [registry],
  }).set({ ...services.running }, 1);
  const { live, freshness, notices, store, sitemap } = services;
  counterOf(registry, 'bio_live_cache_hits_total', 'Live lookups answered from the live cache.', () => live.hits);
  counterOf(registry, 'bio_live_cache_misses_total', 'Live lookups the live cache did not answer.', () => live.misses);
  counterOf(registry, 'bio_live_renders_total', 'Live pages rendered.', () => live.renders);
  new Counter({
    name: 'bio_render_tasks_total',
    help: 'Tasks the render threads did, by kind (page, markdown, og, qr, json-string, warm); a task whose client left while it waited in line is not done.',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [kind, n] of Object.entries(services.pool.done)) this.inc({ kind }, n);
    },
  });
  new Gauge({
    name: 'bio_render_waiting',
    help: "Render tasks waiting now: in the clients' lines (RENDER_WAITING_PER_THREAD a thread at most) and the one handed to each thread behind the render it draws.",
    registers: [registry],
    collect() {
      this.set(services.pool.queued);
    },
  });
  counterOf(
    registry,
    'bio_sitemap_builds_total',
    'Sitemap documents (the list, the index or a part) built: once per change of what they list.',
    () => sitemap.builds,
  );
  counterOf(
    registry,
    'bio_connection_reads_total',
    'Reads of client connections that brought bytes (a body dripped a byte a segment is read in batches).',
    () => services.admission.connectionReads,
  );
  changeLogMetrics(registry, freshness, notices);
  if (server) {
    new Gauge({
      name: 'bio_http_connections',
      help: 'Connections open now (MAX_CONNECTIONS bounds them).',
      registers: [registry],
      async collect() {
        this.set(await new Promise<number>((resolve) => server.getConnections((err, n) => resolve(err ? NaN : n))));
      },
    });
  }
  const loop = new LoopWatch();
  new Gauge({
    name: 'bio_event_loop_longest_hold_seconds',
    help: 'The longest the event loop was held (main-thread CPU time between two of its turns) since the last scrape.',
    registers: [registry],
    collect() {
      this.set(loop.takeLongestHoldMs() / 1000);
    },
  });
  if (store.stats) {
    const stats = () => store.stats!();
    new Gauge({
      name: 'bio_pg_replica_lag_seconds',
      help: "The standby's replay lag while WAL is pending, at the last probe.",
      registers: [registry],
      collect() {
        this.set(stats().replicaLagMs / 1000);
      },
    });
    new Gauge({
      name: 'bio_pg_pool_connections',
      help: "PostgreSQL pool connections for the clients' reads, by state (waiting: reads waiting for one).",
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const pool = stats();
        this.set({ state: 'total' }, pool.poolTotal);
        this.set({ state: 'idle' }, pool.poolIdle);
        this.set({ state: 'waiting' }, pool.poolWaiting);
      },
    });
  }
  return {
    registry,
    request: (route, status, seconds) => {
      requests.inc({ route, status: String(status) });
      durations.observe({ route }, seconds);
    },
  };
}

export interface PurgerMetrics {
  registry: Registry;
  sent(edge: string, seconds: number): void;
  failed(edge: string): void;
}

export function purgerMetrics(freshness: Freshness, notices?: ChangeNotices): PurgerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const sent = new Counter({
    name: 'bio_purges_sent_total',
    help: 'Purges an edge took.',
    labelNames: ['edge'],
    registers: [registry],
  });
  const failed = new Counter({
    name: 'bio_purges_failed_total',
    help: 'Purges that failed (each is sent again).',
    labelNames: ['edge'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'bio_purge_duration_seconds',
    help: 'Time an edge took to answer a purge.',
    labelNames: ['edge'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [registry],
  });
  changeLogMetrics(registry, freshness, notices);
  return {
    registry,
    sent: (edge, seconds) => {
      sent.inc({ edge });
      latency.observe({ edge }, seconds);
    },
    failed: (edge) => failed.inc({ edge }),
  };
}

/** Serves `registry` at /metrics on `listen` (HOST:PORT); resolves once listening. */
export function serveMetrics(registry: Registry, listen: string): Promise<Server> {
  const { host, port } = hostPort(listen);
  const server = createServer((request, response) => {
    if (request.url !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Not found: metrics are at /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) =>
        response.writeHead(200, { 'content-type': registry.contentType, 'cache-control': CACHE.none }).end(text),
      (err: unknown) =>
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`${(err as Error).message}\n`),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
