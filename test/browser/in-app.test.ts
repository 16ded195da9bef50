// Owners' pages opened inside the apps their links live in (issue 63), in Chromium with each app's user agent on iOS
// and Android: the page says which app it is in, offers a way out that opens the page itself (or the app's menu, in
// words, where no link works), a button that copies the page's link, and on a card a contact that can still be
// saved (sent to the browser, or copied as text); no button is dead, nothing is said in a browser of one's own, and
// the page loads under its CSP with no error. What each app allows: src/lib/in-app-browsers.ts, with its sources.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IN_APP_BROWSERS, targetOf, type InAppKey, type Platform } from '../../src/lib/in-app-browsers.ts';
import { axeViolations, launchChromium, visit } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const IOS =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';
const ANDROID =
  'Mozilla/5.0 (Linux; Android 16; Pixel 9 Build/BP2A.250605.031; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/139.0.7258.94 Mobile Safari/537.36';

/** Each app's user agent on each platform, as the apps send them (2025-2026 versions). */
const AGENTS: Record<InAppKey, Partial<Record<Platform, string>>> = {
  instagram: {
    ios: `${IOS} Instagram 445.0.0.38.86 (iPhone15,3; iOS 18_5; en_US; en; scale=3.00; 1290x2796; 735624163)`,
    android: `${ANDROID} Instagram 445.0.0.38.86 Android (36/16; 420dpi; 1080x2424; Google/google; Pixel 9; tokay; tokay; en_US; 735624163)`,
  },
  facebook: {
    ios: `${IOS} [FBAN/FBIOS;FBAV/520.0.0.38.101;FBBV/735624163;FBDV/iPhone15,3;FBMD/iPhone;FBSN/iOS;FBSV/18.5;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5;FBRV/0;IABMV/1]`,
    android: `${ANDROID} [FB_IAB/FB4A;FBAV/520.0.0.38.101;IABMV/1;]`,
  },
  messenger: {
    ios: `${IOS} [FBAN/MessengerForiOS;FBAV/520.0.0.38.101;FBBV/735624163;FBDV/iPhone15,3;FBMD/iPhone;FBSN/iOS;FBSV/18.5]`,
    android: `${ANDROID} [FB_IAB/Orca-Android;FBAV/520.0.0.38.101;]`,
  },
  tiktok: {
    ios: `${IOS} musical_ly_41.0.0 JsSdk/2.0 NetType/WIFI Channel/App Store ByteLocale/en Region/US`,
    android: `${ANDROID} trill_410003 JsSdk/1.0 NetType/WIFI Channel/googleplay AppName/musical_ly app_version/41.0.3 ByteLocale/en Region/US BytedanceWebview/d8a21c6`,
  },
  snapchat: {
    ios: `${IOS} Snapchat/13.50.0.43 (like Safari/8621.2.5.10.8, panda)`,
    android: `${ANDROID} Snapchat/13.50.0.43 (SM-S928B; Android 16#...#36; gzip; )`,
  },
  linkedin: {
    ios: `${IOS} [LinkedInApp]/9.31.2415`,
    android: `${ANDROID} [LinkedInApp]/4.1.1071`,
  },
  twitter: { ios: `${IOS} Twitter for iPhone/11.10` },
  threads: {
    ios: `${IOS} Barcelona 405.0.0.20.70 (iPhone15,3; iOS 18_5; en_US; en; scale=3.00; 1290x2796; 735624163)`,
    android: `${ANDROID} Barcelona 405.0.0.20.70 Android (36/16; 420dpi; 1080x2424; Google/google; Pixel 9; en_US)`,
  },
  wechat: {
    ios: `${IOS} MicroMessenger/8.0.61(0x18003d2b) NetType/WIFI Language/en`,
    android: `${ANDROID} XWEB/1380085 MMWEBSDK/20250201 MicroMessenger/8.0.61.2860(0x28003D3B) WeChat/arm64 Weixin NetType/WIFI Language/en ABI/arm64`,
  },
  line: {
    ios: `${IOS} Safari Line/15.10.1`,
    android: `${ANDROID} Line/15.10.1/IAB`,
  },
  // Telegram is told by what its browser adds to the page, or its Android mark: tested on its own below.
  telegram: {},
  gsa: { ios: `${IOS} GSA/385.0.780459087 Mobile/15E148 Safari/604.1` },
};

