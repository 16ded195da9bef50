// `npm run bench -- --worst [--quick] [--duration S]`: the costliest request an anonymous client can send to each route
// and each MCP method, each sent alone to a fresh sidecar process as production runs it (`npm run serve`'s heap cap),
// with 100,000 and 1,000,000 profiles (--quick: 100,000 only), on SQLite and on a PostgreSQL standby: the CPU time it
// costs (every thread of the process, from /proc/PID/task/*/schedstat) and the memory it holds at its peak (the rise of
// the resident set's high-water mark, reset before it with /proc/PID/clear_refs). Then forty clients sending a mix of
// the costliest for a minute (--duration) while two more ask /health and a cached profile: their p99, and whether the
// process lived through it; the longest each request held the event loop, cold and at its input ×1, ×2 and ×4; and the
// hostile clients of stalls.ts (a crawler, slow readers, idle sockets, slot holders, superlinear inputs, many
// addresses), each with /health's p99 and the resident set during and after. Writes docs/benchmarks/worst.md.
import { execFile } from 'node:child_process';
import { RECORDS, writeRecord } from './records.ts';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../sidecar/config.ts';
import { pathOf, DEFAULT_LANG, LANGS, MCP_BODY_LIMIT } from '../../src/lib/surface.ts';
import { imageFile } from '../../src/lib/image-files.ts';
import { imageIdOf } from '../../sidecar/store/image-intake.ts';
import { ensureBuildSync, projectRoot } from '../ensure-build.ts';
import { postgresBackend, sqliteBackend, type Backend } from './data-tier.ts';
import { freePort } from '../sidecar-process.ts';
import { baseEnv, MODERN, scratch, startSidecar } from './harness.ts';
import { stallScenarios, type StallRow } from './stalls.ts';
import { fmt } from './numbers.ts';
import { wrk, type WrkResult } from './wrk.ts';

const BOTH = 'application/json, text/event-stream';
const LEGACY = { 'content-type': 'application/json', accept: BOTH, 'mcp-protocol-version': '2025-03-26' };

/** A language other than the default (Arabic here: two bytes a letter, the larger pages). */
const OTHER_LANG = LANGS.find((lang) => lang !== DEFAULT_LANG) ?? DEFAULT_LANG;

/** The largest profile's avatar, as the import names it. */
const LARGEST_AVATAR = imageIdOf(readFileSync(join(projectRoot, 'scripts/demo-images/sam-rivera.jpg')));

/**
 * Opening hours that cost the most to read of those tried: months, weeks, nth weekdays,
 * Easter, a date range, sun times; 227 characters of the 255 an import allows.
 */
const LONGEST_HOURS =
  'Jan-Mar Mo-Fr 08:00-12:00,13:00-17:30; Apr-Oct Mo-Sa 07:00-13:00,14:00-22:00; Nov-Dec We-Su 10:00-18:00; week 1-53/2 Fr 09:00-11:00; Mo[1] 10:00-12:00; easter off; 2026 Dec 24-2027 Jan 02 off; sunrise-sunset; Sa[-1] 06:00-07:00';

/** A theme whose accent reads on neither scheme's ground as given, over a gradient: every judgement of theme.ts runs. */
const LARGEST_THEME = {
  accent: '#ffcc00',
  background: { gradient: ['#fde2f3', '#e0c3fc'] },
  buttons: { fill: 'soft', shape: 'pill' },
};

