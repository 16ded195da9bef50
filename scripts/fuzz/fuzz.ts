// The project's own adversary: property-based (fast-check) requests drawn by requests.ts, sent to a real server over a
// real socket, each answer held to what must always be true: no 5xx but a declared 503, no redirect to itself, the
// security headers on every page answer, every answer what the served OpenAPI document declares, and the server up
// all along with its memory flat. The test suite runs a bounded number of cases with a fixed seed; `npm run bench --
// --fuzz` runs many more. A failure names its seed and the smallest request that fails.
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { LANGS } from '../../src/lib/surface.ts';
import { OpenApiAnswers, type Answer } from './openapi-answers.ts';
import { requestArbitrary, type FuzzRequest, type Known } from './requests.ts';

export interface FuzzTarget {
  /** http://host:port of the server. */
  url: string;
  /** The server's Prometheus metrics (for its heap), when it serves them. */
  metricsUrl?: string;
  /** What the server printed if it has exited, else undefined. */
  exited: () => string | undefined;
  /** Values that exist, by parameter name, besides what the server's own documents list. */
  values?: Record<string, string[]>;
}

/**
 * The longest one request may hold the event loop, in main-thread CPU time (issue 36): a few milliseconds of a
 * request's own work, and a garbage collection of the capped heap beside it. The tests and the long bench both hold
 * every answer to it.
 */
export const LOOP_HOLD_LIMIT_MS = 50;

export interface FuzzOptions {
  numRuns: number;
  seed: number;
  /** How much the heap may grow between the warm-up and the end, in bytes. */
  heapGrowthLimit?: number;
  /**
   * The longest one request may hold the server's event loop (main-thread CPU milliseconds, read from its metrics
   * after each request); undefined: not checked. Every other client waits while one request holds it.
   */
  loopHoldLimitMs?: number;
  /** Go on past a request that fails, listing what each failing request found (a survey), instead of stopping. */
  keepGoing?: boolean;
}

export interface FuzzReport {
  seed: number;
  runs: number;
  /** Answers by status. */
  statuses: Record<string, number>;
  /** The heap's lowest reading in the first and the last quarter of the run (bytes), when metrics are served. */
  heap?: { early: number; late: number };
  /** The failure fast-check reported (seed, path, the smallest failing request), if any. */
  failure?: string;
  /** With keepGoing: every failing request and what it found (fifty at most). */
  problems?: string[];
  /** The requests that held the event loop longest (ms, longest first, ten at most), when metrics are served. */
  longestHolds?: { ms: number; request: string }[];
}

/**
 * The fuzzer's requests come from many clients, as a server's do: each fresh connection from the next of 250 loopback
 * addresses (when the server is on loopback), so that no one client's share (connections a second, requests in
 * progress) is what a run measures. Sharing out is the fairness suite's (test/faults/fair.test.ts).
 */
let nextAddress = 0;
const clientAddress = (hostname: string) =>
  hostname === '127.0.0.1' ? `127.0.10.${(nextAddress++ % 250) + 1}` : undefined;

/** Sends one request over a fresh connection, slowly when it asks to, and reads the whole answer. */
export function send(url: string, req: FuzzRequest, timeoutMs = 20_000): Promise<Answer & { raw: Buffer }> {
  const { hostname, port } = new URL(url);
  const localAddress = clientAddress(hostname);
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers };
    const http = request(
      {
        host: hostname,
        port,
        method: req.method,
        path: req.target,
        headers,
        agent: false,
        ...(localAddress ? { localAddress } : {}),
        setHost: !('host' in headers),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const coding = String(res.headers['content-encoding'] ?? '');
          let body = raw;
          try {
            if (raw.length === 0) body = raw;
            else if (coding === 'gzip') body = gunzipSync(raw);
            else if (coding === 'br') body = brotliDecompressSync(raw);
          } catch (err) {
            reject(new Error(`a ${coding} body that does not decompress: ${(err as Error).message}`));
            return;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: body.toString('utf8'), raw });
        });
        res.on('error', reject);
      },
    );
    http.setTimeout(timeoutMs, () => http.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    http.on('error', reject);
    const body = req.body === undefined ? undefined : Buffer.from(req.body);
    if (!body || req.pieces <= 1) {
      http.end(body);
      return;
    }
    const size = Math.ceil(body.length / req.pieces);
    let at = 0;
    const next = () => {
      const piece = body.subarray(at, at + size);
      at += size;
      if (at >= body.length) http.end(piece);
      else {
        http.write(piece);
        setTimeout(next, 15);
      }
    };
    next();
  });
}

