// Lighthouse's Agentic Browsing category (issue 28) on every template the Lighthouse bench measures, in one language
// each, both languages among them: each of its audits passes (the accessibility tree, WebMCP's tools and schemas,
// layout shift, llms.txt, the ARD catalog). The bench (`npm run bench -- --lighthouse`) runs all fourteen page kinds
// in every category; a template's two languages differ in text and direction, which pages.test.ts checks in both with
// axe. Debian's Chromium with WebMCP exposed, against a real sidecar seen at the site's own origin; a run without a
// trace is run again.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LaunchedChrome } from 'chrome-launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENTIC,
  agenticShortfalls,
  launchChromium,
  PAGES,
  runLighthouse,
} from '../../scripts/bench/lighthouse-run.ts';
import { testConfig } from '../helpers/env.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let chrome: LaunchedChrome;
beforeAll(async () => {
  server = await startTestServer();
  chrome = await launchChromium(mkdtempSync(join(tmpdir(), 'bio-agentic-')), {
    origin: testConfig.baseUrl,
    address: new URL(server.url).host,
  });
});
afterAll(async () => {
  chrome?.kill();
  await server?.close();
});

/** One page kind a template: the bench's second language of a template is left to the bench (ten runs, not fourteen). */
const TEMPLATES = PAGES.filter(
  ([kind]) =>
    !['profile (live, Arabic)', 'article (English)', 'blog index (Arabic)', 'search with results (English)'].includes(
      kind,
    ),
);

describe('Agentic Browsing', () => {
  it('covers every template of the bench, in both languages', () => {
    expect(TEMPLATES).toHaveLength(10);
    expect(TEMPLATES.some(([kind]) => kind.includes('Arabic'))).toBe(true);
    expect(TEMPLATES.some(([kind]) => kind.includes('English'))).toBe(true);
  });

  it.each(TEMPLATES)('%s (%s): every audit of the category passes', async (_kind, path) => {
    const lhr = await runLighthouse(testConfig.baseUrl + path, chrome.port, [AGENTIC], {
      screenshot: false,
      quiet: 'short',
    });
    expect(agenticShortfalls(lhr), path).toEqual([]);
    expect(lhr.categories[AGENTIC]?.score, path).toBe(1);
  });
});
