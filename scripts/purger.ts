// `npm run purger`: follows the database's change log with the reader the sidecars use (services/freshness.ts) and
// purges, at every edge in PURGE_URLS, the tags of the entities each change names (services/entities.ts), within
// CHANGE_POLL_MS; with CHANGE_NOTIFY_URL (the primary), as soon as its standby has replayed a commit the primary
// announced (issue 65), the poll going on beside it to catch up what a notice missed. At least once: a purge an edge did not take is sent again with back-off, and logged. When it cannot
// know what it missed (its first start, a restart, the log pruned past its position, another database, a sequence
// that went backwards), it purges every live page (`live`). It writes nothing: the same read-only store as the server.
import { loadConfigOrExit, type ServerConfig } from '../sidecar/config.ts';
import { purgerMetrics, serveMetrics, type PurgerMetrics } from '../sidecar/metrics.ts';
import { ALL_LIVE, purgeTags } from '../sidecar/services/entities.ts';
import { followNotices, Freshness, type FreshnessEvent } from '../sidecar/services/freshness.ts';
import { openStore } from '../sidecar/store/open-store.ts';
import { StoreUnavailableError } from '../sidecar/store/store.ts';
import { withoutTrailingSlashes } from '../src/lib/urls.ts';

/** Past this many tags in one go, purging everything live is cheaper than a header that long. */
const MAX_TAGS = 200;
const BACKOFF_MS = { first: 100, max: 5000 };
/** Past the sidecars' poll interval, how long until every sidecar has surely evicted what a change names. */
const SETTLE_MARGIN_MS = 200;

const log = (fields: Record<string, unknown>) =>
  console.log(JSON.stringify({ time: new Date().toISOString(), ...fields }));

/** One edge: the tags still to purge there, sent by one loop that retries with back-off until the edge takes them. */
class EdgeQueue {
  private readonly pending = new Set<string>();
  private running: Promise<void> | undefined;
  private readonly url: string;
  private readonly metrics: PurgerMetrics;

  constructor(url: string, metrics: PurgerMetrics) {
    this.url = url;
    this.metrics = metrics;
  }

  add(tags: string[]): void {
    for (const tag of tags) this.pending.add(tag);
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  private async drain(): Promise<void> {
    let wait = BACKOFF_MS.first;
    while (this.pending.size > 0) {
      const tags = this.pending.size > MAX_TAGS || this.pending.has(ALL_LIVE) ? [ALL_LIVE] : [...this.pending];
      this.pending.clear();
      const started = performance.now();
      try {
        const res = await fetch(this.url + '/', {
          method: 'PURGE',
          headers: { 'xkey-purge': tags.join(' ') },
          signal: AbortSignal.timeout(5000),
        });
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        this.metrics.sent(this.url, (performance.now() - started) / 1000);
        log({
          msg: 'purged',
          edge: this.url,
          tags: tags.length > 10 ? `${tags.length} tags` : tags.join(' '),
          ms: Math.round(performance.now() - started),
        });
        wait = BACKOFF_MS.first;
      } catch (err) {
        // Kept for the next try, with whatever came in meanwhile.
        for (const tag of tags) this.pending.add(tag);
        this.metrics.failed(this.url);
        log({ msg: 'purge failed; retrying', edge: this.url, error: (err as Error).message, retryInMs: wait });
        await new Promise((r) => setTimeout(r, wait));
        wait = Math.min(wait * 2, BACKOFF_MS.max);
      }
    }
  }
}

export async function runPurger(config: ServerConfig): Promise<{ stop: () => Promise<void> }> {
  const store = openStore(config);
  // The purger asks as often as its own loop runs; the loop is the poll interval.
  const freshness = new Freshness(store, 0);
  const notices = config.changeNotifyUrl ? followNotices(freshness, config.changeNotifyUrl, log) : undefined;
  const metrics = purgerMetrics(freshness, notices);
  const metricsServer = config.metricsListen ? await serveMetrics(metrics.registry, config.metricsListen) : undefined;
  const edges = config.purgeUrls.map((url) => new EdgeQueue(withoutTrailingSlashes(url), metrics));
  const pollMs = Math.max(config.changePollMs, 50);
  // The sidecars learn of a change on their own clock (CHANGE_POLL_MS; SQLite's through a file-system event): an edge
  // that refetches a page the moment it is purged may get it from a sidecar that has not evicted it yet, and keep it.
  // So each purge is sent again once every sidecar has surely seen the change: now for speed, then for certainty.
  const settleMs = config.changePollMs + SETTLE_MARGIN_MS;
  freshness.listen((event: FreshnessEvent) => {
    const tags = event.reset ? [ALL_LIVE] : purgeTags(event.changes);
    if (tags.length === 0) return;
    log({ msg: 'changes found', via: event.via, tags: tags.length });
    for (const edge of edges) edge.add(tags);
    setTimeout(() => {
      for (const edge of edges) edge.add(tags);
    }, settleMs).unref();
  });
  let stopped = false;
  let unavailable = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        await freshness.sync();
        if (unavailable) log({ msg: 'database readable again' });
        unavailable = false;
      } catch (err) {
        if (!(err instanceof StoreUnavailableError)) throw err;
        if (!unavailable) log({ msg: 'database unavailable; waiting', error: err.message });
        unavailable = true;
      }
      await new Promise((r) => setTimeout(r, pollMs));
    }
  })();
  log({ msg: 'purger started', edges: config.purgeUrls, pollMs, notices: Boolean(notices) });
  return {
    stop: async () => {
      stopped = true;
      await notices?.stop();
      metricsServer?.close();
      await loop;
      await store.close();
    },
  };
}

if (import.meta.main) {
  const config = loadConfigOrExit();
  if (config.purgeUrls.length === 0) {
    console.error('PURGE_URLS names no edge: set it to the edges to purge, e.g. PURGE_URLS=http://127.0.0.1:6081');
    process.exit(1);
  }
  const purger = await runPurger(config);
  const stop = () => void purger.stop().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
