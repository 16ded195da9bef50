// `npm run bench -- --mcp`: tools/call on both protocol generations against a bare Fastify route answering the same
// bytes, and where the time of one call goes in process. Writes docs/benchmarks/mcp.md.
import { writeRecord } from './records.ts';
import { cpus } from 'node:os';
import { loadConfig } from '../../sidecar/config.ts';
import { ensureBuildSync } from '../ensure-build.ts';
import {
  baseEnv,
  demoDatabase,
  MCP_HEADERS,
  mcpBody,
  modernCall,
  scratch,
  startBaseline,
  startSidecar,
} from './harness.ts';
import { mcpInProcess } from './mcp-in-process.ts';
import { fmt } from './numbers.ts';
import { cycleScript, wrk } from './wrk.ts';

/**
 * `npm run bench -- --mcp`: tools/call on both protocol generations against a bare Fastify route answering the same
 * bytes, at 50 connections (throughput) and 10 (latency). Writes docs/benchmarks/mcp.md.
 */
export async function mcpBench(seconds: number): Promise<void> {
  ensureBuildSync(loadConfig({}), baseEnv({}));
  const db = await demoDatabase('mcp.db');
  const sidecar = await startSidecar(db);
  const calls = [
    { name: 'get_profile', args: { page: 'layla' } },
    { name: 'list_blog_articles', args: {} },
  ];
  const requests = calls.flatMap((c) => [
    { label: `${c.name}, 2025-11-25`, headers: MCP_HEADERS as Record<string, string>, body: mcpBody(c.name, c.args) },
    { label: `${c.name}, 2026-07-28`, ...modernCall(c.name, c.args) },
  ]);
  const routes: Parameters<typeof startBaseline>[0] = {};
  for (const [i, r] of requests.entries()) {
    const res = await fetch(sidecar.url + '/mcp', { method: 'POST', headers: r.headers, body: r.body });
    const headers = Object.fromEntries(
      [...res.headers].filter(
        ([name]) => !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name),
      ),
    );
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200 || body.includes('"error"'))
      throw new Error(`${r.label}: ${res.status} ${body.toString('utf8').slice(0, 300)}`);
    routes[`/same-${i}`] = { type: res.headers.get('content-type') ?? '', body, headers, method: 'POST' };
  }
  const baseline = await startBaseline(routes);
  const measure = async (
    url: string,
    path: string,
    r: { headers: Record<string, string>; body: string },
    connections: number,
  ) => {
    const script = cycleScript([{ method: 'POST', path, headers: r.headers, body: r.body }]);
    await wrk(url, { connections, seconds: 2, script }, scratch);
    return wrk(url, { connections, seconds: seconds, script }, scratch);
  };
  const lines = [
    '# Benchmarks: MCP tools/call, both protocol generations',
    '',
    `Written by \`npm run bench -- --mcp\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores, ${seconds} s per run after a 2 s warm-up, Node ${process.versions.node}. The baseline is a bare Fastify route answering the same bytes (body and headers).`,
    '',
    '| tools/call | req/s at 50 connections | bare route req/s | ratio (goal ≥ 0.25) | p50 / p99 ms at 10 connections (goal p99 ≤ 20) |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const [i, r] of requests.entries()) {
    const ours = await measure(sidecar.url + '/', '/mcp', r, 50);
    const bare = await measure(baseline + '/', `/same-${i}`, { headers: r.headers, body: '{}' }, 50);
    const latency = await measure(sidecar.url + '/', '/mcp', r, 10);
    lines.push(
      `| ${r.label} | ${fmt(ours.rps)} | ${fmt(bare.rps)} | ${fmt(ours.rps / bare.rps, 2)}× | ${fmt(latency.p50, 1)} / ${fmt(latency.p99, 1)} |`,
    );
    console.log(lines.at(-1));
  }
  const inProcess = await mcpInProcess(db, requests[0]!, requests[1]!);
  lines.push(
    '',
    '## Where the time goes',
    '',
    'One tools/call get_profile without HTTP (no sockets, no Fastify), the pieces of each leg called in a loop in the bench process (median of five rounds of 4,000 calls). For scale: at the ratio goal, a whole request (HTTP included) may take four times what the bare route takes, about 130 µs on this machine.',
    '',
    '| in process | µs per call |',
    '|---|---:|',
    ...inProcess.map(([label, us]) => `| ${label} | ${fmt(us, 1)} |`),
  );
  lines.push('');
  writeRecord('mcp.md', lines.join('\n'));
  console.log(lines.join('\n'));
}
