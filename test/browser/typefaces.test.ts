// Typefaces shipped and self-hosted (issue 49), as a phone draws them: Arabic text in the site's own IBM Plex Sans
// Arabic (or the owner's chosen family), every font file from our origin, the one worth it preloaded and used, the
// Arabic as large to the eye as the Latin beside it, and emphasis in Arabic by weight, never a slant.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { serverAndBrowser, visit } from '../helpers/browser.ts';

const { server, browser } = serverAndBrowser();

/** The font files the page fetched, by URL. */
async function fontsFetched(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .map((e) => e.name)
      .filter((name) => name.endsWith('.woff2')),
  );
}

/** Which of the page's faces drew text: family, weight and status of each face the page loaded. */
async function loadedFaces(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    await document.fonts.ready;
    return [...document.fonts]
      .filter((f) => f.status === 'loaded')
      .map((f) => `${f.family.replaceAll('"', '')} ${f.weight}`);
  });
}

describe('typefaces', () => {
  it('draws Arabic in the site’s own face, fetched from this origin, its preload used', async () => {
    for (const path of ['/ar', '/p/layla', '/ar/blog']) {
      const { page, problems } = await visit(browser(), server().url + path);
      expect(await loadedFaces(page), path).toContain('Bio Plex Arabic 400');
      const fetched = await fontsFetched(page);
      expect(fetched.length, path).toBeGreaterThan(0);
      for (const url of fetched) expect(new URL(url).origin, url).toBe(server().url);
      // The preloaded file is the one the page drew its text with (Chromium warns of a preload left unused).
      const preload = await page.getAttribute('link[rel=preload][as=font]', 'href');
      expect(
        fetched.map((u) => new URL(u).pathname),
        path,
      ).toContain(preload);
      expect(problems, path).toEqual([]);
    }
  });

  it('leaves an English page’s Latin to the system: no Latin face fetched, nothing preloaded', async () => {
    const { page } = await visit(browser(), server().url + '/en/blog');
    expect(await page.$('link[rel=preload][as=font]')).toBeNull();
    // Its one Arabic word (the language switch, العربية) fetches the Arabic face alone.
    const fetched = await fontsFetched(page);
    expect(fetched.filter((url) => !/\/font-plex-arabic-\d+-/.test(url))).toEqual([]);
  });

  it('draws an owner’s page in the family their theme chose, for both scripts', async () => {
    const { page } = await visit(browser(), server().url + '/p/qahwat-alnakheel/ar');
    const faces = await loadedFaces(page);
    expect(faces).toContain('Bio Naskh 400');
    expect(faces.filter((f) => f.startsWith('Bio Plex'))).toEqual([]);
  });

  it('sizes Arabic to match the Latin beside it: the height of its “ه” near the Latin x-height', async () => {
    const { page } = await visit(browser(), server().url + '/p/layla');
    const ratio = await page.evaluate(async () => {
      await document.fonts.load('16px "Bio Plex Arabic"', 'ه');
      const style = getComputedStyle(document.documentElement);
      const c = document.createElement('canvas').getContext('2d')!;
      const height = (stack: string, text: string) => {
        c.font = `100px ${stack}`;
        return c.measureText(text).actualBoundingBoxAscent;
      };
      return height(style.getPropertyValue('--font-arabic'), 'ه') / height(style.getPropertyValue('--font-latin'), 'x');
    });
    // Unscaled, Plex's "ه" stands at three quarters of the system's x-height (the "about 15% smaller").
    expect(ratio).toBeGreaterThan(0.82);
    expect(ratio).toBeLessThan(1.05);
  });

  it('emphasises Arabic by weight: no slant, real or made up', async () => {
    const { page } = await visit(browser(), server().url + '/ar');
    const style = await page.evaluate(() => {
      const em = document.createElement('em');
      em.textContent = 'مهم';
      document.querySelector('main')!.append(em);
      const s = getComputedStyle(em);
      return { fontStyle: s.fontStyle, fontWeight: s.fontWeight, synthesis: s.fontSynthesisStyle };
    });
    expect(style).toEqual({ fontStyle: 'normal', fontWeight: '700', synthesis: 'none' });
  });
});
