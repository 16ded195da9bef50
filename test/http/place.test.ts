// A business's place and hours (issue 49): an address with map links that load nothing, the hours read in the
// place's time zone at the moment of the answer ("open now, closes at …", the coming week), LocalBusiness in the
// structured data, and no cache keeping the page past its next opening or closing. The hours are made relative to
// the moment the test runs, in a time zone where it is about noon, so that nothing depends on the hour of the run.
import { createDocument } from '@mixmark-io/domino';
import matter from 'gray-matter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, demoData } from '../helpers/database.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { calendarsOf } from '../../src/lib/special-hours.ts';

/** A fixed-offset zone where it is now between 10:00 and 12:59 (Etc/GMT-3 is three hours ahead of UTC). */
function zoneAtNoon(): { zone: string; hour: number } {
  const utc = new Date().getUTCHours();
  for (let ahead = -12; ahead <= 14; ahead++) {
    const hour = (utc + ahead + 24) % 24;
    if (hour >= 10 && hour <= 12)
      return { zone: ahead === 0 ? 'UTC' : `Etc/GMT${ahead > 0 ? '-' : '+'}${Math.abs(ahead)}`, hour };
  }
  throw new Error('no zone at noon');
}
const { zone, hour } = zoneAtNoon();
const two = (n: number) => String(n).padStart(2, '0');
/** Today's Umm al-Qura month and day in `zone` (MM-DD), and tomorrow's Gregorian date there. */
const hijriToday = (({ month, day }) => `${two(month)}-${two(day)}`)(calendarsOf(Date.now(), zone).hijri);
const tomorrow = calendarsOf(Date.now() + 86_400_000, zone).date;
/** Today's weekday in `zone`, as the opening-hours syntax writes it (Mo, Tu, …). */
const weekdayHere = new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short' })
  .format(Date.now())
  .slice(0, 2);

const databasePath = await createDatabase({
  ...demoData,
  profiles: [
    ...(demoData.profiles as object[]),
    {
      slug: 'open-now',
      name: 'Open Now Bakery',
      lang: 'en',
      kind: 'organization',
      place: {
        address: '1 High Street, Anytown',
        geo: { lat: 51.5, lon: -0.12 },
        openingHours: `Mo-Su 08:00-${two(hour + 3)}:00`,
        timeZone: zone,
      },
    },
    {
      // Today by its Hijri date (whatever it is) an hour in the morning, already past; tomorrow by its Gregorian date
      // closed, with the owner's name for it (issue 62).
      slug: 'special-days',
      name: 'Special Days Bakery',
      lang: 'en',
      kind: 'organization',
      place: {
        address: '3 Mill Lane, Anytown',
        openingHours: 'Mo-Su 08:00-20:00',
        timeZone: zone,
        specialHours: [
          { hijri: hijriToday, hours: '06:00-07:00' },
          { dates: tomorrow, hours: 'closed', label: 'National Day' },
        ],
      },
    },
    {
      // Open an hour a week, on this weekday, in the morning: past now, so next open a week from today.
      slug: 'next-week',
      name: 'Once a Week Market',
      lang: 'en',
      kind: 'organization',
      place: { address: '2 Market Square, Anytown', openingHours: `${weekdayHere} 08:00-09:00`, timeZone: zone },
    },
    {
      slug: 'closed-now',
      name: 'مخبز مغلق',
      lang: 'ar',
      kind: 'organization',
      place: { address: 'شارع الملك فهد', openingHours: `Mo-Su ${two(hour + 2)}:00-23:00`, timeZone: zone },
    },
  ],
});

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ databasePath });
});
afterAll(() => server.close());

const get = (path: string) => fetch(server.url + path, { redirect: 'manual' });
const doc = async (path: string) => createDocument(await (await get(path)).text(), true);

