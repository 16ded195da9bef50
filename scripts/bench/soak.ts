// `npm run bench -- --soak [--duration S]`: load across every route, 100 connections; fails on any answer other than
// 2xx/3xx and on any socket error. CI runs five seconds of it after the tests.
import { loadConfig } from '../../sidecar/config.ts';
import { ensureBuildSync } from '../ensure-build.ts';
import { baseEnv, demoDatabase, MCP_HEADERS, mcpBody, scratch, startSidecar } from './harness.ts';
import { fmt } from './numbers.ts';
import { cycleScript, wrk } from './wrk.ts';

export async function soakBench(seconds: number): Promise<boolean> {
  const config = loadConfig({});
  ensureBuildSync(config, baseEnv({}));
  // wrk's hundred connections stand for a hundred clients but come from one address, which the per-client limits
  // (MAX_CONNECTIONS_PER_CLIENT and MAX_REQUESTS_PER_CLIENT, 64 each: a hundred requests in progress are 36 × 429)
  // would refuse past 64: those limits have their own tests (and `--fair`); this is a load of every route. So is
  // shedding that one client when the event loop lags past its bound (test/unit/pressure.test.ts): on a machine half
  // as fast, a hundred connections of one client may reach it, and the soak would fail on a 503 that is by design.
  const sidecar = await startSidecar(await demoDatabase('soak.db'), {
    MAX_CONNECTIONS_PER_CLIENT: '1000',
    MAX_REQUESTS_PER_CLIENT: '1000',
    MAX_EVENT_LOOP_DELAY_MS: '1000',
  });
  const md = { accept: 'text/markdown' };
  const script = cycleScript(
    [
      { path: '/' },
      { path: '/ar/blog' },
      { path: '/en/blog/qr-or-nfc-business-card', headers: md },
      { path: '/index.md' },
      { path: '/p/layla' },
      { path: '/p/sam-rivera', headers: md },
      { path: '/c/k7f2q9' },
      { path: '/c/k7f2q9.vcf' },
      { path: '/p/layla/og.png' },
      { path: '/c/k7f2q9/og.png' },
      { path: '/c/r8x1' },
      { path: '/layla' },
      { path: '/blog' },
      { path: '/health' },
      { path: '/sitemap.xml' },
      { path: '/.well-known/api-catalog' },
      { method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: mcpBody('get_profile', { page: 'layla' }) },
      { method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: mcpBody('list_blog_articles', {}) },
    ],
    { reportFailures: true },
  );
  const result = await wrk(sidecar.url + '/', { connections: 100, threads: 2, seconds: seconds, script }, scratch);
  const ok = result.non2xx3xx === 0 && result.socketErrors === 0 && result.requests > 0;
  console.log(
    `soak: ${fmt(result.requests)} requests in ${seconds}s at 100 connections across 18 routes: ${fmt(result.rps)} req/s, p50 ${fmt(result.p50, 2)} ms, p99 ${fmt(result.p99, 2)} ms, ` +
      `${result.non2xx3xx} non-2xx/3xx, ${result.socketErrors} socket errors`,
  );
  for (const failure of result.failures) console.log(`  answered: ${failure}`);
  console.log(ok ? '1 passed, 0 failed' : '0 passed, 1 failed');
  return ok;
}
