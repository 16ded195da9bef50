// `npm run bench` (the overview): the sidecar against baselines measured in the same run (nginx serving the same
// files, a bare Fastify route answering the same bytes), the production shape (the front over two sidecars), build
// times against Hugo, memory and the sitemap at scale. Writes docs/benchmarks/overview.md (with docs/benchmarks/notes.md after it).
import { existsSync, readFileSync } from 'node:fs';
import { RECORDS, writeRecord } from './records.ts';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../sidecar/config.ts';
import { ensureBuildSync, projectRoot } from '../ensure-build.ts';
import { buildBench, type BuildBench } from './build.ts';
import {
  baseEnv,
  database,
  demoDatabase,
  generatedProfiles,
  MCP_HEADERS,
  mcpBody,
  rssMb,
  scratch,
  startBaseline,
  startFront,
  startStaticNginx,
  startSidecar,
} from './harness.ts';
import { fmt } from './numbers.ts';
import { cycleScript, wrk, type WrkResult } from './wrk.ts';

interface Row {
  name: string;
  ours: WrkResult;
  baseline?: WrkResult;
  baselineName?: string;
}

async function memoryRow(seconds: number, profiles: number) {
  const db = await database(join(scratch, `mem-${profiles}.db`), generatedProfiles(profiles));
  const sidecar = await startSidecar(db);
  await new Promise((r) => setTimeout(r, 1000));
  const idle = rssMb(sidecar.pid);
  const t0 = performance.now();
  const sitemap = await (await fetch(sidecar.url + '/sitemap.xml')).text();
  const sitemapMs = performance.now() - t0;
  const script = `request = function() return wrk.format("GET", "/p/bench-" .. math.random(1, ${profiles})) end\n`;
  await wrk(sidecar.url + '/', { connections: 50, seconds: 2, script }, scratch);
  const load = await wrk(sidecar.url + '/', { connections: 50, seconds, script }, scratch);
  const after = rssMb(sidecar.pid);
  // Anonymous memory is what each further sidecar on a host costs; the rest is mostly the node executable's
  // pages, shared between processes.
  const anon = rssMb(sidecar.pid, 'RssAnon');
  sidecar.child.kill('SIGKILL');
  return {
    profiles,
    idle,
    after,
    anon,
    load,
    sitemapMs,
    sitemapUrls: (sitemap.match(/<loc>/g) ?? []).length,
    sitemapIsIndex: sitemap.includes('<sitemapindex'),
  };
}

