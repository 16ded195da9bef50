// Innocent readers, each on an address of its own, beside an attack (issue 46): `node scripts/fair/reader.ts URL
// SECONDS PROFILES ADDRESS...`. The first ADDRESS asks, for SECONDS, kinds of request, each in a loop of its own, one
// request at a time, as a person's browser and a load balancer would: a cached live page (/p/layla, asked once
// before), a live page nobody asked before (a profile of the lower half of the generated ones, a new one each time), a
// static page, /health, and an MCP call (one every 0.6 s: an agent reading within the rate limit), each on a
// connection of its own kept open (opened before the measuring starts); and a new visitor, once a second, who opens a
// connection of their own for the cached page (what a connection flood costs shows there). Each further ADDRESS asks
// the same but for the costly kinds (a new live page, an MCP call): more answers of the cheap kinds, for a p99 that
// stands on several hundred (one reader's ten a second give about a hundred in ten seconds, of which the p99 is the
// second-worst), with the server's load no heavier than one reader's but for cheap answers. A person gives up on an
// answer after ten seconds: counted as `timeout`. It prints, for each kind, all addresses' answers together: their
// count by status and the latencies' p50 and p99 in ms, as JSON.
import { Agent, request } from 'node:http';
import { pathOf } from '../../src/lib/surface.ts';
import { percentile } from '../bench/numbers.ts';
import { CHEAP_PATHS } from './cheap-paths.ts';

export type ReadKind = 'cached' | 'uncached' | 'static' | 'health' | 'mcp' | 'visitor';

export interface ReadStats {
  n: number;
  statuses: Record<string, number>;
  p50: number;
  p99: number;
  /** Why answers were not 200: each other status with the first words of its body (the sidecar says why it shed). */
  why?: Record<string, string>;
}

const [url, seconds, profilesArg, ...rest] = process.argv.slice(2);
/** The kinds asked: every one unless `kinds=` names some (a kind not asked has no answers: n 0). */
const asked = rest
  .find((arg) => arg.startsWith('kinds='))
  ?.slice('kinds='.length)
  .split(',');
const addresses = rest.filter((arg) => !arg.startsWith('kinds='));
const origin = new URL(url!);
const profiles = Number(profilesArg);

/** The longest a reader waits for an answer before it gives up. */
const PATIENCE_MS = 10_000;

const MCP_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'get_profile', arguments: { page: 'layla' } },
});

/** An answer's status, and for one other than 200 the first words of its body. */
interface Answer {
  status: string;
  why?: string;
}

function ask(agent: Agent, localAddress: string, path: string): Promise<Answer> {
  const mcp = path === pathOf('mcp');
  return new Promise((resolve) => {
    const req = request(
      new URL(path, origin),
      {
        agent,
        localAddress,
        method: mcp ? 'POST' : 'GET',
        headers: mcp
          ? {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2025-11-25',
            }
          : {},
      },
      (res) => {
        let head = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (res.statusCode !== 200 && head.length < 300) head += chunk;
        });
        res.on('end', () =>
          resolve({
            status: String(res.statusCode),
            ...(res.statusCode === 200 ? {} : { why: head.replace(/\s+/g, ' ').slice(0, 200) }),
          }),
        );
        res.on('error', () => resolve({ status: 'error' }));
      },
    );
    const patience = setTimeout(() => {
      resolve({ status: 'timeout' });
      req.destroy();
    }, PATIENCE_MS);
    req.on('close', () => clearTimeout(patience));
    req.on('error', (error) => resolve({ status: 'error', why: error.message }));
    req.end(mcp ? MCP_CALL : undefined);
  });
}

// A start of its own each run (the process's time): pages this reader asked in an earlier run are cached by now.
let next = Date.now() % Math.max(1, Math.floor(profiles / 2));
const paths: Record<ReadKind, () => string> = {
  cached: () => CHEAP_PATHS.cached,
  uncached: () => pathOf('getProfilePage', { page: `bench-${(next++ % Math.floor(profiles / 2)) + 1}` }),
  static: () => CHEAP_PATHS.static,
  health: () => CHEAP_PATHS.health,
  mcp: () => pathOf('mcp'),
  visitor: () => CHEAP_PATHS.visitor,
};
/**
 * Between two requests of a kind, on average: ten a second each (a busy person), an MCP call every 0.6 s (100 a
 * minute, within the default rate limit of 120: at one every half second, two baselines read back to back, as
 * `--attack none` reads them, reached it and were refused once).
 */
const PAUSE_MS: Record<ReadKind, number> = {
  cached: 100,
  uncached: 100,
  static: 100,
  health: 100,
  mcp: 600,
  visitor: 1000,
};

/** One reader's answers of one kind: how long each took, and its status. */
interface Asked {
  times: number[];
  statuses: string[];
  why: Record<string, string>;
}

/**
 * A pause of `ms` on average, anywhere from half to one and a half of it. People do not ask in step: with a fixed
 * pause every reader's loops asked at the same instant, queued behind one another, and one stall of the machine was
 * five of the few hundred answers, the p99.
 */
const about = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms * (0.5 + Math.random())));

async function loop(kind: ReadKind, agent: Agent, address: string, end: number): Promise<Asked> {
  const asked: Asked = { times: [], statuses: [], why: {} };
  // Each loop starts at a moment of its own within its first pause.
  await new Promise((resolve) => setTimeout(resolve, Math.random() * PAUSE_MS[kind]));
  while (Date.now() < end) {
    const started = performance.now();
    // A new visitor's connection is new each time; the others keep theirs.
    const through = kind === 'visitor' ? new Agent({ keepAlive: false }) : agent;
    const answer = await ask(through, address, paths[kind]());
    asked.times.push(performance.now() - started);
    asked.statuses.push(answer.status);
    if (answer.why !== undefined) asked.why[answer.status] ??= answer.why;
    await about(PAUSE_MS[kind]);
  }
  agent.destroy();
  return asked;
}

/** Every reader's answers of one kind, together. */
function stats(all: Asked[]): ReadStats {
  const times = all.flatMap((asked) => asked.times);
  const statuses: Record<string, number> = {};
  for (const status of all.flatMap((asked) => asked.statuses)) statuses[status] = (statuses[status] ?? 0) + 1;
  const why = Object.assign({}, ...all.map((asked) => asked.why)) as Record<string, string>;
  return {
    n: times.length,
    statuses,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    ...(Object.keys(why).length > 0 ? { why } : {}),
  };
}

const kinds: ReadKind[] = ['cached', 'uncached', 'static', 'health', 'mcp', 'visitor'];
/** Asked by the first reader only: each costs the server a render or a database read and more. */
const COSTLY: ReadKind[] = ['uncached', 'mcp'];
const loops = addresses.flatMap((address, n) =>
  kinds
    .filter((kind) => (asked === undefined || asked.includes(kind)) && (n === 0 || !COSTLY.includes(kind)))
    .map((kind) => ({ kind, address })),
);
// Each kind's connection opened (and its first answer read) before the measuring starts.
const agents = loops.map(() => new Agent({ keepAlive: true, maxSockets: 1 }));
await Promise.all(
  loops.map(({ kind, address }, i) => (kind === 'visitor' ? undefined : ask(agents[i]!, address, paths.health()))),
);
const end = Date.now() + Number(seconds) * 1000;
const results = await Promise.all(loops.map(({ kind, address }, i) => loop(kind, agents[i]!, address, end)));
console.log(
  JSON.stringify(
    Object.fromEntries(kinds.map((kind) => [kind, stats(results.filter((_, i) => loops[i]!.kind === kind))])),
  ),
);
process.exit(0);
