// A reader beside a load: `node scripts/bench/probe.ts URL SECONDS PATH…` asks each path in turn, one request at a time,
// 10 ms after the previous answer, for SECONDS, and prints its latencies as JSON ({ n, p50, p99, max, errors }). A
// process of its own, so that the bench's own work never delays it; what a load balancer's health check or a reader
// sees while others send the costliest requests (worst.ts). The path `mcp:ping` is an MCP ping (POST /mcp).
import { Agent, request } from 'node:http';
import { percentile } from './numbers.ts';

const [url, seconds, ...paths] = process.argv.slice(2);
// From an address of its own (127.0.0.2 when the server is on 127.0.0.1): a health check is not one of the clients it
// watches, and the per-client connection limit (MAX_CONNECTIONS_PER_CLIENT) must not count it among them.
const origin = new URL(url!);
const localAddress = origin.hostname === '127.0.0.1' ? '127.0.0.2' : undefined;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const ask = (path: string) =>
  new Promise<number>((resolve, reject) => {
    const ping = path === 'mcp:ping';
    const req = request(
      new URL(ping ? '/mcp' : path, origin),
      {
        agent,
        localAddress,
        method: ping ? 'POST' : 'GET',
        headers: ping
          ? {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2025-03-26',
            }
          : {},
        timeout: 30_000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(ping ? '{"jsonrpc":"2.0","id":1,"method":"ping"}' : undefined);
  });

const times: number[] = [];
let errors = 0;
const end = Date.now() + Number(seconds) * 1000;
for (let i = 0; Date.now() < end; i++) {
  const started = performance.now();
  try {
    if ((await ask(paths[i % paths.length]!)) !== 200) errors++;
  } catch {
    errors++;
  }
  times.push(performance.now() - started);
  await new Promise((resolve) => setTimeout(resolve, 10));
}
agent.destroy();
console.log(
  JSON.stringify({
    n: times.length,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    max: Math.max(...times),
    errors,
  }),
);