/** The largest profile and card an import allows (OWNER_LISTS, the text bounds), beside the bulk ones. */
export const LARGEST = {
  profiles: [
    {
      slug: 'largest',
      name: 'ا'.repeat(80),
      bio: 'ب'.repeat(500),
      lang: OTHER_LANG,
      plan: 'paid',
      // Named relative to the demo data's file, as the bench imports it: a picture to draw on its link preview.
      avatarUrl: 'demo-images/sam-rivera.jpg',
      // Each link in a section of its own (the most sections a profile can have) with a thumbnail (issue 49).
      links: Array.from({ length: 100 }, (_, i) => ({
        title: `${'ت'.repeat(90)} ${i}`,
        url: `https://example.com/${'p'.repeat(1900)}/${i}`,
        section: `${'ق'.repeat(55)} ${i}`,
        thumbnailUrl: 'demo-images/nakheel-menu.png',
      })),
      socials: Array.from({ length: 20 }, (_, i) => ({
        network: 'instagram',
        url: `https://instagram.com/${'s'.repeat(1900)}${i}`,
      })),
      // A place with the longest address and a long rule of many kinds of selector (issue 49): read at every render.
      place: {
        address: 'ع'.repeat(300),
        geo: { lat: 24.7, lon: 46.7 },
        openingHours: LONGEST_HOURS,
        timeZone: 'Asia/Riyadh',
      },
      // The costliest theme to judge (issue 49): a gradient whose ends and accent all need moving in both schemes.
      theme: LARGEST_THEME,
      // Translated whole, each text the longest, each link's title under its URL (issue 48).
      translations: {
        [DEFAULT_LANG]: {
          name: 'W'.repeat(80),
          bio: 'w '.repeat(250),
          links: Object.fromEntries(
            Array.from({ length: 100 }, (_, i) => [
              `https://example.com/${'p'.repeat(1900)}/${i}`,
              `${'T'.repeat(90)} ${i}`,
            ]),
          ),
          sections: Object.fromEntries(
            Array.from({ length: 100 }, (_, i) => [`${'ق'.repeat(55)} ${i}`, `${'S'.repeat(55)} ${i}`]),
          ),
        },
      },
    },
  ],
  cards: [
    {
      cardId: 'largest-card',
      mode: 'page',
      lang: OTHER_LANG,
      name: 'ك'.repeat(80),
      title: 'م'.repeat(100),
      organization: 'ن'.repeat(100),
      phones: Array.from({ length: 5 }, (_, i) => ({ number: `+96650000000${i}`, type: 'work' })),
      emails: Array.from({ length: 5 }, (_, i) => ({ address: `${'e'.repeat(60)}${i}@example.com`, type: 'work' })),
      website: `https://example.com/${'w'.repeat(1900)}`,
      address: 'ع'.repeat(300),
      photoUrl: 'demo-images/layla.jpg',
      profile: 'largest',
      place: { geo: { lat: 24.7, lon: 46.7 }, openingHours: LONGEST_HOURS, timeZone: 'Asia/Riyadh' },
      theme: LARGEST_THEME,
      translations: {
        [DEFAULT_LANG]: {
          name: 'K'.repeat(80),
          title: 'M'.repeat(100),
          organization: 'N'.repeat(100),
          address: 'A'.repeat(300),
        },
      },
    },
  ],
  aliases: [{ alias: 'largest-alias', page: 'largest' }],
};

interface Request {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Case {
  /** The route or MCP method. */
  route: string;
  /** Its costliest request, in words. */
  what: string;
  request: Request;
  /** Sent this many times at once (a crowd asking one thing). */
  crowd?: number;
  /**
   * The request with its input `factor` times as large (1, 2, 4), when its cost could grow with its input: the loop's
   * hold at each shows a cost that grows faster than the input (a backtracking pattern, a loop over a loop).
   */
  scaled?: (factor: number) => Request;
}

const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
const mcp = (body: unknown, headers: Record<string, string> = LEGACY): Request => ({
  method: 'POST',
  path: '/mcp',
  headers,
  body: JSON.stringify(body),
});
const modern = (method: string, params: Record<string, unknown>, name?: string): Request =>
  mcp(
    {
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} },
      },
    },
    {
      'content-type': 'application/json',
      accept: BOTH,
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    },
  );
const batch = (n: number, name: string, args: Record<string, unknown>) =>
  mcp(Array.from({ length: n }, (_, i) => call(i + 1, name, args)));

