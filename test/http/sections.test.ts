// Sections and thumbnails (issue 49), on the demo café in both languages, in every shape: links grouped under their
// section's title (translated, or marked in the profile's own language), links in no section first, a thumbnail beside
// a link's title served from our origin, and the Markdown twin with the sections as headings and no thumbnails.
import { createDocument } from '@mixmark-io/domino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const get = (path: string) => fetch(server.url + path);
const doc = async (path: string) => createDocument(await (await get(path)).text(), true);

/** Each list of links with the heading over it: its text, and the titles of its links. */
function groupsOf(d: Document): [string, string[]][] {
  return [...d.querySelectorAll('ul.profile-links')].map((ul) => [
    ul.previousElementSibling?.textContent?.trim() ?? '',
    Array.from(ul.querySelectorAll('a')).map((a) => a.textContent?.trim() ?? ''),
  ]);
}

describe('sections of links', () => {
  it('groups the links under their sections, the links in none first, in each language', async () => {
    expect(groupsOf(await doc('/p/qahwat-alnakheel/en'))).toEqual([
      ['Links', ['Order on WhatsApp']],
      ['Menu', ['Drinks menu']],
      ['Get in touch', ['Call us', 'Find us on the map']],
    ]);
    const ar = await doc('/p/qahwat-alnakheel/ar');
    expect(groupsOf(ar)).toEqual([
      ['الروابط', ['اطلب عبر واتساب']],
      ['القائمة', ['قائمة المشروبات']],
      ['تواصل معنا', ['اتصل بنا', 'موقعنا على الخريطة']],
    ]);
    // A section's title is a heading of the page, isolated like every owner string.
    expect([...ar.querySelectorAll('h2.link-section bdi')].map((b) => b.textContent)).toEqual([
      'القائمة',
      'تواصل معنا',
    ]);
  });

  it('shows a thumbnail beside a link’s title, from this site, decorative', async () => {
    const d = await doc('/p/qahwat-alnakheel/en');
    const images = [...d.querySelectorAll('.profile-links img.link-thumbnail')];
    expect(images).toHaveLength(2);
    for (const img of images) {
      expect(img.getAttribute('alt')).toBe('');
      expect(img.getAttribute('width')).toBe('40');
      const src = img.getAttribute('src') ?? '';
      expect(src).toMatch(/^\/images\/[0-9a-f]{32}-96\.jpg$/);
      const res = await get(src);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/jpeg');
      await res.arrayBuffer();
      const webp = img.parentElement?.querySelector('source')?.getAttribute('srcset') ?? '';
      expect(webp).toBe(src.replace(/\.jpg$/, '.webp'));
    }
  });

  it('gives agents the sections as headings, and no thumbnails', async () => {
    const twin = await (await get('/p/qahwat-alnakheel/en.md')).text();
    expect(twin).toContain('## Menu\n\n- [Drinks menu](https://example.com/nakheel/menu)');
    expect(twin).toContain('## Get in touch');
    expect(twin).not.toMatch(/-96\.(jpg|webp)/);
  });
});
