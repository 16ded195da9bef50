// Lighthouse's Agentic Browsing category (issue 28) on every template the Lighthouse bench measures, in one language
// each, both languages among them: each of its audits passes (the accessibility tree, WebMCP's tools and schemas,
// layout shift, llms.txt, the ARD catalog); its Accessibility category, which reads the axe run the agentic audits
// already made, at 100; and its Best practices category at 100, whose audits read the page's console (no error, no
// failed request, no CSP violation) and the browser's own issues. pages.test.ts does not load these pages again. The
// bench (`npm run bench -- --lighthouse`) runs all fourteen page kinds in every category; a template's two languages
// differ in text and direction, which pages.test.ts and card-holders.test.ts check with axe in the other. Chromium
// (Debian's) with WebMCP exposed, against a real sidecar seen at the site's own origin; a run without a trace is run
// again.
import type { LaunchedChrome } from 'chrome-launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENTIC,
  agenticShortfalls,
  launchChromium,
  TEMPLATES,
  runLighthouse,
} from '../../scripts/bench/lighthouse-run.ts';
import { testConfig } from '../helpers/env.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { temporaryFolder } from '../helpers/temporary.ts';

/** The first items an audit's table lists (a console error, a URL, an element), for the failure's message. */
function whatItFound(details: unknown): string {
  const items = (details as { items?: { description?: string; url?: string; node?: { snippet?: string } }[] })?.items;
  return (items ?? [])
    .slice(0, 3)
    .map((item) => item.description ?? item.url ?? item.node?.snippet ?? '')
    .join('; ');
}

let server: TestServer;
let chrome: LaunchedChrome;
beforeAll(async () => {
  server = await startTestServer();
  chrome = await launchChromium(temporaryFolder('bio-agentic-'), {
    origin: testConfig.baseUrl,
    address: new URL(server.url).host,
  });
});
afterAll(async () => {
  chrome?.kill();
  await server?.close();
});

describe('Agentic Browsing', () => {
  it('covers every template of the bench, in both languages', () => {
    expect(TEMPLATES).toHaveLength(11);
    expect(TEMPLATES.some(([kind]) => kind.includes('Arabic'))).toBe(true);
    expect(TEMPLATES.some(([kind]) => kind.includes('English'))).toBe(true);
  });

  it.each(TEMPLATES)(
    '%s (%s): every audit of the category passes, accessibility and best practices are 100',
    async (_kind, path) => {
      const lhr = await runLighthouse(
        testConfig.baseUrl + path,
        chrome.port,
        [AGENTIC, 'accessibility', 'best-practices'],
        { screenshot: false, quiet: 'short' },
      );
      expect(agenticShortfalls(lhr), path).toEqual([]);
      expect(lhr.categories[AGENTIC]?.score, path).toBe(1);
      for (const category of ['accessibility', 'best-practices']) {
        const failing = Object.values(lhr.audits)
          .filter((audit) => lhr.categories[category]?.auditRefs.some((ref) => ref.id === audit.id && ref.weight > 0))
          .filter((audit) => audit.score !== null && audit.score < 1)
          .map((audit) => `${audit.id}: ${audit.title} ${whatItFound(audit.details)}`);
        expect(failing, `${path} ${category}`).toEqual([]);
        expect(lhr.categories[category]?.score, `${path} ${category}`).toBe(1);
      }
    },
  );
});
