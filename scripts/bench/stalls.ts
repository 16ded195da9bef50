// What hostile clients cost everyone else (issue 36), part of `npm run bench -- --worst`: each scenario runs against a
// fresh sidecar process (as `npm run serve` runs it) while a prober asks /health one request at a time, and records
// /health's latency (bound: p99 100 ms), the event loop's longest hold (the sidecar's own metric: main-thread CPU
// between two turns), and the resident set before, at its peak during, and after the clients have gone.
//   crawler         forty clients reading never-rendered profiles in random order (a search engine on the sitemap)
//   slow readers    a thousand clients asking a sitemap part without compression and reading nothing
//   idle sockets    fifteen thousand connections that send nothing
//   slot holders    four /mcp requests whose bodies never come, and four whose large answers are never read
//   superlinear     twenty clients sending long runs of one character (slashes, headers, queries, JSON-RPC strings)
//   many addresses  forty clients of ten-message /mcp batches spread over a hundred addresses
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { pathOf } from '../../src/lib/surface.ts';
import { projectRoot } from '../ensure-build.ts';
import { freePort } from '../sidecar-process.ts';
import { scratch, startSidecar } from './harness.ts';
import { wrk, cycleScript } from './wrk.ts';

export interface Probe {
  n: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
}

export interface StallRow {
  scenario: string;
  health: Probe;
  holdMs: number;
  rss: { before: number; peak: number; after: number };
  /** What the scenario's own clients saw, in words. */
  clients: string;
}

const kb = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function probe(url: string, seconds: number, ...paths: string[]): Promise<Probe> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [join(projectRoot, 'scripts/bench/probe.ts'), url, String(seconds), ...paths],
      (error, out) => (error ? reject(error) : resolve(JSON.parse(out) as Probe)),
    ),
  );
}

async function metric(metricsUrl: string, name: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? NaN);
}
const longestHoldMs = async (metricsUrl: string) =>
  (await metric(metricsUrl, 'bio_event_loop_longest_hold_seconds')) * 1000;
/** Connections the sidecar holds open now (a paused client never sees its socket closed: the server says). */
const connections = (metricsUrl: string) => metric(metricsUrl, 'bio_http_connections');

/** Opens `n` connections (a hundred at a time), each writing `head` once, then reading nothing. */
async function sockets(url: string, n: number, head: string): Promise<Socket[]> {
  const { hostname, port } = new URL(url);
  const open: Socket[] = [];
  for (let i = 0; i < n; i += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, n - i) }, () => {
        return new Promise<void>((resolve) => {
          const socket = connect(Number(port), hostname, () => {
            if (head) socket.write(head);
            socket.pause();
            resolve();
          });
          socket.on('error', () => resolve());
          open.push(socket);
        });
      }),
    );
  }
  return open;
}

interface Scenario {
  name: string;
  /** Runs its clients for `seconds` against `url` (the sidecar's metrics at `metricsUrl`); what they saw. */
  run(url: string, seconds: number, profiles: number, metricsUrl: string): Promise<string>;
  /** Also probe an /mcp ping beside /health. */
  mcpProbe?: boolean;
  /** Environment of its own (the default rate limit, where spreading over addresses is the point). */
  env?: Record<string, string>;
}

const LONG = 15_000;
const BOTH = 'application/json, text/event-stream';