export async function overviewBench(seconds: number, quick: boolean): Promise<void> {
  const config = loadConfig({});
  console.log('Building the site…');
  ensureBuildSync(config, baseEnv({}));
  const demoDb = await demoDatabase();

  const sidecar = await startSidecar(demoDb);
  const uncached = await startSidecar(demoDb, { LIVE_CACHE_SIZE: '0' });
  const logged = await startSidecar(demoDb, { LOG_LEVEL: 'info' });
  const nginx = await startStaticNginx(join(projectRoot, 'dist/client'), config);

  const article = '/en/blog/qr-or-nfc-business-card';
  // The baseline answers with the same bytes: the same body and the same response headers (security headers,
  // ETag, Cache-Control, Vary…), less those Node adds itself. One more route sends the body alone, for scale.
  const same = async (url: string, init?: RequestInit) => {
    // The bytes wrk gets: it sends no Accept-Encoding (fetch would ask for brotli and decode it).
    const res = await fetch(url, {
      ...init,
      headers: { ...(init?.headers as Record<string, string> | undefined), 'accept-encoding': 'identity' },
    });
    const headers = Object.fromEntries(
      [...res.headers].filter(
        ([name]) => !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name),
      ),
    );
    return { type: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()), headers };
  };
  const mcpInit = (body: string): RequestInit => ({ method: 'POST', headers: MCP_HEADERS, body });
  const profile = await same(sidecar.url + '/p/layla');
  const baseline = await startBaseline({
    '/profile': profile,
    '/profile-body': { type: profile.type, body: profile.body },
    '/mcp-profile': {
      ...(await same(sidecar.url + '/mcp', mcpInit(mcpBody('get_profile', { page: 'layla' })))),
      method: 'POST',
    },
    '/mcp-list': { ...(await same(sidecar.url + '/mcp', mcpInit(mcpBody('list_blog_articles', {})))), method: 'POST' },
  });

  // Each measurement follows a short warm-up of the same request (JIT, caches, connection pools).
  const run = async (url: string, extra: Parameters<typeof wrk>[1] = {}) => {
    await wrk(url, { ...extra, seconds: 2 }, scratch);
    return wrk(url, { seconds: seconds, ...extra }, scratch);
  };
  const post = (path: string, body: string) => ({
    script: cycleScript([{ method: 'POST', path, headers: MCP_HEADERS, body }]),
  });
  const md = { headers: { accept: 'text/markdown' } };
  const rows: Row[] = [];
  const row = async (
    name: string,
    ours: Promise<WrkResult>,
    baselineName?: string,
    base?: () => Promise<WrkResult>,
  ) => {
    const r: Row = { name, ours: await ours };
    if (base && baselineName) Object.assign(r, { baseline: await base(), baselineName });
    rows.push(r);
    console.log(`${name}: ${fmt(r.ours.rps)} req/s${r.baseline ? ` vs ${fmt(r.baseline.rps)} (${baselineName})` : ''}`);
  };

  console.log(`Load: wrk, 2 threads, 50 connections, ${seconds} s per row…`);
  await row(
    'Static HTML page',
    run(sidecar.url + article),
    'nginx',
    nginx ? () => run(nginx.url + article) : undefined,
  );
  await row(
    'Its Markdown twin (Accept: text/markdown)',
    run(sidecar.url + article, md),
    'nginx',
    nginx ? () => run(nginx.url + article, md) : undefined,
  );
  await row('Live profile, cached', run(sidecar.url + '/p/layla'), 'bare Fastify, same headers and body', () =>
    run(baseline + '/profile'),
  );
  await row(
    'Live profile, cached (vs the body alone)',
    run(sidecar.url + '/p/layla'),
    'bare Fastify, same body, 1 header',
    () => run(baseline + '/profile-body'),
  );
  await row('Live profile, cache off (a render per request)', run(uncached.url + '/p/layla'));
  await row('Live card, cached', run(sidecar.url + '/c/k7f2q9'));
  await row('Alias redirect', run(sidecar.url + '/layla'));
  await row(
    'MCP tools/call get_profile',
    run(sidecar.url + '/mcp', post('/mcp', mcpBody('get_profile', { page: 'layla' }))),
    'bare Fastify JSON route, same bytes',
    () => run(baseline + '/mcp-profile', post('/mcp-profile', '{}')),
  );
  await row(
    'MCP tools/call list_blog_articles',
    run(sidecar.url + '/mcp', post('/mcp', mcpBody('list_blog_articles', {}))),
    'bare Fastify JSON route, same bytes',
    () => run(baseline + '/mcp-list', post('/mcp-list', '{}')),
  );
  await row('/health', run(sidecar.url + '/health'));
  await row('Static HTML page, LOG_LEVEL=info', run(logged.url + article), 'same, LOG_LEVEL=warn', () =>
    run(sidecar.url + article),
  );

  for (const c of [uncached, logged]) c.child.kill('SIGKILL');

  // The production shape on this machine: nginx (deploy/nginx.conf, one worker) over two sidecars in front mode.
  console.log('Front + two sidecars…');
  const shapeRows: Row[] = [];
  const front = await startFront(demoDb, config);
  if (front) {
    const shape = async (name: string, path: string, extra: Parameters<typeof wrk>[1] = {}) => {
      const r: Row = {
        name,
        ours: await run(front.url + path, extra),
        baseline: await run(sidecar.url + path, extra),
        baselineName: 'one sidecar alone',
      };
      shapeRows.push(r);
      console.log(`${name}: ${fmt(r.ours.rps)} req/s vs ${fmt(r.baseline?.rps ?? NaN)} (one sidecar)`);
    };
    await shape('Static HTML page', article);
    await shape('Its Markdown twin', article, md);
    await shape('Live profile, cached', '/p/layla');
    await shape('MCP tools/call get_profile', '/mcp', post('/mcp', mcpBody('get_profile', { page: 'layla' })));
    for (const c of front.children) c.kill('SIGKILL');
  }
  sidecar.child.kill('SIGKILL');

  console.log('Build at scale…');
  const builds = [];
  for (const n of quick ? [50] : [200, 2000]) {
    builds.push(buildBench(n, scratch));
    console.log(
      `build ${n}/lang: ${fmt(builds.at(-1)?.cold.seconds ?? NaN, 1)} s cold, ${fmt(builds.at(-1)?.rebuild.seconds ?? NaN, 1)} s after one edit`,
    );
  }
  console.log('Memory and sitemap at scale…');
  const memory = [];
  for (const n of quick ? [1000] : [10_000, 100_000]) {
    memory.push(await memoryRow(seconds, n));
    console.log(`memory ${n}: ${fmt(memory.at(-1)?.after ?? NaN)} MB`);
  }

  report(rows, builds, memory, shapeRows, { seconds, quick, nginxVersion: nginx?.version.trim() });
}

