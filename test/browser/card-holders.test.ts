// Cards and profiles in Chromium at a phone's width, light and dark, Arabic and English: no serious accessibility
// violation (colour contrast included) in either scheme, the codes open without JavaScript, and the share button
// copies the link where the browser has no share sheet. Screenshots of the card page are written to
// test-results/screenshots/ for a reviewer to look at.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, launchChromium, visit } from '../helpers/browser.ts';
import { projectRoot } from '../helpers/env.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const screenshots = join(projectRoot, 'test-results', 'screenshots');
const PHONE = { width: 412, height: 915 };

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  server = await startTestServer();
  browser = await launchChromium();
  mkdirSync(screenshots, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const pages: [string, string][] = [
  ['Arabic card', '/c/k7f2q9'],
  ['English card', '/c/n0rth1'],
  ['Arabic profile', '/p/layla'],
  ['English profile', '/p/sam-rivera'],
  // A profile and a card in two languages, each version (issue 48).
  ['bilingual profile, Arabic version', '/p/qahwat-alnakheel/ar'],
  ['bilingual profile, English version', '/p/qahwat-alnakheel/en'],
  ['bilingual card, Arabic version', '/c/nakheel1/ar'],
  ['bilingual card, English version', '/c/nakheel1/en'],
];

describe.each(['light', 'dark'] as const)('%s scheme, at 412 px', (colorScheme) => {
  let context: BrowserContext;
  beforeAll(async () => {
    context = await browser.newContext({ colorScheme, viewport: PHONE });
  });
  afterAll(() => context?.close());

  it.each(pages)(
    '%s loads under the real CSP with no console error or failed request, and no serious or critical axe violation with its codes open',
    async (name, path) => {
      const { page, problems, response } = await visit(context, server.url + path);
      expect(response?.status()).toBe(200);
      await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
      expect(await axeViolations(page), name).toEqual([]);
      // The scheme really applied: the page background follows it.
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(background === 'rgba(0, 0, 0, 0)' || background === 'rgb(255, 255, 255)', background).toBe(
        colorScheme === 'light',
      );
      // Nothing wider than the phone.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      if (path.startsWith('/c/'))
        await page.screenshot({
          path: join(screenshots, `${path.slice(3).replaceAll('/', '-')}-${colorScheme}.png`),
          fullPage: true,
        });
      expect(problems).toEqual([]);
    },
  );
});

describe('codes and sharing', () => {
  it('the codes open without JavaScript and their images load', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: PHONE });
    const page = await context.newPage();
    await page.goto(server.url + '/c/k7f2q9');
    await page.click('details.codes summary');
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll<HTMLImageElement>('details.codes img')).every(
        (img) => img.complete && img.naturalWidth > 0,
      ),
    );
    const sizes = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLImageElement>('details.codes img')).map(
        (img) => img.getBoundingClientRect().width,
      ),
    );
    expect(sizes).toHaveLength(2);
    for (const width of sizes) expect(width).toBeGreaterThan(150);
    // Without JavaScript there is no share button to press.
    expect(await page.isVisible('button[data-share-url]')).toBe(false);
    await context.close();
  });

  it('the share button copies the page URL where the browser has no share sheet, and says so', async () => {
    const context = await browser.newContext({ viewport: PHONE });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(server.url + '/c/n0rth1');
    const hasShareSheet = await page.evaluate(() => typeof navigator.share === 'function');
    await page.waitForSelector('button[data-share-url]:not([hidden])');
    if (!hasShareSheet) {
      await page.click('button[data-share-url]');
      await page.waitForFunction(() => document.querySelector('.share-status')?.textContent === 'Link copied');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('http://localhost:8080/c/n0rth1');
    }
    expect(errors).toEqual([]);
    await context.close();
  });
});