const SCENARIOS: Scenario[] = [
  {
    name: 'crawler: forty clients, never-rendered profiles in random order',
    run: async (url, seconds, profiles) => {
      const script = `request = function() return wrk.format("GET", "${pathOf('getProfilePage', { page: 'bench-' })}" .. math.random(1, ${profiles})) end\n`;
      const r = await wrk(url + '/', { connections: 40, threads: 1, seconds, script }, scratch);
      return `${Math.round(r.rps)} req/s, ${r.non2xx3xx} non-2xx (503: shed), ${r.socketErrors} socket errors`;
    },
  },
  {
    name: 'slow readers: a thousand clients ask /sitemaps/2.xml without compression and read nothing',
    run: async (url, seconds, _profiles, metricsUrl) => {
      const host = new URL(url).host;
      const open = await sockets(url, 1000, `GET /sitemaps/2.xml HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      await pause(seconds * 1000);
      const held = await connections(metricsUrl);
      for (const s of open) s.destroy();
      return `${open.length} opened; the sidecar held ${held} connections after ${seconds} s`;
    },
  },
  {
    name: 'idle sockets: fifteen thousand connections that send nothing',
    run: async (url, seconds, _profiles, metricsUrl) => {
      const open = await sockets(url, 15_000, '');
      await pause(1000);
      const accepted = await connections(metricsUrl);
      await pause(Math.max(0, seconds * 1000 - 1000));
      const held = await connections(metricsUrl);
      for (const s of open) s.destroy();
      return `the sidecar held ${accepted} connections after 1 s (MAX_CONNECTIONS), ${held} after ${seconds} s`;
    },
  },
  {
    name: 'slot holders: four /mcp bodies that never come, four large answers never read',
    mcpProbe: true,
    run: async (url, seconds) => {
      const host = new URL(url).host;
      const headOnly = `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: ${BOTH}\r\nContent-Length: 50000\r\n\r\n`;
      const body = JSON.stringify(
        [1, 2].map((id) => ({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'read_page', arguments: { path: '/sitemaps/2.xml' } },
        })),
      );
      const unread = `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: ${BOTH}\r\nMCP-Protocol-Version: 2025-03-26\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      const end = Date.now() + seconds * 1000;
      let opened = 0;
      let held: Socket[] = [];
      // Whenever the server drops one, another takes its place.
      while (Date.now() < end) {
        held = held.filter((s) => !s.destroyed && !s.readableEnded);
        const missing = 8 - held.length;
        if (missing > 0) {
          const half = Math.ceil(missing / 2);
          held.push(...(await sockets(url, half, headOnly)), ...(await sockets(url, missing - half, unread)));
          opened += missing;
        }
        await pause(250);
      }
      for (const s of held) s.destroy();
      return `${opened} holders opened in ${seconds} s (each dropped by the server in turn)`;
    },
  },
  {
    name: 'superlinear inputs: twenty clients sending runs of 15,000 slashes, header and query characters, JSON-RPC strings',
    run: async (url, seconds) => {
      const rpc = (value: string) =>
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'read_page', arguments: { path: value } },
        });
      const script = cycleScript([
        { path: `/${'/'.repeat(LONG)}a/` },
        { path: pathOf('getProfilePage', { page: '-'.repeat(LONG) }) },
        { path: '/p/layla', headers: { Accept: 'a,'.repeat(LONG / 2), 'Accept-Language': '-'.repeat(LONG / 2) } },
        { path: `/en/blog?${'='.repeat(LONG)}` },
        {
          method: 'POST',
          path: '/mcp',
          headers: { 'Content-Type': 'application/json', Accept: BOTH },
          body: rpc('/'.repeat(LONG)),
        },
        {
          method: 'POST',
          path: '/mcp',
          headers: { 'Content-Type': 'application/json', Accept: BOTH },
          body: rpc(`//${'a'.repeat(LONG)}`),
        },
        {
          method: 'POST',
          path: '/mcp',
          headers: { 'Content-Type': 'application/json', Accept: BOTH, Host: `localhost:${'9'.repeat(LONG / 2)}` },
          body: rpc('/'),
        },
      ]);
      const r = await wrk(url + '/', { connections: 20, threads: 1, seconds, script }, scratch);
      return `${Math.round(r.rps)} req/s, ${r.socketErrors} socket errors`;
    },
  },
  {
    name: 'many addresses: forty clients of ten-message /mcp batches from a hundred addresses',
    // The default rate limit: spreading requests over addresses is what this scenario is about.
    env: { MCP_RATE_LIMIT: '120' },
    run: (url, seconds) =>
      new Promise((resolve, reject) =>
        execFile(
          'nice',
          [
            '-n',
            '19',
            process.execPath,
            join(projectRoot, 'scripts/bench/stall-clients.ts'),
            url,
            String(seconds),
            'addresses',
          ],
          (error, out) => {
            if (error) return reject(error);
            const { statuses } = JSON.parse(out) as { statuses: Record<string, number> };
            resolve(
              Object.entries(statuses)
                .map(([status, n]) => `${n} × ${status}`)
                .join(', '),
            );
          },
        ),
      ),
  },
];

/** Every scenario against a fresh sidecar over `env`'s database of `profiles` profiles. */
export async function stallScenarios(
  env: Record<string, string>,
  profiles: number,
  seconds: number,
  log: (line: string) => void,
): Promise<StallRow[]> {
  const rows: StallRow[] = [];
  for (const scenario of SCENARIOS) {
    const metricsPort = await freePort();
    const sidecar = await startSidecar('', { ...env, METRICS_LISTEN: `127.0.0.1:${metricsPort}`, ...scenario.env });
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    try {
      for (const path of ['/health', '/p/layla', '/sitemap.xml']) await (await fetch(sidecar.url + path)).arrayBuffer();
      await pause(500);
      const before = kb(sidecar.pid, 'VmRSS') / 1024;
      await longestHoldMs(metricsUrl);
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, kb(sidecar.pid, 'VmRSS') / 1024)), 250);
      const health = probe(sidecar.url, seconds, '/health');
      const mcp = scenario.mcpProbe ? probe(sidecar.url, seconds, 'mcp:ping') : undefined;
      const clients = await scenario.run(sidecar.url, seconds, profiles, metricsUrl);
      const [healthResult, mcpResult] = await Promise.all([health, mcp]);
      const holdMs = await longestHoldMs(metricsUrl);
      clearInterval(sampler);
      // What the clients held is given back when they go: read again once the send timeout has passed.
      await pause(15_000);
      const after = kb(sidecar.pid, 'VmRSS') / 1024;
      const lived = sidecar.child.exitCode === null;
      const row: StallRow = {
        scenario: scenario.name,
        health: healthResult,
        holdMs,
        rss: { before, peak, after },
        clients: `${clients}${mcpResult ? `; MCP ping p50 ${mcpResult.p50.toFixed(0)} ms, p99 ${mcpResult.p99.toFixed(0)} ms, max ${mcpResult.max.toFixed(0)} ms, ${mcpResult.errors} errors` : ''}${lived ? '' : '; THE SIDECAR EXITED'}`,
      };
      rows.push(row);
      log(
        `  ${scenario.name.split(':')[0]}: /health p99 ${healthResult.p99.toFixed(1)} ms (max ${healthResult.max.toFixed(0)}), loop held ${holdMs.toFixed(1)} ms at most, RSS ${before.toFixed(0)} → ${peak.toFixed(0)} → ${after.toFixed(0)} MB; ${row.clients}`,
      );
    } finally {
      sidecar.child.kill('SIGKILL');
    }
  }
  return rows;
}
