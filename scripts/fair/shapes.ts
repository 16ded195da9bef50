// The deployment shapes the fairness measurements attack (issue 46), each with sidecar processes as production runs
// them (the heap cap and load shedding included): one process alone; nginx (deploy/nginx.conf) over two sidecars in
// front mode; Varnish (deploy/edge.vcl) over one sidecar. Each proxy's address is the sidecars' TRUST_PROXY, as
// docs/operations.md sets it, so that every limit counts the client, not the proxy.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../sidecar/config.ts';
import { securityHeaders } from '../../sidecar/security-headers.ts';
import { buildStyleHashes } from '../../src/lib/build-manifest.ts';
import { runEdge } from '../edge.ts';
import { projectRoot } from '../ensure-build.ts';
import { FRONT_LIMITS, runFront, runNginx } from '../front-config.ts';
import { firewallRules, loadFirewall, removeFirewall } from '../front-firewall.ts';
import { freePort, spawnSidecar, type SidecarProcess } from '../sidecar-process.ts';

export type ShapeName = 'alone' | 'front' | 'edge';

export interface Shape {
  /** Where clients send their requests. */
  url: string;
  sidecars: SidecarProcess[];
  /** The heap each sidecar uses now, in bytes (its metrics' nodejs_heap_size_used_bytes). */
  heapUsed(): Promise<number[]>;
  /** Every sidecar still running. */
  alive(): boolean;
  stop(): Promise<void>;
}

/** The address the front and the edge reach the sidecars from. */
const PROXY = '127.0.0.1';

/**
 * Stopped at once. nginx and Varnish with SIGTERM, their fast shutdown, which ends their workers and children with
 * them: killed with SIGKILL, nginx's master left its worker running, orphaned, holding its port after every run.
 */
const stopped = (child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL') =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });

/** `name` over the database `env` names (DATABASE_PATH or DATABASE_URL), with `extra` for every sidecar. */
export async function startShape(
  name: ShapeName,
  env: Record<string, string>,
  extra: Record<string, string> = {},
): Promise<Shape> {
  const dist = join(projectRoot, 'dist');
  const config = loadConfig({ BASE_URL: 'http://localhost:8080', ...env });
  const metrics: string[] = [];
  const sidecar = async (more: Record<string, string>) => {
    const listen = `127.0.0.1:${await freePort()}`;
    metrics.push(`http://${listen}/metrics`);
    return spawnSidecar(
      { ...env, SHUTDOWN_DRAIN_MS: '0', METRICS_LISTEN: listen, ...more, ...extra },
      { discardOutput: true },
    );
  };
  const prefix = mkdtempSync(join(tmpdir(), 'bio-fair-'));
  const shape = (url: string, sidecars: SidecarProcess[], proxy?: ChildProcess, after = () => {}): Shape => ({
    url,
    sidecars,
    heapUsed: () =>
      Promise.all(
        metrics.map(async (url) =>
          Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(await (await fetch(url)).text())?.[1] ?? NaN),
        ),
      ),
    alive: () => sidecars.every((s) => s.child.exitCode === null && s.child.signalCode === null),
    stop: async () => {
      await Promise.all([...sidecars.map((s) => stopped(s.child)), ...(proxy ? [stopped(proxy, 'SIGTERM')] : [])]);
      after();
      rmSync(prefix, { recursive: true, force: true });
    },
  });
  if (name === 'alone') {
    const one = await sidecar({});
    return shape(one.url, [one]);
  }
  if (name === 'front') {
    const two = [
      await sidecar({ STATIC_FILES: 'front', TRUST_PROXY: PROXY }),
      await sidecar({ STATIC_FILES: 'front', TRUST_PROXY: PROXY }),
    ];
    const port = await freePort();
    const { url, nginx } = await runFront({ config, sidecars: two.map((s) => s.address), prefix, port });
    // And its firewall, as the guide deploys it (docs/operations.md, shape 2): for this port alone.
    loadFirewall(firewallRules({ port, limits: FRONT_LIMITS }));
    return shape(url, two, nginx, () => removeFirewall(port));
  }
  const one = await sidecar({ TRUST_PROXY: PROXY });
  const edgePort = await freePort();
  const { url, varnish } = await runEdge({
    listen: `127.0.0.1:${edgePort}`,
    backend: one.address,
    dist: join(dist, 'client'),
    headers: securityHeaders(config, buildStyleHashes(dist)),
    prefix,
  });
  // And the same firewall before it, as the guide deploys the edge (docs/operations.md, "The edge").
  loadFirewall(firewallRules({ port: edgePort, limits: FRONT_LIMITS }));
  return shape(url, [one], varnish, () => removeFirewall(edgePort));
}

/**
 * The control: nginx, one worker, answering every request `200` with a few bytes of its own. It does none of an
 * attack's work, so what a reader of it gets while a shape beside it is attacked is the machine's own share: the
 * attacker's sending and the shape's work on cores the reader shares (on two cores, 2-7x a baseline p99 of about a
 * millisecond, measured with the attacks here).
 */
export async function startControl(): Promise<{ url: string; stop: () => Promise<void> }> {
  const prefix = mkdtempSync(join(tmpdir(), 'bio-control-'));
  const url = `http://127.0.0.1:${await freePort()}`;
  const temporary = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `${k}_temp_path ${prefix}/tmp;`);
  const nginx = await runNginx(
    prefix,
    [
      'worker_processes 1;',
      `pid ${prefix}/nginx.pid;`,
      `events { worker_connections 1024; }`,
      `http { access_log off; ${temporary.join(' ')}`,
      `  server { listen ${new URL(url).host}; location / { default_type text/html; return 200 "<!doctype html><title>ok</title>\\n"; } }`,
      '}',
    ].join('\n'),
    url,
  );
  return {
    url,
    stop: async () => {
      await stopped(nginx, 'SIGTERM');
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}
