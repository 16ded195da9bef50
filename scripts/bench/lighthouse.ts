// `npm run bench -- --lighthouse`: pages as a phone sees them, and as an agent browsing them does: Lighthouse (npm,
// mobile: a mid-range phone on a throttled connection, simulated) in Debian's Chromium, on every page kind, served by
// one sidecar, in the four classic categories and Agentic Browsing (lighthouse-run.ts). Writes
// docs/benchmarks/lighthouse.md: the five scores, first and largest contentful paint, and the bytes each page downloaded.
import { readFileSync } from 'node:fs';
import { writeRecord } from './records.ts';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../sidecar/config.ts';
import { ensureBuildSync, projectRoot } from '../ensure-build.ts';
import { baseEnv, demoDatabase, scratch, startSidecar } from './harness.ts';
import {
  AGENTIC,
  agenticShortfalls,
  CLASSIC,
  launchChromium,
  PAGES,
  runLighthouse,
  type Result,
} from './lighthouse-run.ts';

const lighthouseVersion = (
  JSON.parse(readFileSync(join(projectRoot, 'node_modules/lighthouse/package.json'), 'utf8')) as { version: string }
).version;
/** Runs per page: the median (by performance score) is reported. */
const RUNS = 3;
const CATEGORIES = [...CLASSIC, AGENTIC] as const;

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
export async function lighthouseBench(url: string, dir: string): Promise<LighthouseRow[]> {
  // The browser sees the site at its own origin (BASE_URL), mapped to the sidecar.
  const origin = loadConfig({}).baseUrl;
  const chrome = await launchChromium(dir, { origin, address: new URL(url).host });
  const rows: LighthouseRow[] = [];
  /** Lighthouse's measure of this machine's speed at each run (BenchmarkIndex): simulated throttling scales from it. */
  const speeds: number[] = [];
  try {
    for (const [kind, path] of PAGES) {
      // Lighthouse's own advice on variability: several runs, the median.
      const runs: Result[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await runLighthouse(origin + path, chrome.port, CATEGORIES));
      runs.sort((a, b) => (a.categories.performance?.score ?? 0) - (b.categories.performance?.score ?? 0));
      const lhr = runs[Math.floor(runs.length / 2)]!;
      speeds.push(...runs.map((r) => r.environment.benchmarkIndex));
      for (const ref of lhr.categories.performance?.auditRefs ?? []) {
        const audit = lhr.audits[ref.id];
        if (ref.weight > 0 && audit && audit.score !== null && audit.score < 1)
          console.log(`${path}: ${ref.id} ${audit.displayValue ?? ''} (score ${audit.score})`);
      }
      for (const shortfall of agenticShortfalls(lhr)) console.log(`${path}: ${shortfall}`);
      const score = (c: string) => Math.round((lhr.categories[c]?.score ?? 0) * 100);
      const numeric = (id: string) => lhr.audits[id]?.numericValue ?? NaN;
      const row: LighthouseRow = {
        kind,
        path,
        scores: Object.fromEntries(CATEGORIES.map((c) => [c, score(c)])) as LighthouseRow['scores'],
        fcpMs: numeric('first-contentful-paint'),
        lcpMs: numeric('largest-contentful-paint'),
        bytes: numeric('total-byte-weight'),
        renderBlocking:
          (
            (lhr.audits['render-blocking-insight'] ?? lhr.audits['render-blocking-resources'])?.details as
              { items?: unknown[] } | undefined
          )?.items?.length ?? 0,
      };
      rows.push(row);
      console.log(
        `${kind} ${path}: ${CATEGORIES.map((c) => row.scores[c]).join('/')} FCP ${Math.round(row.fcpMs)} ms, LCP ${Math.round(row.lcpMs)} ms, ${row.bytes} bytes`,
      );
    }
  } finally {
    chrome.kill();
  }
  const all100 = rows.every((r) => CATEGORIES.every((c) => r.scores[c] === 100));
  const lines = [
    '# Lighthouse',
    '',
    `Produced by \`npm run bench -- --lighthouse\` on ${new Date().toISOString().slice(0, 10)}: Lighthouse ${lighthouseVersion} (npm) with its agentic configuration in Debian's Chromium (\`--enable-features=WebMCPTesting\`, so the WebMCP audits see the tools), mobile (simulated throttling: a mid-range phone on a slow 4G connection), ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}. One sidecar (\`npm run serve\`, the one-process default) on loopback; the demo data. Each page ${RUNS} runs, the median (by performance score) shown; a run without a trace (NO_NAVSTART) is run again. Lighthouse's BenchmarkIndex of this machine over the runs: ${Math.min(...speeds)}–${Math.max(...speeds)} (median ${speeds.toSorted((a, b) => a - b)[Math.floor(speeds.length / 2)]}); a slower or busier machine gets more total blocking time from the same page.`,
    '',
    '| Page kind | Path | Performance | Accessibility | Best practices | SEO | Agentic Browsing | FCP (ms) | LCP (ms) | Bytes downloaded | Render-blocking requests |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.kind} | \`${r.path}\` | ${r.scores.performance} | ${r.scores.accessibility} | ${r.scores['best-practices']} | ${r.scores.seo} | ${r.scores[AGENTIC]} | ${Math.round(r.fcpMs)} | ${Math.round(r.lcpMs)} | ${r.bytes.toLocaleString('en-US')} | ${r.renderBlocking} |`,
    ),
    '',
    `Every page 100 in all five categories: ${all100 ? 'yes' : '**no**'}.`,
    '',
  ];
  writeRecord('lighthouse.md', lines.join('\n'));
  console.log('\n' + lines.join('\n'));
  return rows;
}

/** `npm run bench -- --lighthouse`: every page kind of a sidecar over the demo data. */
export async function lighthouseMode(): Promise<void> {
  ensureBuildSync(loadConfig({}), baseEnv({}));
  const sidecar = await startSidecar(await demoDatabase());
  await lighthouseBench(sidecar.url, scratch);
}