function cases(): Case[] {
  const part = '/sitemaps/2.xml';
  return [
    {
      route: 'GET /p/{page}',
      what: 'the largest profile an import allows, not yet rendered (100 links, 20 socials)',
      request: { path: '/p/largest' },
    },
    {
      route: 'GET /p/{page} (Markdown)',
      what: 'its Markdown twin, not yet converted',
      request: { path: '/p/largest', headers: { accept: 'text/markdown' } },
    },
    {
      route: 'GET /p/{page}/{lang}',
      what: 'its version in its other language, not yet rendered (every text translated, the longest)',
      request: { path: pathOf('getProfilePageInLanguage', { page: 'largest', lang: DEFAULT_LANG }) },
    },
    {
      route: 'GET /p/{page} (Accept-Language)',
      what: 'the printed address, an Accept-Language of 3,500 characters preferring the other language',
      request: { path: '/p/largest', headers: { 'accept-language': 'fr;q=0.1,'.repeat(389) + 'en' } },
      scaled: (f) => ({
        path: '/p/largest',
        headers: { 'accept-language': 'fr;q=0.1,'.repeat(389 * f) + 'en' },
      }),
    },
    { route: 'GET /p/{page}/qr.svg', what: 'its QR code, not yet drawn', request: { path: '/p/largest/qr.svg' } },
    {
      route: 'GET /p/{page}/{lang}/og.png',
      what: 'the link preview picture of its other language, not yet drawn',
      request: { path: pathOf('getProfileOgImageInLanguage', { page: 'largest', lang: DEFAULT_LANG }) },
    },
    {
      route: 'GET /p/{page}/og.png',
      what: 'its link preview picture, not yet drawn (its name the longest an import allows, with its avatar)',
      request: { path: '/p/largest/og.png' },
    },
    { route: 'GET /c/{cardId}', what: 'the largest card, not yet rendered', request: { path: '/c/largest-card' } },
    {
      route: 'GET /c/{cardId}/{lang}',
      what: 'its version in its other language, not yet rendered',
      request: { path: pathOf('getDigitalCardInLanguage', { cardId: 'largest-card', lang: DEFAULT_LANG }) },
    },
    {
      route: 'GET /c/{cardId}.vcf',
      what: 'its vCard, its photo inline, both languages',
      request: { path: '/c/largest-card.vcf' },
    },
    {
      route: 'GET /images/{image}',
      what: "the largest file of an owner's image (384-pixel JPEG), read from the database",
      request: { path: pathOf('getImage', { image: imageFile(LARGEST_AVATAR, 384, 'jpg') }) },
    },
    {
      route: 'GET /c/{cardId}/og.png',
      what: 'its link preview picture, not yet drawn',
      request: { path: '/c/largest-card/og.png' },
    },
    {
      route: 'GET /c/{cardId}/contact-qr.svg',
      what: 'its offline contact code (too full: the short version)',
      request: { path: '/c/largest-card/contact-qr.svg' },
    },
    { route: 'GET /{alias}', what: 'an alias not yet looked up', request: { path: '/largest-alias' } },
    {
      route: 'GET /sitemap.xml',
      what: 'the index, not yet built (counts and every 50,000th key)',
      request: { path: '/sitemap.xml', headers: { 'accept-encoding': 'gzip' } },
    },
    {
      route: 'GET /sitemaps/{n}.xml',
      what: 'a part of 50,000 profiles, not yet built, sent as it is (decompressed as sent)',
      request: { path: part },
    },
    {
      route: 'GET /sitemaps/{n}.xml (×16)',
      what: 'sixteen clients at once asking for that part, not yet built',
      request: { path: part, headers: { 'accept-encoding': 'gzip' } },
      crowd: 16,
    },
    { route: 'GET /health', what: 'health', request: { path: '/health' } },
    {
      route: 'GET (404)',
      what: 'a path of 2,000 characters that names nothing',
      request: { path: pathOf('getProfilePage', { page: 'a'.repeat(2000) }) },
      scaled: (f) => ({ path: pathOf('getProfilePage', { page: 'a'.repeat(2000 * f) }) }),
    },
    {
      route: 'GET (301)',
      what: 'a path of 3,500 slashes before `a/` (a trailing slash to redirect)',
      request: { path: `/${'/'.repeat(3500)}a/` },
      scaled: (f) => ({ path: `/${'/'.repeat(3500 * f)}a/` }),
    },
    {
      route: 'GET /p/{page} (Accept)',
      what: 'an Accept header of 3,500 characters (media ranges, negotiated)',
      request: { path: '/p/layla', headers: { accept: 'text/html;q=0.1,'.repeat(219) } },
      scaled: (f) => ({ path: '/p/layla', headers: { accept: 'text/html;q=0.1,'.repeat(219 * f) } }),
    },
    {
      route: 'POST /mcp initialize',
      what: 'initialize (a fresh server)',
      request: mcp({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'b', version: '1' } },
      }),
    },
    {
      route: 'POST /mcp tools/list',
      what: 'tools/list',
      request: mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    },
    {
      route: 'POST /mcp resources/read',
      what: 'the largest resource (OpenAPI)',
      request: mcp({
        jsonrpc: '2.0',
        id: 1,
        method: 'resources/read',
        params: { uri: 'http://localhost:8080/openapi.json' },
      }),
    },
    {
      route: 'POST /mcp completion/complete',
      what: 'a 15,000-character prefix (four times that is near the body limit)',
      request: mcp({
        jsonrpc: '2.0',
        id: 1,
        method: 'completion/complete',
        params: {
          ref: { type: 'ref/resource', uri: 'http://localhost:8080/{lang}/blog/{slug}' },
          argument: { name: 'slug', value: 'q'.repeat(15_000) },
        },
      }),
      scaled: (f) =>
        mcp({
          jsonrpc: '2.0',
          id: 1,
          method: 'completion/complete',
          params: {
            ref: { type: 'ref/resource', uri: 'http://localhost:8080/{lang}/blog/{slug}' },
            argument: { name: 'slug', value: 'q'.repeat(15_000 * f) },
          },
        }),
    },
    {
      route: 'POST /mcp read_page',
      what: 'a path of 15,000 slashes',
      request: mcp(call(1, 'read_page', { path: '/'.repeat(15_000) })),
      scaled: (f) => mcp(call(1, 'read_page', { path: '/'.repeat(15_000 * f) })),
    },
    {
      route: 'POST /mcp tools/call get_profile',
      what: 'the largest profile, not yet rendered',
      request: mcp(call(1, 'get_profile', { page: 'largest' })),
    },
    {
      route: 'POST /mcp tools/call get_profile (lang)',
      what: 'the largest profile in its other language, not yet rendered',
      request: mcp(call(1, 'get_profile', { page: 'largest', lang: DEFAULT_LANG })),
    },
    {
      route: 'POST /mcp tools/call get_digital_card',
      what: 'the largest card, not yet rendered',
      request: mcp(call(1, 'get_digital_card', { cardId: 'largest-card' })),
    },
    {
      route: 'POST /mcp tools/call list_blog_articles',
      what: 'every article',
      request: mcp(call(1, 'list_blog_articles', {})),
    },
    {
      route: 'POST /mcp tools/call read_page',
      what: 'a 5 MB sitemap part (refused by its size, never read)',
      request: mcp(call(1, 'read_page', { path: part })),
    },
    { route: 'POST /mcp batch', what: 'ten read_page of that part', request: batch(10, 'read_page', { path: part }) },
    {
      route: 'POST /mcp batch',
      what: 'ten read_page of the largest profile',
      request: batch(10, 'read_page', { path: '/p/largest' }),
    },
    {
      route: 'POST /mcp (2026-07-28) server/discover',
      what: 'server/discover (a fresh server)',
      request: modern('server/discover', {}),
    },
    {
      route: 'POST /mcp (2026-07-28) tools/call read_page',
      what: 'the 5 MB sitemap part',
      request: modern('tools/call', { name: 'read_page', arguments: { path: part } }, 'read_page'),
    },
    {
      route: 'POST /mcp (body)',
      what: `a body of ${MCP_BODY_LIMIT / 1024} KiB (just under the limit) of empty objects: the most parsing a body may cost`,
      request: {
        method: 'POST',
        path: '/mcp',
        headers: LEGACY,
        body: `[${'{},'.repeat(Math.floor((MCP_BODY_LIMIT - 8) / 3))}{}]`,
      },
    },
    {
      route: 'POST /mcp (body)',
      what: 'a body of 8 MiB (refused with 413, read and dropped)',
      request: { method: 'POST', path: '/mcp', headers: LEGACY, body: 'x'.repeat(8 * 1024 * 1024) },
    },
  ];
}

