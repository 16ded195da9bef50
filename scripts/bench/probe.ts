// A reader beside a load: `node scripts/bench/probe.ts URL SECONDS PATH…` asks each path in turn, one request at a time,
// 10 ms after the previous answer, for SECONDS, and prints its latencies as JSON ({ n, p50, p99, max, errors }). A
// process of its own, so that the bench's own work never delays it; what a load balancer's health check or a reader
// sees while others send the costliest requests (worst.ts). The path `mcp:ping` is an MCP ping (POST /mcp).
import { percentile } from './numbers.ts';

const [url, seconds, ...paths] = process.argv.slice(2);
const times: number[] = [];
let errors = 0;
const end = Date.now() + Number(seconds) * 1000;
for (let i = 0; Date.now() < end; i++) {
  const started = performance.now();
  try {
    const path = paths[i % paths.length]!;
    const res =
      path === 'mcp:ping'
        ? await fetch(`${url}/mcp`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2025-03-26',
            },
            body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
            signal: AbortSignal.timeout(30_000),
          })
        : await fetch(url + path, { signal: AbortSignal.timeout(30_000) });
    await res.arrayBuffer();
    if (res.status !== 200) errors++;
  } catch {
    errors++;
  }
  times.push(performance.now() - started);
  await new Promise((resolve) => setTimeout(resolve, 10));
}
console.log(
  JSON.stringify({
    n: times.length,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    max: Math.max(...times),
    errors,
  }),
);
