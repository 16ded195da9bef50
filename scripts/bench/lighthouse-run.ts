// Lighthouse as the bench and the tests run it: every page kind, in Debian's Chromium with the flag that exposes WebMCP
// (so the Agentic Browsing audits see the tools), with Lighthouse's agentic configuration, which adds the Agentic
// Browsing category (Lighthouse 13.5) to the four classic ones.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launch, type LaunchedChrome } from 'chrome-launcher';
import lighthouse from 'lighthouse';
import agenticConfig from 'lighthouse/core/config/agentic-browsing-config.js';

export const PAGES: [kind: string, path: string][] = [
  ['card (live)', '/c/k7f2q9'],
  ['profile (live, Arabic)', '/p/layla'],
  ['profile (live, English)', '/p/sam-rivera'],
  ['profile in two languages (live, English version)', '/p/qahwat-alnakheel/en'],
  ['card in two languages (live, Arabic version)', '/c/nakheel1/ar'],
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

/**
 * One page kind a template, both languages among them: what the tests hold to 100 (Agentic Browsing and accessibility);
 * the second language of a template is left to the bench (eleven runs, not sixteen).
 */
export const TEMPLATES = PAGES.filter(
  ([kind]) =>
    ![
      'profile (live, Arabic)',
      'card in two languages (live, Arabic version)',
      'article (English)',
      'blog index (Arabic)',
      'search with results (English)',
    ].includes(kind),
);

export const CLASSIC = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
export const AGENTIC = 'agentic-browsing';
export type Result = NonNullable<Awaited<ReturnType<typeof lighthouse>>>['lhr'];

/**
 * Debian's Chromium under chrome-launcher, with WebMCP exposed and a profile of its own under `dir`. The site's origin
 * (BASE_URL, `host:port`) is mapped to where the server listens (`address`), so that the browser, and Lighthouse's
 * fetches from it, see the site at its own URLs: the catalog robots.txt names, the canonical URLs.
 */
export async function launchChromium(dir: string, site: { origin: string; address: string }): Promise<LaunchedChrome> {
  const profile = join(dir, 'lighthouse-profile');
  mkdirSync(profile, { recursive: true });
  const chromeFlags = [
    '--headless=new',
    '--no-sandbox',
    '--enable-features=WebMCPTesting',
    `--host-resolver-rules=MAP ${new URL(site.origin).host} ${site.address}`,
  ];
  return launch({ chromePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', chromeFlags, userDataDir: profile });
}

/**
 * One Lighthouse run of `url` in the Chromium on `port`, in `categories`; a run whose trace or page failed
 * (NO_NAVSTART, an interstitial now and then on this machine) is run again, up to three times. `screenshot: false`
 * skips the full-page screenshot, which only the report draws (no audit scores it): a run takes 5.4 s instead of 7–10.
 * `quiet: 'short'` waits a quarter second of network and CPU quiet after load instead of Lighthouse's second (and
 * nothing after the first paint), and goes to the page without passing through about:blank first (the storage is still
 * reset, so every page is loaded cold and its layout shift is a first visit's): what the structural audits read is
 * there by then, and a run takes about 4 s instead of 5.6; the bench keeps Lighthouse's defaults, which its timings
 * need.
 */
export async function runLighthouse(
  url: string,
  port: number,
  categories: readonly string[],
  options: { screenshot?: boolean; quiet?: 'short' } = {},
): Promise<Result> {
  const flags = {
    port,
    output: 'json' as const,
    logLevel: 'error' as const,
    onlyCategories: [...categories],
    disableFullPageScreenshot: options.screenshot === false,
    ...(options.quiet === 'short'
      ? {
          pauseAfterFcpMs: 0,
          pauseAfterLoadMs: 250,
          networkQuietThresholdMs: 250,
          cpuQuietThresholdMs: 250,
          skipAboutBlank: true,
        }
      : {}),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    const lhr = (await lighthouse(url, flags, agenticConfig))?.lhr;
    if (!lhr) throw new Error(`Lighthouse gave no result for ${url}`);
    const traced = lhr.audits['cumulative-layout-shift']?.errorMessage === undefined;
    if (!lhr.runtimeError && traced) return lhr;
    console.log(`${url}: run again after ${lhr.runtimeError?.code ?? 'a run without a trace'}`);
  }
  throw new Error(`Lighthouse could not load ${url} with a trace`);
}

/** The audits of the Agentic Browsing category scored below 1, with what they say. */
export function agenticShortfalls(lhr: Result): string[] {
  return (lhr.categories[AGENTIC]?.auditRefs ?? []).flatMap((ref) => {
    const audit = lhr.audits[ref.id];
    if (!audit || audit.score === null || audit.score >= 1) return [];
    return [`${ref.id}: ${audit.score} ${audit.explanation ?? audit.displayValue ?? ''}`.trim()];
  });
}