/** CPU nanoseconds of every thread of `pid` so far (the main thread, the thread pool, V8's helpers). */
function cpuNs(pid: number): number {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return total;
}

const statusKb = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

interface Measured {
  route: string;
  what: string;
  status: number;
  bytes: number;
  cpuMs: number;
  heldMb: number;
  wallMs: number;
  /** The event loop's longest hold while it was answered (ms), cold. */
  holdMs: number;
  /** The same, warm, at its input ×1, ×2 and ×4, when it scales. */
  scaledHoldMs?: number[];
}

async function send(url: string, r: Request): Promise<{ status: number; bytes: number }> {
  const res = await fetch(url + r.path, {
    method: r.method ?? 'GET',
    headers: r.headers ?? {},
    body: r.body ?? null,
    redirect: 'manual',
  });
  return { status: res.status, bytes: (await res.arrayBuffer()).byteLength };
}

async function longestHoldMs(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text.split('\n').find((l) => l.startsWith('bio_event_loop_longest_hold_seconds '));
  return Number(line?.split(' ')[1] ?? NaN) * 1000;
}

/** One case, alone, in a fresh sidecar over `env`'s database. */
async function measureCase(env: Record<string, string>, c: Case): Promise<Measured> {
  const metricsPort = await freePort();
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const sidecar = await startSidecar('', { ...env, METRICS_LISTEN: `127.0.0.1:${metricsPort}` });
  try {
    for (let i = 0; i < 3; i++) await send(sidecar.url, { path: '/health' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    writeFileSync(`/proc/${sidecar.pid}/clear_refs`, '5');
    await longestHoldMs(metricsUrl);
    const rssBefore = statusKb(sidecar.pid, 'VmRSS');
    const cpuBefore = cpuNs(sidecar.pid);
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: c.crowd ?? 1 }, () => send(sidecar.url, c.request)));
    const wallMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const cpuMs = (cpuNs(sidecar.pid) - cpuBefore) / 1e6;
    const heldMb = (statusKb(sidecar.pid, 'VmHWM') - rssBefore) / 1024;
    const holdMs = await longestHoldMs(metricsUrl);
    let scaledHoldMs: number[] | undefined;
    if (c.scaled) {
      scaledHoldMs = [];
      for (const factor of [1, 2, 4]) {
        await send(sidecar.url, c.scaled(factor)).catch(() => undefined);
        await longestHoldMs(metricsUrl);
        await send(sidecar.url, c.scaled(factor)).catch(() => undefined);
        scaledHoldMs.push(await longestHoldMs(metricsUrl));
      }
    }
    if (sidecar.child.exitCode !== null) throw new Error(`${c.route}: the sidecar exited`);
    return {
      route: c.route,
      what: c.what,
      status: answers[0]!.status,
      bytes: answers[0]!.bytes,
      cpuMs,
      heldMb,
      wallMs,
      holdMs,
      ...(scaledHoldMs ? { scaledHoldMs } : {}),
    };
  } finally {
    sidecar.child.kill('SIGKILL');
  }
}