describe('a place with its hours', () => {
  it('says it is open now and when it closes, in its own time zone, and lists the coming week', async () => {
    const d = await doc('/p/open-now');
    expect(d.querySelector('.open-now')?.textContent?.trim()).toBe(`Open now · closes at ${two(hour + 3)}:00`);
    const rows = [...d.querySelectorAll('.hours tbody tr')];
    expect(rows).toHaveLength(7);
    for (const row of rows) expect(row.querySelector('td')?.textContent?.trim()).toBe(`08:00–${two(hour + 3)}:00`);
    expect(d.querySelector('.address')?.textContent?.trim()).toBe('1 High Street, Anytown');
  });

  it('says it is closed and when it opens, in Arabic, with the numerals the site writes', async () => {
    const d = await doc('/p/closed-now');
    expect(d.querySelector('.open-now')?.textContent?.trim()).toBe(`مغلق الآن · يفتح الساعة ${two(hour + 2)}:00`);
    expect(d.querySelector('.place h2')?.textContent?.trim()).toBe('أين تجدنا');
  });

  it('links to the place on maps the page never loads, and names no other host in what it loads', async () => {
    const d = await doc('/p/open-now');
    const links = [...d.querySelectorAll('.map-links a')].map((a) => a.getAttribute('href') ?? '');
    expect(links[0]).toBe('geo:51.5,-0.12');
    expect(links.slice(1).map((href) => new URL(href).host)).toEqual([
      'www.openstreetmap.org',
      'maps.apple.com',
      'www.google.com',
    ]);
    // No frame, image or script of another host: the maps are links only.
    for (const el of d.querySelectorAll('img, iframe, script[src], link[rel="preconnect"]'))
      expect(el.getAttribute('src') ?? el.getAttribute('href') ?? '').not.toMatch(/^https?:/);
    // Without coordinates, the links search the address.
    const closed = await doc('/p/closed-now');
    expect(closed.querySelector('.map-links a[lang="en"]')?.getAttribute('href')).toContain(
      'openstreetmap.org/search?query=',
    );
  });

  it('is a LocalBusiness with its coordinates and a specification a day of the coming week', async () => {
    const d = await doc('/p/open-now');
    const graph = (
      JSON.parse(d.querySelector('script[type="application/ld+json"]')?.textContent ?? '{}') as {
        '@graph': Record<string, unknown>[];
      }
    )['@graph'];
    const business = graph.find((n) => n['@type'] === 'LocalBusiness')!;
    expect(business).toMatchObject({
      address: '1 High Street, Anytown',
      geo: { '@type': 'GeoCoordinates', latitude: 51.5, longitude: -0.12 },
    });
    const specs = business.openingHoursSpecification as { dayOfWeek: string; opens: string; closes: string }[];
    expect(specs).toHaveLength(7);
    expect(new Set(specs.map((s) => s.dayOfWeek)).size).toBe(7);
    expect(specs[0]).toMatchObject({ opens: '08:00', closes: `${two(hour + 3)}:00` });
  });

  it('is kept by no cache past its next closing, and its Markdown twin carries the hours as a table', async () => {
    const res = await get('/p/open-now');
    const maxAge = Number(/max-age=(\d+)/.exec(res.headers.get('cdn-cache-control') ?? '')?.[1]);
    // It closes in at most three hours (it is between 10:00 and 12:59 there now).
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(3 * 3600);
    const twin = matter(await (await get('/p/open-now.md')).text()).content;
    expect(twin).toContain('| Day | Hours |');
    expect(twin).toContain(`Open now · closes at ${two(hour + 3)}:00`);
    expect(twin).not.toContain('geo:');
    // Read later, the twin still says what "open now" was said for and until when (issue 62), in the place's time.
    const said = /Hours in (\S+) time\. Open or closed as of (\S+); that holds until (\S+)\./.exec(twin);
    expect(said?.[1]).toBe(zone);
    const offset =
      zone === 'UTC' ? '+00:00' : `${zone.includes('-') ? '+' : '-'}${two(Number(zone.replace(/^\D+/, '')))}:00`;
    expect(Math.abs(Date.parse(said![2]!) - Date.now())).toBeLessThan(120_000);
    expect(said?.[2]?.endsWith(offset)).toBe(true);
    expect(said?.[3]).toMatch(new RegExp(`T${two(hour + 3)}:00\\${offset}$`));
  });

  it("marks today's row of the week", async () => {
    const rows = [...(await doc('/p/open-now')).querySelectorAll('.hours tbody tr')];
    const today = new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'long' }).format(Date.now());
    expect(
      rows
        .filter((row) => row.getAttribute('aria-current') === 'date')
        .map((row) => row.querySelector('th')?.textContent),
    ).toEqual([today]);
  });

  it('names the date of an opening a week away, not a weekday that reads as this one', async () => {
    const next = Date.now() + 7 * 86_400_000;
    const day = new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'long' }).format(next);
    const date = new Intl.DateTimeFormat('en-GB', { timeZone: zone, day: 'numeric', month: 'long' }).format(next);
    expect((await doc('/p/next-week')).querySelector('.open-now')?.textContent?.trim()).toBe(
      `Closed now · opens ${day} ${date} at 08:00`,
    );
  });
});

