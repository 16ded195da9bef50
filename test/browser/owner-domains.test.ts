// An owner's page at their own domain (issue 63), in Chromium: the name resolves to the server (as DNS would to the
// front), the page loads everything it shows from the domain under its Content-Security-Policy with no error and no
// failed request (its picture, its stylesheet and scripts, its QR code), its language switch and its card's links stay
// on the domain, and the platform's address of the page lands there.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, visit } from '../helpers/browser.ts';
import { createDatabase, demoData } from '../helpers/database.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const CAFE = 'qahwa.example';
const NORTHWIND = 'links.northwind.example';
let server: TestServer;
let browser: Browser;
let port: string;

beforeAll(async () => {
  server = await startTestServer({
    databasePath: await createDatabase({
      ...demoData,
      domains: [
        { host: CAFE, page: 'qahwat-alnakheel', cards: true },
        { host: NORTHWIND, page: 'northwind-studio', cards: true },
      ],
    }),
  });
  port = new URL(server.url).port;
  // Plain HTTP here, HTTPS in production (the front or the edge holds the certificate): the domains are treated as the
  // secure origins they are there, so that the page's headers (COOP) apply as they would.
  browser = await launchChromium([
    `--host-resolver-rules=MAP ${CAFE} 127.0.0.1, MAP ${NORTHWIND} 127.0.0.1`,
    `--unsafely-treat-insecure-origin-as-secure=http://${CAFE}:${port},http://${NORTHWIND}:${port}`,
  ]);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("an owner's page at their domain, in a browser", () => {
  it('loads whole from the domain, its picture and code shown, with no error', async () => {
    const { page, problems, response } = await visit(browser, `http://${NORTHWIND}:${port}/`);
    expect(response?.status()).toBe(200);
    expect(problems).toEqual([]);
    const avatar = page.locator('img.avatar');
    expect(await avatar.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    expect(new URL(await avatar.evaluate((img: HTMLImageElement) => img.currentSrc)).host).toBe(`${NORTHWIND}:${port}`);
    // The code (loaded lazily, folded away until asked for) loads from the domain under the page's policy.
    expect(await page.locator('img[src="/qr.svg"]').count()).toBe(1);
    const width = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const img = new Image();
          img.onload = () => resolve(img.naturalWidth);
          img.onerror = () => resolve(-1);
          img.src = '/qr.svg';
        }),
    );
    expect(width).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('its language switch leads to the other version at the domain', async () => {
    const { page, problems } = await visit(browser, `http://${CAFE}:${port}/ar`);
    expect(problems).toEqual([]);
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    await page.locator('a[hreflang="en"]').first().click();
    await page.waitForURL(`http://${CAFE}:${port}/en`);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
  });

  it("the platform's address of the page leads to the domain (its https address)", async () => {
    const page = await browser.newPage();
    try {
      const response = await page.request.get(`${server.url}/p/qahwat-alnakheel/en`, { maxRedirects: 0 });
      expect(response.status()).toBe(301);
      expect(response.headers().location).toBe(`https://${CAFE}/en`);
    } finally {
      await page.close();
    }
  });

  it("a card at the domain links its owner's page there", async () => {
    const { page, problems } = await visit(browser, `http://${CAFE}:${port}/c/nakheel1`);
    expect(problems).toEqual([]);
    const profile = page.locator('p.actions a[href="/"]');
    expect(await profile.count()).toBe(1);
    expect(await page.locator('p.actions a[download]').getAttribute('href')).toBe('/c/nakheel1.vcf');
    await profile.click();
    await page.waitForURL(`http://${CAFE}:${port}/`);
    // The printed address, in the browser's language (English here) among the café's two.
    expect(await page.title()).toMatch(/Al Nakheel Café|مقهى النخيل/);
  });
});