/** A wrk script mixing the costliest requests, an 8 MiB body among them (made in Lua, not written out). */
function costliestScript(profiles: number, parts: number): string {
  const lua = (s: string) => JSON.stringify(s);
  const post = (body: string, headers: Record<string, string> = LEGACY) =>
    `wrk.format("POST", "/mcp", { ${Object.entries({ Host: 'localhost', ...headers })
      .map(([k, v]) => `[${lua(k)}] = ${lua(v)}`)
      .join(', ')} }, ${body})`;
  const get = (path: string, headers: Record<string, string> = {}) =>
    `wrk.format("GET", ${path}, { ${Object.entries({ Host: 'localhost', ...headers })
      .map(([k, v]) => `[${lua(k)}] = ${lua(v)}`)
      .join(', ')} })`;
  const requests = [
    `function() return ${get(`"/sitemaps/" .. math.random(2, ${parts}) .. ".xml"`)} end`,
    `function() return ${get(`"/sitemaps/" .. math.random(2, ${parts}) .. ".xml"`, { 'Accept-Encoding': 'gzip' })} end`,
    `function() return ${get(lua('/sitemap.xml'))} end`,
    `function() return ${post(lua(JSON.stringify(Array.from({ length: 10 }, (_, i) => call(i + 1, 'read_page', { path: '/sitemaps/2.xml' })))))} end`,
    `function() return ${post(lua(JSON.stringify(Array.from({ length: 10 }, (_, i) => call(i + 1, 'read_page', { path: '/p/largest' })))))} end`,
    `function() return ${post(lua(JSON.stringify(Array.from({ length: 10 }, (_, i) => call(i + 1, 'list_blog_articles', {})))))} end`,
    `function() return ${post('big')} end`,
    `function() return ${get(`"/p/bench-" .. math.random(1, ${profiles})`)} end`,
  ];
  return `local big = string.rep("x", 8 * 1024 * 1024)\nlocal requests = {\n${requests.map((r) => `  ${r}`).join(',\n')}\n}\nlocal i = 0\nrequest = function()\n  i = i % #requests + 1\n  return requests[i]()\nend\n`;
}