describe("a business's first taps (issue 62)", () => {
  it('puts open now and Call, WhatsApp and Directions above the links, from what the owner gave', async () => {
    const d = await doc('/p/qahwat-alnakheel/en');
    const taps = [...d.querySelectorAll('.first-taps a')].map((a) => [a.textContent?.trim(), a.getAttribute('href')]);
    expect(taps).toEqual([
      ['Call', 'tel:+966500000001'],
      ['WhatsApp', 'https://wa.me/966500000001'],
      ['Directions', 'https://www.google.com/maps/dir/?api=1&destination=24.6942%2C46.6853'],
    ]);
    // Said once, at the top: before the first of the owner's links, not again in the place's section.
    const order = [...d.querySelectorAll('.open-now, .profile-links, .place')].map((e) => e.className);
    expect(order).toEqual(['open-now', 'profile-links', 'profile-links', 'profile-links', 'place']);
    expect(d.querySelector('.first-taps')?.getAttribute('aria-label')).toBe('Contact and directions');
    const ar = await doc('/p/qahwat-alnakheel/ar');
    expect([...ar.querySelectorAll('.first-taps a')].map((a) => a.textContent?.trim())).toEqual([
      'اتصال',
      'واتساب',
      'الاتجاهات',
    ]);
  });

  it("are not on a person's page, and the Markdown twin keeps the links once, not the shortcuts", async () => {
    const person = await doc('/p/layla');
    expect(person.querySelectorAll('.profile-links a').length).toBeGreaterThan(0);
    expect(person.querySelectorAll('.first-taps').length).toBe(0);
    const twin = matter(await (await get('/p/qahwat-alnakheel/en.md')).text()).content;
    expect(twin).not.toContain('maps/dir');
    expect(twin.match(/wa\.me\/966500000001/g)).toHaveLength(1);
    expect(twin.match(/Open now|Closed now/g)).toHaveLength(1);
  });

  it('draws special hours by Hijri and Gregorian dates in the week, names them, and gives them to schema.org', async () => {
    const d = await doc('/p/special-days');
    const rows = [...d.querySelectorAll('.hours tbody tr')].map((row) => row.querySelector('td')?.textContent?.trim());
    expect(rows[0]).toBe('06:00–07:00, Special hours');
    expect(rows[1]).toBe('Closed, National Day');
    expect(rows[2]).toBe('08:00–20:00');
    // It is about noon there: past today's special hour, closed until the day after tomorrow (tomorrow is closed).
    expect(d.querySelector('.open-now')?.textContent?.trim()).toMatch(/^Closed now · opens \S+ at 08:00$/);
    const graph = JSON.parse(d.querySelector('script[type="application/ld+json"]')?.textContent ?? '{}') as {
      '@graph': Record<string, unknown>[];
    };
    const business = graph['@graph'].find((node) => 'openingHoursSpecification' in node)!;
    const today = calendarsOf(Date.now(), zone).date;
    expect(business.specialOpeningHoursSpecification).toEqual([
      { '@type': 'OpeningHoursSpecification', validFrom: today, validThrough: today, opens: '06:00', closes: '07:00' },
      {
        '@type': 'OpeningHoursSpecification',
        validFrom: tomorrow,
        validThrough: tomorrow,
        opens: '00:00',
        closes: '00:00',
      },
    ]);
    expect((business.openingHoursSpecification as unknown[]).length).toBe(5);
  });
});
