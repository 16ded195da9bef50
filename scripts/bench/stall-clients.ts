// Hostile clients for the stall scenarios (stalls.ts), in a process of their own so that the bench's own work never
// slows the sidecar's measurement: `node scripts/bench/stall-clients.ts URL SECONDS KIND`, printing a JSON summary.
//   addresses   forty clients posting batches of ten tools/call, each request from one of a hundred loopback
//               addresses (127.0.1.1–127.0.1.100), as a client with an IPv6 /64 or a botnet would spread them
import { request } from 'node:http';

const [url, secondsArg, kind] = process.argv.slice(2);
const { hostname, port } = new URL(url!);
const end = Date.now() + Number(secondsArg) * 1000;
const statuses: Record<string, number> = {};

function post(body: string, localAddress: string): Promise<void> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: hostname,
        port,
        path: '/mcp',
        method: 'POST',
        localAddress,
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-03-26',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
          resolve();
        });
      },
    );
    req.on('error', () => {
      statuses.error = (statuses.error ?? 0) + 1;
      resolve();
    });
    req.end(body);
  });
}

if (kind === 'addresses') {
  const batch = JSON.stringify(
    Array.from({ length: 10 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name: 'read_page', arguments: { path: '/p/largest' } },
    })),
  );
  let next = 0;
  await Promise.all(
    Array.from({ length: 40 }, async () => {
      while (Date.now() < end) await post(batch, `127.0.1.${(next++ % 100) + 1}`);
    }),
  );
}
console.log(JSON.stringify({ statuses }));