function report(
  rows: Row[],
  builds: BuildBench[],
  memory: Awaited<ReturnType<typeof memoryRow>>[],
  shapeRows: Row[],
  run: { seconds: number; quick: boolean; nginxVersion: string | undefined },
) {
  const { seconds, quick, nginxVersion } = run;
  const find = (name: string) => rows.find((r) => r.name.startsWith(name));
  const ratio = (r?: Row) => (r?.baseline ? r.ours.rps / r.baseline.rps : NaN);
  const liveRows = rows.filter((r) => /^(Live|Alias|MCP)/.test(r.name) && !r.name.includes('cache off'));
  const worstLiveP99 = Math.max(...liveRows.map((r) => r.ours.p99));
  const big = memory.at(-1);
  const budgets: [string, boolean, string][] = [
    [
      'Static from the sidecar ≥ 0.5× nginx',
      ratio(find('Static HTML page')) >= 0.5 && ratio(find('Its Markdown')) >= 0.5,
      `${fmt(ratio(find('Static HTML page')), 2)}× (HTML), ${fmt(ratio(find('Its Markdown')), 2)}× (twin)`,
    ],
    [
      'Cached live page ≥ 0.7× the bare route',
      ratio(find('Live profile, cached')) >= 0.7,
      `${fmt(ratio(find('Live profile, cached')), 2)}× (same bytes); ${fmt(ratio(find('Live profile, cached (vs')), 2)}× against the body alone`,
    ],
    [
      'MCP tools/call ≥ 0.25× the bare JSON route',
      ratio(find('MCP tools/call get_profile')) >= 0.25 && ratio(find('MCP tools/call list')) >= 0.25,
      `${fmt(ratio(find('MCP tools/call get_profile')), 2)}× (get_profile), ${fmt(ratio(find('MCP tools/call list')), 2)}× (list_blog_articles)`,
    ],
    ['p99 ≤ 20 ms at 50 connections on every live route', worstLiveP99 <= 20, `worst ${fmt(worstLiveP99, 2)} ms`],
    [
      'Twins ≤ 20% of build time',
      builds.every((b) => (b.cold.steps['Markdown twins'] ?? 0) <= 0.2 * b.cold.seconds),
      builds
        .map(
          (b) =>
            `${fmt(((b.cold.steps['Markdown twins'] ?? 0) / b.cold.seconds) * 100, 1)}% at ${b.perLang}/lang (cold)`,
        )
        .join(', '),
    ],
    [
      'Rebuild after one edit ≤ 6× Hugo (issue 19)',
      builds.every((b) => b.hugoSeconds !== undefined && b.rebuild.seconds <= 6 * b.hugoSeconds),
      builds
        .map((b) =>
          b.hugoSeconds ? `${fmt(b.rebuild.seconds / b.hugoSeconds, 1)}× at ${b.perLang}/lang` : 'Hugo not installed',
        )
        .join(', '),
    ],
    [
      'Resident memory ≤ 200 MB with 100,000 profiles',
      (big?.after ?? Infinity) <= 200,
      `${fmt(big?.after ?? NaN)} MB after load at ${fmt(big?.profiles ?? NaN)} profiles`,
    ],
  ];

  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    '# Benchmarks',
    '',
    `Produced by \`npm run bench${quick ? ' -- --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpu}, ${fmt(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${nginxVersion ?? 'nginx not installed'}, wrk (Debian).`,
    `Everything runs on loopback on the same machine, in one run: wrk, the sidecar (one process), nginx (one worker) and the bare Fastify baseline share the cores, so ratios matter more than absolute numbers. Each row: \`wrk -t2 -c50 -d${seconds}s --latency\`. The sidecar logs at \`warn\` unless a row says otherwise.`,
    '',
    '## Requests',
    '',
    '| Row | req/s | p50 ms | p99 ms | Baseline | Baseline req/s | Baseline p99 ms | Ratio |',
    '|---|---:|---:|---:|---|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${fmt(r.ours.rps)} | ${fmt(r.ours.p50, 2)} | ${fmt(r.ours.p99, 2)} | ${r.baselineName ?? ''} | ${r.baseline ? fmt(r.baseline.rps) : ''} | ${r.baseline ? fmt(r.baseline.p99, 2) : ''} | ${r.baseline ? `${fmt(ratio(r), 2)}×` : ''} |`,
    ),
    '',
    '## Deployment shapes',
    '',
    'The front (`deploy/nginx.conf` from `npm run front`, one nginx worker) over two sidecars (`STATIC_FILES=front`), against the one-process default, same machine, same run.',
    '',
    '| Row | Front + 2 sidecars req/s | p50 ms | p99 ms | One sidecar req/s | p99 ms | Ratio |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...(shapeRows.length === 0
      ? ['| (nginx not installed: skipped) | | | | | | |']
      : shapeRows.map(
          (r) =>
            `| ${r.name} | ${fmt(r.ours.rps)} | ${fmt(r.ours.p50, 2)} | ${fmt(r.ours.p99, 2)} | ${fmt(r.baseline?.rps ?? NaN)} | ${fmt(r.baseline?.p99 ?? NaN, 2)} | ${fmt(ratio(r), 2)}× |`,
        )),
    '',
    '## Build',
    '',
    '| Articles per language | Cold build (s) | Rebuild after one edit (s) | Hugo, same articles (s) | Cold / Hugo | Rebuild / Hugo |',
    '|---:|---:|---:|---:|---:|---:|',
    ...builds.map(
      (b) =>
        `| ${fmt(b.perLang)} | ${fmt(b.cold.seconds, 1)} | ${fmt(b.rebuild.seconds, 1)} | ${b.hugoSeconds === undefined ? 'not installed' : fmt(b.hugoSeconds, 2)} | ${b.hugoSeconds ? `${fmt(b.cold.seconds / b.hugoSeconds, 1)}×` : ''} | ${b.hugoSeconds ? `${fmt(b.rebuild.seconds / b.hugoSeconds, 1)}×` : ''} |`,
    ),
    '',
    "Each step's share, the sizes and the search download: `npm run bench -- --build` (docs/benchmarks/build.md).",
    '',
    '## Memory and sitemap',
    '',
    '| Profiles | RSS idle (MB) | RSS after load (MB) | of which anonymous (MB) | Profile req/s under load (random profiles) | p99 ms | First /sitemap.xml (ms) | Sitemap |',
    '|---:|---:|---:|---:|---:|---:|---:|---|',
    ...memory.map(
      (m) =>
        `| ${fmt(m.profiles)} | ${fmt(m.idle)} | ${fmt(m.after)} | ${fmt(m.anon)} | ${fmt(m.load.rps)} | ${fmt(m.load.p99, 2)} | ${fmt(m.sitemapMs)} | ${m.sitemapIsIndex ? `index of ${m.sitemapUrls} parts` : `${fmt(m.sitemapUrls)} URLs`} |`,
    ),
    '',
    '## Budgets',
    '',
    '| Budget | Holds | Measured |',
    '|---|---|---|',
    ...budgets.map(([name, ok, measured]) => `| ${name} | ${ok ? 'yes' : '**no**'} | ${measured} |`),
    '',
  ];
  const text = lines.join('\n');
  const notes = join(RECORDS, 'notes.md');
  writeRecord('overview.md', text + (existsSync(notes) ? '\n' + readFileSync(notes, 'utf8') : ''));
  console.log('\n' + text);
}
