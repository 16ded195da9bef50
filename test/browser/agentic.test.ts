// Lighthouse's Agentic Browsing category (issue 28) on every page kind the Lighthouse bench measures: each of its
// audits passes (the accessibility tree, WebMCP's tools and schemas, layout shift, llms.txt, the ARD catalog). Debian's
// Chromium with WebMCP exposed, against a real sidecar seen at the site's own origin; a run without a trace is run
// again.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LaunchedChrome } from 'chrome-launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENTIC, agenticShortfalls, launchChromium, PAGES, runLighthouse } from '../../scripts/bench/lighthouse-run.ts';
import { testConfig } from '../helpers/env.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let chrome: LaunchedChrome;
beforeAll(async () => {
  server = await startTestServer();
  chrome = await launchChromium(mkdtempSync(join(tmpdir(), 'bio-agentic-')), { origin: testConfig.baseUrl, address: new URL(server.url).host });
});
afterAll(async () => {
  chrome?.kill();
  await server?.close();
});

describe('Agentic Browsing', () => {
  it.each(PAGES)('%s (%s): every audit of the category passes', async (_kind, path) => {
    const lhr = await runLighthouse(testConfig.baseUrl + path, chrome.port, [AGENTIC]);
    expect(agenticShortfalls(lhr), path).toEqual([]);
    expect(lhr.categories[AGENTIC]?.score, path).toBe(1);
  });
});