interface Load {
  backend: string;
  profiles: number;
  /** Whether the load generator ran at the lowest CPU priority. */
  niced: boolean;
  costly: WrkResult;
  probe: { n: number; p50: number; p99: number; max: number; errors: number };
  lived: boolean;
  peakRssMb: number;
}

async function loadRun(
  backend: string,
  env: Record<string, string>,
  profiles: number,
  seconds: number,
  niced: boolean,
): Promise<Load> {
  const sidecar = await startSidecar('', env);
  try {
    await send(sidecar.url, { path: '/p/layla' });
    const parts =
      (((await (await fetch(sidecar.url + '/sitemap.xml')).text()).match(/<sitemap>/g) ?? []).length || 2) - 1;
    writeFileSync(`/proc/${sidecar.pid}/clear_refs`, '5');
    const probe = new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [join(projectRoot, 'scripts/bench/probe.ts'), sidecar.url, String(seconds), '/health', '/p/layla'],
        (error, out) => (error ? reject(error) : resolve(out)),
      ),
    );
    const costly = await wrk(
      sidecar.url + '/',
      {
        connections: 40,
        threads: 1,
        seconds,
        script: costliestScript(profiles, Math.max(2, parts)),
        ...(niced ? { nice: 19 } : {}),
      },
      scratch,
    );
    const lived = sidecar.child.exitCode === null && (await fetch(sidecar.url + '/health')).status === 200;
    return {
      backend,
      profiles,
      niced,
      costly,
      probe: JSON.parse(await probe) as Load['probe'],
      lived,
      peakRssMb: statusKb(sidecar.pid, 'VmHWM') / 1024,
    };
  } finally {
    sidecar.child.kill('SIGKILL');
  }
}

/** The site built, and the import every database of the bench starts from: the demo data and the largest records. */
function benchData() {
  ensureBuildSync(loadConfig({}), baseEnv({}));
  const demo = JSON.parse(readFileSync(join(projectRoot, 'scripts/demo-data.json'), 'utf8')) as Record<
    string,
    unknown[]
  >;
  return {
    profiles: [...demo.profiles!, ...LARGEST.profiles],
    cards: [...demo.cards!, ...LARGEST.cards],
    aliases: [...demo.aliases!, ...LARGEST.aliases],
  };
}

/**
 * `--worst --stalls`: the hostile clients alone, on both backends at the largest size, rewriting only that section of
 * the record (the rest keeps the run that made it).
 */
/** Every hostile-client scenario against one backend's sidecar, as the record's hostile section lists them. */
async function hostileClients(backend: Backend, env: Record<string, string>, profiles: number, seconds: number) {
  return { backend: backend.name, profiles, rows: await stallScenarios(env, profiles, seconds, console.log) };
}

export async function stallsOnlyBench(options: { seconds?: number | undefined; million: boolean }): Promise<boolean> {
  const seconds = options.seconds ?? 60;
  const profiles = options.million ? 1_000_000 : 100_000;
  const data = benchData();
  const stalls: { backend: string; profiles: number; rows: StallRow[] }[] = [];
  const pg = await postgresBackend();
  try {
    for (const backend of [sqliteBackend(scratch), pg] as Backend[]) {
      console.log(`${backend.name}, ${fmt(profiles)} profiles: hostile clients, ${seconds} s each…`);
      const db = await backend.prepare(profiles, data);
      stalls.push(await hostileClients(backend, db.env, profiles, seconds));
      await db.close();
    }
  } finally {
    await pg.stop();
  }
  const command = `npm run bench -- --worst --stalls${options.million ? '' : ' --quick'}${options.seconds ? ` --duration ${options.seconds}` : ''}`;
  const record = readFileSync(join(RECORDS, 'worst.md'), 'utf8');
  const kept = record.slice(0, record.indexOf(HOSTILE_HEADING));
  writeRecord(
    'worst.md',
    kept + hostileSection(stalls, seconds, `\`${command}\` on ${new Date().toISOString().slice(0, 10)}`).join('\n'),
  );
  return stallsPass(stalls);
}

