// Pages as a phone sees them: Lighthouse (npm, mobile: a mid-range phone on a throttled connection, simulated) in
// Debian's Chromium, on every page kind, served by one sidecar. Writes BENCHMARKS.lighthouse.md: the four category
// scores, first and largest contentful paint, and the bytes each page made the phone download.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { launch } from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { loadConfig } from '../../sidecar/config.ts';
import { ensureBuild, projectRoot } from '../ensure-build.ts';
import { baseEnv, demoDatabase, scratch, startSidecar } from './harness.ts';

const PAGES: [kind: string, path: string][] = [
  ['card (live)', '/c/k7f2q9'],
  ['profile (live, Arabic)', '/p/layla'],
  ['profile (live, English)', '/p/sam-rivera'],
  ['article (Arabic)', '/ar/blog/bitaqat-qr-am-nfc'],
  ['article (English)', '/en/blog/qr-or-nfc-business-card'],
  ['blog index (Arabic)', '/ar/blog'],
  ['blog index (English)', '/en/blog'],
  ['article with contents (Arabic)', '/ar/blog/dalil-safhat-alrawabit'],
  ['topics (Arabic)', '/ar/blog/topics'],
  ['topic (English)', '/en/blog/topics/privacy'],
  ['search with results (Arabic)', '/ar/blog/search?q=%D9%88%D8%A7%D9%84%D8%B4%D8%B1%D9%8A%D8%AD%D8%A9'],
  ['search with results (English)', '/en/blog/search?q=NFC'],
  ['homepage', '/'],
  ['API docs', '/docs/api'],
];
const lighthouseVersion = (JSON.parse(readFileSync(join(projectRoot, 'node_modules/lighthouse/package.json'), 'utf8')) as { version: string }).version;
/** Runs per page: the median (by performance score) is reported. */
const RUNS = 3;
type Result = NonNullable<Awaited<ReturnType<typeof lighthouse>>>['lhr'];
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

export interface LighthouseRow {
  kind: string;
  path: string;
  scores: Record<(typeof CATEGORIES)[number], number>;
  fcpMs: number;
  lcpMs: number;
  bytes: number;
  renderBlocking: number;
}

/** Runs Lighthouse on every page kind at `url` (a sidecar); resolves to one row a page and writes the report. */
export async function lighthouseBench(url: string, scratch: string): Promise<LighthouseRow[]> {
  // The canonical URLs name localhost: audit the pages at localhost too, so that the canonical is on this host.
  const origin = url;
  const profile = join(scratch, 'lighthouse-profile');
  mkdirSync(profile, { recursive: true });
  const chrome = await launch({ chromePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', chromeFlags: ['--headless=new', '--no-sandbox'], userDataDir: profile });
  const rows: LighthouseRow[] = [];
  try {
    for (const [kind, path] of PAGES) {
      // Lighthouse's own advice on variability: several runs, the median. A run Chrome could not load (an
      // interstitial now and then on this machine) is run again rather than counted.
      const runs: Result[] = [];
      for (let attempt = 0; runs.length < RUNS && attempt < RUNS * 2; attempt++) {
        const lhr = (await lighthouse(origin + path, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: [...CATEGORIES] }))?.lhr;
        if (!lhr) throw new Error(`Lighthouse gave no result for ${path}`);
        if (lhr.runtimeError) console.log(`${path}: run again after ${lhr.runtimeError.code}`);
        else runs.push(lhr);
      }
      if (runs.length === 0) throw new Error(`Lighthouse could not load ${path}`);
      runs.sort((a, b) => (a.categories.performance?.score ?? 0) - (b.categories.performance?.score ?? 0));
      const lhr = runs[Math.floor(runs.length / 2)]!;
      for (const ref of lhr.categories.performance?.auditRefs ?? []) {
        const audit = lhr.audits[ref.id];
        if (ref.weight > 0 && audit && audit.score !== null && audit.score < 1) console.log(`${path}: ${ref.id} ${audit.displayValue ?? ''} (score ${audit.score})`);
      }
      const score = (c: string) => Math.round((lhr.categories[c]?.score ?? 0) * 100);
      const numeric = (id: string) => lhr.audits[id]?.numericValue ?? NaN;
      const row: LighthouseRow = {
        kind,
        path,
        scores: Object.fromEntries(CATEGORIES.map((c) => [c, score(c)])) as LighthouseRow['scores'],
        fcpMs: numeric('first-contentful-paint'),
        lcpMs: numeric('largest-contentful-paint'),
        bytes: numeric('total-byte-weight'),
        renderBlocking: ((lhr.audits['render-blocking-insight'] ?? lhr.audits['render-blocking-resources'])?.details as { items?: unknown[] } | undefined)?.items?.length ?? 0,
      };
      rows.push(row);
      console.log(`${kind} ${path}: ${CATEGORIES.map((c) => row.scores[c]).join('/')} FCP ${Math.round(row.fcpMs)} ms, LCP ${Math.round(row.lcpMs)} ms, ${row.bytes} bytes`);
    }
  } finally {
    chrome.kill();
  }
  const all100 = rows.every((r) => CATEGORIES.every((c) => r.scores[c] === 100));
  const lines = [
    '# Lighthouse',
    '',
    `Produced by \`npm run bench -- --lighthouse\` on ${new Date().toISOString().slice(0, 10)}: Lighthouse ${lighthouseVersion} (npm) in Debian's Chromium, mobile (simulated throttling: a mid-range phone on a slow 4G connection), ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}. One sidecar (\`npm run serve\`, the one-process default) on loopback; the demo data. Each page ${RUNS} runs, the median (by performance score) shown.`,
    '',
    '| Page kind | Path | Performance | Accessibility | Best practices | SEO | FCP (ms) | LCP (ms) | Bytes downloaded | Render-blocking requests |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.kind} | \`${r.path}\` | ${r.scores.performance} | ${r.scores.accessibility} | ${r.scores['best-practices']} | ${r.scores.seo} | ${Math.round(r.fcpMs)} | ${Math.round(r.lcpMs)} | ${r.bytes.toLocaleString('en-US')} | ${r.renderBlocking} |`),
    '',
    `Every page 100 in all four categories: ${all100 ? 'yes' : '**no**'}.`,
    '',
  ];
  writeFileSync(join(projectRoot, 'BENCHMARKS.lighthouse.md'), lines.join('\n'));
  console.log('\n' + lines.join('\n'));
  return rows;
}

/** `npm run bench -- --lighthouse`: every page kind of a sidecar over the demo data. */
export async function lighthouseMode(): Promise<void> {
  ensureBuild(loadConfig({}), baseEnv({}));
  const sidecar = await startSidecar(demoDatabase());
  await lighthouseBench(sidecar.url, scratch);
}