/** Browsers of one's own: nothing is said, and "Save contact" downloads as it does everywhere. */
const OWN_BROWSERS = {
  'Safari on iOS': `${IOS.replace('Mobile/15E148', 'Version/18.5 Mobile/15E148')} Safari/604.1`,
  'Chrome on Android':
    'Mozilla/5.0 (Linux; Android 16; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/139.0.7258.94 Mobile Safari/537.36',
};

const CASES = Object.entries(AGENTS).flatMap(([key, agents]) =>
  Object.entries(agents).map(([platform, ua]) => ({ key: key as InAppKey, platform: platform as Platform, ua })),
);

let server: TestServer;
let browser: Browser;
/** Each test's browser context (a user agent is a context's), closed after it with its connections. */
let context: BrowserContext | undefined;
beforeAll(async () => {
  server = await startTestServer();
  browser = await launchChromium();
});
afterEach(async () => {
  await context?.close();
  context = undefined;
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function open(ua: string, path: string): Promise<Page> {
  context = await browser.newContext({
    userAgent: ua,
    viewport: { width: 412, height: 915 },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const { page, problems, response } = await visit(context, server.url + path);
  expect(response?.status()).toBe(200);
  expect(problems).toEqual([]);
  return page;
}

/** What the visitor sees in the notice: its words, and each control that is not hidden. */
const shown = (page: Page) =>
  page.evaluate(() => {
    const notice = document.querySelector<HTMLElement>('[data-in-app]');
    const visible = (el: Element | null) => el instanceof HTMLElement && el.offsetParent !== null;
    const save = document.querySelector<HTMLAnchorElement>('[data-save-contact]');
    return {
      visible: visible(notice),
      says: notice?.querySelector('[data-in-app-says]')?.textContent ?? '',
      app: notice?.querySelector('[data-in-app-says] bdi')?.textContent ?? '',
      open: visible(notice?.querySelector('[data-in-app-open]') ?? null)
        ? notice!.querySelector<HTMLAnchorElement>('[data-in-app-open]')!.getAttribute('href')
        : null,
      copy: visible(notice?.querySelector('[data-in-app-copy]') ?? null),
      contactSays: visible(notice?.querySelector('[data-in-app-contact]') ?? null)
        ? (notice!.querySelector('[data-in-app-contact]')!.textContent ?? '')
        : null,
      copyContact: visible(notice?.querySelector('[data-in-app-copy-contact]') ?? null),
      save: save && visible(save) ? { href: save.getAttribute('href'), download: save.hasAttribute('download') } : null,
      controls: [...(notice?.querySelectorAll('a, button') ?? [])]
        .filter(visible)
        .map((el) => (el instanceof HTMLAnchorElement ? `a ${el.getAttribute('href') ?? ''}` : 'button')),
    };
  });

describe('in-app browsers (issue 63)', () => {
  it.each(CASES)(
    '$key on $platform: says where the visitor is, and every control works',
    async ({ key, platform, ua }) => {
      const app = IN_APP_BROWSERS[key];
      const way = app.out[platform];
      const page = await open(ua, '/c/n0rth1');
      const seen = await shown(page);
      if (way === 'browser') {
        // The app opens links in the visitor's own browser there: nothing to say.
        expect(seen.visible).toBe(false);
        return;
      }
      expect(seen.visible).toBe(true);
      expect(seen.app).toBe(app.name);
      // The way out opens the page itself, by the app's or the system's scheme; where none works, the menu, in words.
      if (way === 'none') {
        expect(seen.open).toBeNull();
        expect(seen.says).toContain('menu');
      } else {
        expect(seen.open).toMatch(way === 'intent' ? /^intent:/ : way === 'safari' ? /^x-safari-http/ : /^instagram:/);
        expect(targetOf(seen.open!)).toBe(`${server.url}/c/n0rth1`);
      }
      // No dead control: every link shown goes somewhere, every button does what it says.
      for (const control of seen.controls) expect(control).not.toBe('a ');
      expect(seen.copy).toBe(true);
      await page.click('[data-in-app-copy]');
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(`${server.url}/c/n0rth1`);
      expect(await page.textContent('[data-in-app-status]')).toBe('Link copied');
      // The contact: where a download arrives, the vCard as everywhere; else sent to the browser, or copied as text.
      if (app.downloads[platform]) {
        expect(seen.save).toEqual({ href: '/c/n0rth1.vcf', download: true });
        expect(seen.contactSays).toBeNull();
        return;
      }
      expect(seen.contactSays).toContain(app.name);
      if (way === 'none') expect(seen.save).toBeNull();
      else {
        expect(seen.save?.download).toBe(false);
        expect(targetOf(seen.save!.href!)).toBe(`${server.url}/c/n0rth1.vcf`);
      }
      expect(seen.copyContact).toBe(true);
      await page.click('[data-in-app-copy-contact]');
      await expect
        .poll(() => page.evaluate(() => navigator.clipboard.readText()))
        .toBe(
          'Dana Ortiz\nPrincipal Architect · Northwind Studio\n+971 4 000 0000\n+44 20 0000 0000\ndana@example.com\nhttps://example.com/northwind\nUnit 4, Alserkal Avenue, Dubai',
        );
      expect(await page.textContent('[data-in-app-status]')).toBe('Contact copied');
    },
  );

  it.each([
    ['Android', `${ANDROID} [FB_IAB/FB4A;FBAV/460.0.0.48.109;]`, /^intent:/],
    [
      'iOS',
      `${IOS} [FBAN/FBIOS;FBAV/465.0.0.42.107;FBBV/735624163;FBDV/iPhone15,3;FBMD/iPhone;FBSN/iOS;FBRV/0]`,
      /^x-safari-/,
    ],
  ])(
    'Facebook on %s without the newer mark (IABMV) is Facebook, not Messenger (a reviewer found it)',
    async (_, ua, way) => {
      const seen = await shown(await open(ua, '/c/n0rth1'));
      expect(seen.app).toBe('Facebook');
      expect(seen.open).toMatch(way);
    },
  );

  it("Telegram on Android, told by its user agent's mark: a way out, and the vCard as everywhere", async () => {
    const seen = await shown(
      await open(`${ANDROID} Telegram-Android/11.2.2 (Google Pixel 9; Android 16; SDK 36; HIGH)`, '/c/n0rth1'),
    );
    expect(seen.app).toBe('Telegram');
    expect(seen.open).toMatch(/^intent:/);
    expect(seen.save).toEqual({ href: '/c/n0rth1.vcf', download: true });
  });

  it("on a card, the notice leaves the name, the contacts and Save contact on a phone's first screen", async () => {
    const page = await open(AGENTS.instagram.android!, '/c/k7f2q9');
    expect((await shown(page)).visible).toBe(true);
    const bottom = await page.evaluate(
      () => document.querySelector('[data-save-contact]')!.getBoundingClientRect().bottom,
    );
    expect(bottom).toBeLessThanOrEqual(915);
  });

  it.each(Object.entries(OWN_BROWSERS))(
    '%s: nothing is said, and "Save contact" downloads the vCard',
    async (_, ua) => {
      const page = await open(ua, '/c/n0rth1');
      const seen = await shown(page);
      expect(seen.visible).toBe(false);
      expect(seen.save).toEqual({ href: '/c/n0rth1.vcf', download: true });
    },
  );

  it('Telegram, told by what its browser adds to the page: a way out and a copy, and the vCard as everywhere', async () => {
    context = await browser.newContext({ userAgent: OWN_BROWSERS['Safari on iOS'].replace(' Version/18.5', '') });
    await context.addInitScript(() => Object.assign(window, { TelegramWebviewProxy: {} }));
    const { page, problems } = await visit(context, `${server.url}/c/n0rth1`);
    expect(problems).toEqual([]);
    const seen = await shown(page);
    expect(seen.app).toBe('Telegram');
    expect(targetOf(seen.open!)).toBe(`${server.url}/c/n0rth1`);
    expect(seen.save).toEqual({ href: '/c/n0rth1.vcf', download: true });
  });

  it('an Arabic profile in Instagram: said in Arabic, right to left, the app named in isolation, no axe violation', async () => {
    const page = await open(AGENTS.instagram.ios!, '/p/layla');
    const seen = await shown(page);
    expect(seen.visible).toBe(true);
    expect(seen.says).toContain('داخل');
    expect(seen.app).toBe('Instagram');
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('[data-in-app]')!).direction)).toBe('rtl');
    expect(targetOf(seen.open!)).toBe(`${server.url}/p/layla`);
    // A profile has no contact to save.
    expect(seen.contactSays).toBeNull();
    expect(await axeViolations(page)).toEqual([]);
  });

  it('the way out is the page without what the app added to its address', async () => {
    const page = await open(AGENTS.facebook.android!, '/p/sam-rivera?fbclid=IwZXh0bgNhZW0CMTEAAR&utm_source=fb#links');
    expect(targetOf((await shown(page)).open!)).toBe(`${server.url}/p/sam-rivera`);
  });
});