const HOSTILE_HEADING = '## Hostile clients (issue 36)';

function hostileSection(
  stalls: { backend: string; profiles: number; rows: StallRow[] }[],
  seconds: number,
  producedBy: string,
): string[] {
  return [
    HOSTILE_HEADING,
    '',
    `Produced by ${producedBy}. Each scenario runs for ${seconds} s against a fresh sidecar (as \`npm run serve\` runs it, on the largest database above) while a prober asks /health one request at a time, from an address of its own (127.0.0.2: a health check is not one of the clients it watches): its latency (bound: p99 100 ms), the longest the event loop was held, and the resident set before, at its peak, and ${15} s after the clients left (scripts/bench/stalls.ts).`,
    '',
    '| Backend | Scenario | /health p50 ms | p99 ms (bound 100) | max ms | errors | Loop held ms | RSS MB: before → peak → after | What the clients saw |',
    '|---|---|---:|---:|---:|---:|---:|---|---|',
    ...stalls.flatMap((s) =>
      s.rows.map(
        (r) =>
          `| ${s.backend.split(' (')[0]}, ${fmt(s.profiles)} | ${r.scenario} | ${fmt(r.health.p50, 1)} | ${fmt(r.health.p99, 1)} | ${fmt(r.health.max)} | ${fmt(r.health.errors)} | ${fmt(r.holdMs, 1)} | ${fmt(r.rss.before)} → ${fmt(r.rss.peak)} → ${fmt(r.rss.after)} | ${r.clients} |`,
      ),
    ),
    '',
  ];
}

const stallsPass = (stalls: { rows: StallRow[] }[]) =>
  stalls.every((s) =>
    s.rows.every((r) => r.health.p99 <= 100 && r.health.errors === 0 && !r.clients.includes('EXITED')),
  );