/** The path of a request target, decoded, for matching the document's templates (undefined when it does not decode). */
function decodedPath(target: string): string | undefined {
  const path = target.replace(/^https?:\/\/[^/]*/i, '').split('?')[0] ?? '/';
  try {
    return decodeURIComponent(path || '/');
  } catch {
    return undefined;
  }
}

/** Everything wrong with `answer` to `req`, in words. */
export function problemsOf(
  req: FuzzRequest,
  answer: Answer & { raw: Buffer },
  openApi: OpenApiAnswers,
  baseUrl: string,
): string[] {
  const problems: string[] = [];
  const path = decodedPath(req.target);
  const operation = path === undefined ? undefined : openApi.operationOf(req.method, path);
  if (answer.status >= 500 && !(answer.status === 503 && operation)) problems.push(`answered ${answer.status}`);
  if (answer.status >= 300 && answer.status < 400 && answer.status !== 304) {
    const location = String(answer.headers.location ?? '');
    if (!/^https?:\/\//.test(location)) problems.push(`a redirect whose Location is not absolute: "${location}"`);
    else if (location.startsWith(`${baseUrl}/`) || location === baseUrl) {
      const to = location.slice(baseUrl.length) || '/';
      const from = req.target.replace(/^https?:\/\/[^/]*/i, '') || '/';
      if (to === from) problems.push(`a redirect to itself (${location})`);
    }
  }
  const page = answer.status < 400 || answer.status === 404;
  if (page && req.target !== '/mcp' && !answer.headers['content-security-policy'])
    problems.push('no Content-Security-Policy');
  if (req.method === 'HEAD' && answer.raw.length > 0)
    problems.push(`a HEAD answer with a body of ${answer.raw.length} bytes`);
  if (path !== undefined) problems.push(...openApi.problems(req.method, path, answer));
  return problems;
}

/** Values an import file holds, by the route parameter that names them (and a few bulk profiles the benches make). */
export function valuesOf(data: unknown): Record<string, string[]> {
  const d = data as { profiles?: { slug: string }[]; cards?: { cardId: string }[]; aliases?: { alias: string }[] };
  return {
    page: [...(d.profiles ?? []).map((p) => p.slug), 'bench-1', 'bench-2', 'bench-59999'],
    cardId: (d.cards ?? []).map((c) => c.cardId),
    alias: [...(d.aliases ?? []).map((a) => a.alias), 'bench-3'],
  };
}

/** Values that exist, read from the server's own documents: article slugs and topics, agent skills. */
async function knownValues(url: string, extra: Record<string, string[]>): Promise<Record<string, string[]>> {
  const articles = (await (await fetch(`${url}/blog/articles.json`)).json()) as { slug: string; topics: string[] }[];
  const skills = (await (await fetch(`${url}/.well-known/agent-skills/index.json`)).json()) as {
    skills: { name: string }[];
  };
  return {
    slug: [...new Set(articles.map((a) => a.slug))].slice(0, 20),
    topic: [...new Set(articles.flatMap((a) => a.topics))],
    skill: skills.skills.map((s) => s.name),
    lang: [...LANGS],
    n: ['1', '2', '3', '4'],
    ...extra,
  };
}

async function metric(metricsUrl: string, name: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.slice(name.length + 1) ?? NaN);
}
const heapUsed = (metricsUrl: string) => metric(metricsUrl, 'nodejs_heap_size_used_bytes');
/** The longest the server's event loop was held since the last read, in ms (each read starts a new window). */
export const longestLoopHoldMs = async (metricsUrl: string) =>
  (await metric(metricsUrl, 'bio_event_loop_longest_hold_seconds')) * 1000;

