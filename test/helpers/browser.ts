// Debian's Chromium driven by playwright-core (no browser download), with the flags this machine needs.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
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
