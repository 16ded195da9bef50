// Debian's Chromium driven by playwright-core (no browser download), with the flags this machine needs.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type ConsoleMessage,
  type Page,
  type Request,
  type Response,
} from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer } from './server.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      ...extraArgs,
    ],
  });
}

/** A real server and Debian's Chromium for a browser suite, started before its tests and stopped after them. */
export function serverAndBrowser(extraArgs: string[] = []): { server: () => TestServer; browser: () => Browser } {
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchChromium(extraArgs);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  return { server: () => server!, browser: () => browser! };
}

/** Each browser's (or context's) one tab, and how to stop gathering the problems of the page it shows. */
const tabs = new WeakMap<Browser | BrowserContext, Promise<Page>>();
const stopListening = new WeakMap<Page, () => void>();

/**
 * Opens `url` in the one tab of `target` (a browser, or a context with its own scheme or viewport), opened on first use
 * and kept: a new tab and the browser context playwright makes for it cost Chromium about four times the CPU of a
 * navigation in a tab already open (1.2 s against 0.3 s a page on this machine kind), and every test paid it. The tab
 * first goes to about:blank with nothing listening, so that what the last page still had loading is not this one's
 * problem; from then on `problems` gathers its console errors (but those `ignore` matches), uncaught exceptions and
 * failed requests, until the next visit. The document is new at each visit; cookies and storage are the tab's.
 */
export async function visit(
  target: Browser | BrowserContext,
  url: string,
  ignore: (consoleError: string) => boolean = () => false,
): Promise<{ page: Page; problems: string[]; response: Response | null }> {
  let opened = tabs.get(target);
  if (!opened) {
    opened = target.newPage();
    tabs.set(target, opened);
  }
  const page = await opened;
  stopListening.get(page)?.();
  await page.goto('about:blank');
  const problems: string[] = [];
  const onConsole = (m: ConsoleMessage) => m.type() === 'error' && !ignore(m.text()) && problems.push(m.text());
  const onError = (e: Error) => problems.push(e.message);
  const onFailed = (r: Request) => problems.push(`failed ${r.url()}`);
  page.on('console', onConsole);
  page.on('pageerror', onError);
  page.on('requestfailed', onFailed);
  stopListening.set(page, () => {
    page.off('console', onConsole);
    page.off('pageerror', onError);
    page.off('requestfailed', onFailed);
  });
  const response = await page.goto(url);
  await page.waitForLoadState('load');
  return { page, problems, response };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations on the page as loaded. axe is evaluated through the DevTools protocol,
 * which the page's CSP does not govern (a <script> tag would need the CSP bypassed, and a second load of the page).
 */
export async function axeViolations(page: Page): Promise<{ id: string; impact: string; nodes: number }[]> {
  const violations = await page.evaluate(`${axeSource}
    axe.run().then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))`);
  return (violations as { id: string; impact: string; nodes: number }[]).filter(
    (v) => v.impact === 'serious' || v.impact === 'critical',
  );
}