export async function fuzz(target: FuzzTarget, options: FuzzOptions): Promise<FuzzReport> {
  const openApi = new OpenApiAnswers(await (await fetch(`${target.url}/openapi.json`)).json());
  const baseUrl = new URL((await (await fetch(`${target.url}/openapi.json`)).json()).servers[0].url).origin;
  const known: Known = {
    host: new URL(target.url).host,
    baseUrl,
    values: await knownValues(target.url, target.values ?? {}),
  };
  const statuses: Record<string, number> = {};
  const early: number[] = [];
  const late: number[] = [];
  let runs = 0;
  const longestHolds: { ms: number; request: string }[] = [];
  const found: string[] = [];
  const property = fc.asyncProperty(requestArbitrary(known), async (req) => {
    // Each request's window starts clean: what came before is not counted against it.
    if (target.metricsUrl) await longestLoopHoldMs(target.metricsUrl);
    let answer: Awaited<ReturnType<typeof send>>;
    try {
      answer = await send(target.url, req);
    } catch (err) {
      throw new Error(
        `${req.method} ${shorten(req.target)}: no answer (${(err as Error).message})${describe(target)}`,
        { cause: err },
      );
    }
    runs++;
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    const problems = problemsOf(req, answer, openApi, baseUrl);
    if (target.metricsUrl) {
      const held = await longestLoopHoldMs(target.metricsUrl);
      longestHolds.push({
        ms: Math.round(held * 10) / 10,
        request: `${req.method} ${shorten(req.target)}${req.body ? ` ${shorten(req.body)}` : ''}`,
      });
      longestHolds.sort((a, b) => b.ms - a.ms).splice(10);
      if (options.loopHoldLimitMs !== undefined && held > options.loopHoldLimitMs)
        problems.push(`held the event loop ${held.toFixed(1)} ms (bound: ${options.loopHoldLimitMs} ms)`);
    }
    const gone = target.exited();
    if (gone !== undefined) problems.push(`the server exited: ${gone.slice(-600)}`);
    if (problems.length > 0 && options.keepGoing) {
      if (found.length < 50)
        found.push(`${req.method} ${shorten(req.target)} → ${answer.status}: ${problems.join('; ')}`);
    } else if (problems.length > 0)
      throw new Error(
        `${req.method} ${shorten(req.target)} → ${answer.status}:\n  - ${problems.join('\n  - ')}\n  answer: ${answer.body.slice(0, 300)}`,
      );
    if (target.metricsUrl && runs % 25 === 0) {
      const quarter = options.numRuns / 4;
      if (runs > quarter / 2 && runs <= quarter) early.push(await heapUsed(target.metricsUrl));
      if (runs > options.numRuns - quarter) late.push(await heapUsed(target.metricsUrl));
    }
  });
  const result = await fc.check(property, {
    numRuns: options.numRuns,
    seed: options.seed,
    markInterruptAsFailure: true,
    includeErrorInReport: true,
  });
  const report: FuzzReport = {
    seed: options.seed,
    runs,
    statuses,
    ...(longestHolds.length ? { longestHolds } : {}),
    ...(options.keepGoing ? { problems: found } : {}),
  };
  if (result.failed) report.failure = readable(fc.defaultReportMessage(result) ?? `failed with seed ${options.seed}`);
  if (early.length > 0 && late.length > 0) {
    report.heap = { early: Math.min(...early), late: Math.min(...late) };
    const limit = options.heapGrowthLimit ?? 32 * 1024 * 1024;
    if (!report.failure && report.heap.late - report.heap.early > limit) {
      report.failure = `memory did not stay flat (seed ${options.seed}): the heap's low point grew from ${mb(report.heap.early)} to ${mb(report.heap.late)} MB over ${runs} requests`;
    }
  }
  return report;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** A report with every run of one character a hundred long or more written as the character and its count. */
function readable(text: string): string {
  // One character and the same again: linear, each run read once.
  return text.replace(/([\s\S])\1{99,}/g, (run, unit: string) => `${unit}×${run.length}`);
}

/** A long target, as a report can show it: its start, its length and its end. */
function shorten(target: string): string {
  return target.length <= 120 ? target : `${target.slice(0, 60)}…(${target.length} characters)…${target.slice(-40)}`;
}

function describe(target: FuzzTarget): string {
  const gone = target.exited();
  return gone === undefined ? '' : `; the server exited: ${gone.slice(-600)}`;
}