export async function worstBench(options: { seconds?: number | undefined; million: boolean }): Promise<boolean> {
  const seconds = options.seconds ?? 60;
  const sizes = options.million ? [100_000, 1_000_000] : [100_000];
  const data = benchData();
  const results: { backend: string; profiles: number; rows: Measured[] }[] = [];
  const loads: Load[] = [];
  const stalls: { backend: string; profiles: number; rows: StallRow[] }[] = [];
  const pg = await postgresBackend();
  try {
    for (const backend of [sqliteBackend(scratch), pg] as Backend[]) {
      for (const profiles of sizes) {
        console.log(`${backend.name}, ${fmt(profiles)} profiles…`);
        const db = await backend.prepare(profiles, data);
        const rows: Measured[] = [];
        for (const c of cases()) {
          rows.push(await measureCase(db.env, c));
          const r = rows.at(-1)!;
          console.log(
            `  ${r.route}: ${r.status}, ${fmt(r.cpuMs, 1)} ms CPU, ${fmt(r.heldMb, 1)} MB held, the loop held ${fmt(r.holdMs, 1)} ms${r.scaledHoldMs ? ` (×1, ×2, ×4: ${r.scaledHoldMs.map((h) => fmt(h, 1)).join(', ')} ms)` : ''}`,
          );
        }
        results.push({ backend: backend.name, profiles, rows });
        if (profiles === sizes.at(-1)) {
          console.log(`  forty clients of the costliest, ${seconds} s…`);
          for (const niced of [false, true]) loads.push(await loadRun(backend.name, db.env, profiles, seconds, niced));
          console.log(`  hostile clients, ${seconds} s each…`);
          stalls.push(await hostileClients(backend, db.env, profiles, seconds));
        }
        await db.close();
      }
    }
  } finally {
    await pg.stop();
  }
  const command = `npm run bench -- --worst${options.million ? '' : ' --quick'}${options.seconds ? ` --duration ${options.seconds}` : ''}`;
  const columns = results.map((r) => `${r.backend.split(' (')[0]}, ${fmt(r.profiles)}`);
  const lines = [
    '# The worst request of each route and method',
    '',
    `Produced by \`${command}\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${fmt(totalmem() / 2 ** 30)} GiB, Node ${process.version}. Each request is sent alone (or as the crowd it says) to a fresh sidecar process started as \`npm run serve\` starts it (\`--max-old-space-size=160\`), after three requests of /health; nothing it needs is cached yet. **CPU** is the time every thread of the process spent from just before the request to 100 ms after its answer (/proc/PID/task/*/schedstat: the main thread, the thread pool that compresses, V8's collectors). **Held** is how far the resident set's high-water mark rose above where it stood before the request (/proc/PID/clear_refs resets the mark): the most memory the request made the process hold at once. The database holds the bulk profiles, the demo data, and the largest profile and card an import allows.`,
    '',
    `| Route or method | Its costliest request | Status | ${columns.map((c) => `${c}: CPU ms / held MB / loop held ms`).join(' | ')} |`,
    `|---|---|---:|${columns.map(() => '---:').join('|')}|`,
    ...results[0]!.rows.map(
      (row, i) =>
        `| ${row.route} | ${row.what} | ${row.status} | ${results.map((r) => `${fmt(r.rows[i]!.cpuMs, 1)} / ${fmt(r.rows[i]!.heldMb, 1)} / ${fmt(r.rows[i]!.holdMs, 1)}`).join(' | ')} |`,
    ),
    '',
    "CPU is every thread's (the render pool's included); *loop held* is the sidecar's own measure of the longest its event loop was held (main-thread CPU between two turns: what every other request waited), cold.",
    '',
    '## Cost against input size',
    '',
    'The requests whose cost could grow with their input, sent warm at their input ×1, ×2 and ×4: the longest the event loop was held (ms). A cost that grows faster than the input would show here (issue 36: 15,000 slashes held it 0.4 s). Past a limit (a path over 16 KiB, a body over 64 KiB) the answer is the refusal.',
    '',
    `| Route or method | Its input (×1) | ${columns.map((c) => `${c}: ×1 / ×2 / ×4`).join(' | ')} |`,
    `|---|---|${columns.map(() => '---:').join('|')}|`,
    ...results[0]!.rows.flatMap((row, i) =>
      row.scaledHoldMs
        ? [
            `| ${row.route} | ${row.what} | ${results.map((r) => (r.rows[i]!.scaledHoldMs ?? []).map((h) => fmt(h, 1)).join(' / ')).join(' | ')} |`,
          ]
        : [],
    ),
    '',
    '## Forty clients of the costliest requests',
    '',
    `Forty connections (wrk, one thread) cycle through the costliest requests above for ${seconds} s: sitemap parts as they are and in gzip, the sitemap index, batches of ten read_page of a 5 MB part and of the largest profile, a batch of ten list_blog_articles, an 8 MiB body, and random profiles (mostly not yet rendered). Meanwhile a reader (scripts/bench/probe.ts, a process of its own) asks /health and a cached profile in turn, one at a time, 10 ms after each answer: what a load balancer's health check and a reader see. The bound: its p99 at most 100 ms, and no restart. On this machine the load generator shares the server's two cores (clients are elsewhere in life): each backend is loaded twice, wrk at normal priority (the most load it can make here) and at the lowest (it yields the cores to the server, and makes less).`,
    '',
    '| Backend | Profiles | wrk | Costliest: requests/s | non-2xx/3xx | socket errors | Reader: requests | p50 ms | p99 ms (bound 100) | max ms | errors | Lived | Peak RSS MB |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|',
    ...loads.map(
      (l) =>
        `| ${l.backend} | ${fmt(l.profiles)} | ${l.niced ? 'niced' : 'normal'} | ${fmt(l.costly.rps)} | ${fmt(l.costly.non2xx3xx)} | ${fmt(l.costly.socketErrors)} | ${fmt(l.probe.n)} | ${fmt(l.probe.p50, 1)} | ${fmt(l.probe.p99, 1)} | ${fmt(l.probe.max)} | ${fmt(l.probe.errors)} | ${l.lived ? 'yes' : '**no**'} | ${fmt(l.peakRssMb)} |`,
    ),
    '',
    "Non-2xx answers there are the 413s to the 8 MiB bodies, by design; socket errors are wrk's own two-second timeout on the slowest of the costliest (a part sent as it is, 5 MB, to a reader that shares the cores).",
    '',
    ...hostileSection(stalls, seconds, `\`${command}\` with the rest of this record`),
  ];
  writeRecord('worst.md', lines.join('\n'));
  console.log('\n' + lines.join('\n'));
  return loads.every((l) => l.lived && l.probe.p99 <= 100 && l.probe.errors === 0) && stallsPass(stalls);
}
