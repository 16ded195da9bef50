// The database as it lives: imported by the CLI (a separate process) while the server runs, moved away, restored.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import matter from 'gray-matter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../helpers/database.ts';
import { cleanEnv, expectedLiveness, projectRoot } from '../helpers/env.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { xmllintSitemap } from '../../scripts/validators.ts';
import { pathOf } from '../../src/lib/surface.ts';

const base = 'http://localhost:8080';

function cli(databasePath: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [join(projectRoot, 'scripts/db.ts'), ...args], {
    env: cleanEnv({ DATABASE_PATH: databasePath }),
    encoding: 'utf8',
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

function importJson(databasePath: string, data: unknown) {
  const file = join(dirname(databasePath), `import-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(data));
  return cli(databasePath, 'import', file);
}

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('npm run db', () => {
  it('seeds the demo data into a new file, and migrate is idempotent', async () => {
    const path = join(dirname(await createDatabase({})), 'fresh.db');
    const seed = cli(path, 'seed-demo');
    expect(seed.status, seed.out).toBe(0);
    expect(seed.out).toContain('5 profiles, 4 cards, 2 aliases');
    const before = sha(path);
    expect(cli(path, 'migrate').status).toBe(0);
    expect(sha(path)).toBe(before);
  });

  function importText(databasePath: string, text: string) {
    const file = join(dirname(databasePath), `import-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, text);
    return cli(databasePath, 'import', file);
  }

  it("prints the week it understood, day by day, in the owner's language (issue 62)", async () => {
    const path = await createDatabase();
    const r = importJson(path, {
      profiles: [
        {
          slug: 'late-cafe',
          name: 'مقهى السهر',
          lang: 'ar',
          place: { openingHours: 'Sa-Th 07:00-01:00, Fr 14:00-01:00', timeZone: 'Asia/Riyadh' },
        },
        {
          slug: 'day-shop',
          name: 'Day Shop',
          lang: 'en',
          place: { openingHours: 'Mo-Fr 09:00-17:00', timeZone: 'Europe/London' },
        },
        {
          slug: 'always-open',
          name: 'Always Open',
          lang: 'en',
          place: { openingHours: '24/7', timeZone: 'Asia/Riyadh' },
        },
      ],
    });
    expect(r.status, r.out).toBe(0);
    // Every day once, Thursday's night whole, Friday's own hours, in Arabic for the Arabic profile.
    const arabic = r.out.slice(r.out.indexOf('late-cafe'), r.out.indexOf('day-shop'));
    for (const day of ['السبت', 'الأحد', 'الاثنين', 'الثلاثاء', 'الأربعاء', 'الخميس', 'الجمعة'])
      expect(arabic.split(day).length, `${day} in ${arabic}`).toBe(2);
    expect(arabic).toMatch(/الخميس[^\n]*07:00–01:00/);
    expect(arabic).toMatch(/الجمعة[^\n]*14:00–01:00/);
    const english = r.out.slice(r.out.indexOf('day-shop'), r.out.indexOf('always-open'));
    // Open around the clock: every day whole, in words (an owner's try: 24/7 was drawn closed all week).
    expect(r.out.slice(r.out.indexOf('always-open')).match(/: Open 24 hours$/gm)).toHaveLength(7);
    expect(english).toMatch(/Monday[^\n]*09:00–17:00/);
    expect(english).toMatch(/Saturday[^\n]*Closed/);
  });

  it('takes a file that starts with a UTF-8 byte-order mark, as Windows editors save it (RFC 8259 §8.1)', async () => {
    const path = await createDatabase();
    const r = importText(
      path,
      '\uFEFF' + JSON.stringify({ profiles: [{ slug: 'bom-saved', name: 'محفوظ بعلامة', lang: 'ar' }] }),
    );
    expect(r.status, r.out).toBe(0);
    expect(
      new Database(path, { readonly: true })
        .prepare('SELECT name FROM profiles WHERE slug = ?')
        .pluck()
        .get('bom-saved'),
    ).toBe('محفوظ بعلامة');
  });

  it('refuses a translation into the record’s own language, an unserved one, an untranslatable field or a link it does not have, naming each, and writes nothing (issue 48)', async () => {
    const path = await createDatabase();
    const before = sha(path);
    const links = [{ title: 'القائمة', url: 'https://example.com/Menu' }];
    const r = importJson(path, {
      profiles: [
        { slug: 'own-language', name: 'ا', lang: 'ar', translations: { ar: { name: 'ب' } } },
        { slug: 'unserved', name: 'ا', lang: 'ar', translations: { fr: { name: 'Café' } } },
        { slug: 'not-translatable', name: 'ا', lang: 'ar', translations: { en: { name: 'A', slug: 'a-en' } } },
        {
          slug: 'other-link',
          name: 'ا',
          lang: 'ar',
          links,
          translations: { en: { links: { 'https://x.example/': 'X' } } },
        },
        { slug: 'empty', name: 'ا', lang: 'ar', translations: { en: {} } },
        { slug: 'hostile', name: 'ا', lang: 'ar', translations: { en: { name: 'Ev\u202eil' } } },
        // Matched by the link's URL however it is written: accepted.
        {
          slug: 'fine',
          name: 'ا',
          lang: 'ar',
          links,
          translations: { en: { links: { 'https://EXAMPLE.com/Menu': 'Menu' } } },
        },
      ],
      cards: [{ cardId: 'card-phones', mode: 'page', lang: 'en', name: 'A', translations: { ar: { phones: [] } } }],
    });
    expect(r.status, r.out).toBe(1);
    expect(r.out).toContain('nothing was written');
    for (const line of [
      'profiles[0] (slug "own-language").translations.ar: is this record\'s own language (lang "ar"): a translation is into another language',
      'profiles[1] (slug "unserved").translations.fr: is not a language this site serves: a translation is into "ar" (Arabic) or "en" (English)',
      'profiles[2] (slug "not-translatable").translations.en.slug "a-en": is not translatable: a profile\'s translations hold name, bio, address, links, sections',
      'profiles[3] (slug "other-link").translations.en.links["https://x.example/"] "X": names no link of this profile',
      'profiles[4] (slug "empty").translations.en: translates nothing: give at least one of name, bio, address, links, sections',
      'profiles[5] (slug "hostile").translations.en.name "Ev\\u202eil": contains the invisible character U+202E',
      'cards[0] (cardId "card-phones").translations.ar.phones: is not translatable: a card\'s translations hold name, title, organization, address',
    ])
      expect(r.out).toContain(line);
    expect(r.out).not.toContain('"fine"');
    expect(sha(path)).toBe(before);
  });

  it('refuses a place whose hours, time zone or coordinates are not ones, naming each, and writes nothing (issue 49)', async () => {
    const path = await createDatabase();
    const before = sha(path);
    const r = importJson(path, {
      profiles: [
        { slug: 'bad-hours', name: 'A', lang: 'en', place: { openingHours: 'Mo-Zz 9 to 5', timeZone: 'Asia/Riyadh' } },
        {
          slug: 'bad-zone',
          name: 'A',
          lang: 'en',
          place: { openingHours: 'Mo-Fr 08:00-17:00', timeZone: 'Mars/Olympus' },
        },
        { slug: 'no-zone', name: 'A', lang: 'en', place: { openingHours: 'Mo-Fr 08:00-17:00' } },
        { slug: 'bad-geo', name: 'A', lang: 'en', place: { geo: { lat: 91, lon: 0 } } },
        { slug: 'empty-place', name: 'A', lang: 'en', place: {} },
        // Holidays are a country's calendar, which nothing here knows: refused alike with coordinates or without,
        // in words, not the library's "submit a pull request" (which it also printed to the import's stderr).
        {
          slug: 'holidays-here',
          name: 'A',
          lang: 'en',
          place: { geo: { lat: 24.7, lon: 46.7 }, openingHours: 'Mo-Fr 08:00-12:00; PH off', timeZone: 'Asia/Riyadh' },
        },
        {
          slug: 'holidays',
          name: 'A',
          lang: 'en',
          place: { openingHours: 'Mo-Fr 08:00-12:00; SH off', timeZone: 'Asia/Riyadh' },
        },
      ],
      cards: [{ cardId: 'card-place', mode: 'page', name: 'A', place: { address: 'x' } }],
    });
    expect(r.status, r.out).toBe(1);
    for (const line of [
      'profiles[0] (slug "bad-hours").place.openingHours "Mo-Zz 9 to 5": is not opening hours in OpenStreetMap\'s syntax',
      'profiles[1] (slug "bad-zone").place.timeZone "Mars/Olympus": is not a time zone: give an IANA name',
      'profiles[2] (slug "no-zone").place.timeZone: is needed with openingHours',
      'profiles[3] (slug "bad-geo").place.geo.lat 91:',
      'profiles[4] (slug "empty-place").place: says nothing',
      'profiles[5] (slug "holidays-here").place.openingHours "Mo-Fr 08:00-12:00; PH off": names public holidays (PH)',
      'profiles[6] (slug "holidays").place.openingHours "Mo-Fr 08:00-12:00; SH off": names school holidays (SH)',
      'cards[0] (cardId "card-place").place',
    ])
      expect(r.out).toContain(line);
    expect(r.out).not.toMatch(/pull request|error occurred/i);
    expect(sha(path)).toBe(before);
  });

  it('refuses a theme that is no colour, no style or a ground nothing reads on, naming the record, the field, the colours and the ratio, and writes nothing (issue 49)', async () => {
    const path = await createDatabase();
    const before = sha(path);
    const r = importJson(path, {
      profiles: [
        { slug: 'not-a-colour', name: 'A', lang: 'en', theme: { accent: 'brownish' } },
        { slug: 'see-through', name: 'A', lang: 'en', theme: { accent: 'rgb(139 69 19 / 50%)' } },
        { slug: 'no-such-fill', name: 'A', lang: 'en', theme: { buttons: { fill: 'glass' } } },
        {
          slug: 'unreadable',
          name: 'A',
          lang: 'en',
          theme: { background: { gradient: ['#000000', '#ffffff'] } },
        },
        { slug: 'empty-theme', name: 'A', lang: 'en', theme: {} },
        { slug: 'css-in-a-colour', name: 'A', lang: 'en', theme: { accent: 'red;}body{display:none' } },
      ],
      cards: [
        { cardId: 'card-theme', mode: 'page', name: 'A', theme: { background: 'url(https://x.example/a.png)' } },
        { cardId: 'card-backdrop', mode: 'page', name: 'A', theme: { background: { image: '/etc/passwd' } } },
      ],
    });
    expect(r.status, r.out).toBe(1);
    for (const line of [
      'profiles[0] (slug "not-a-colour").theme.accent "brownish": is not a CSS colour',
      'profiles[1] (slug "see-through").theme.accent "rgb(139 69 19 / 50%)": is not opaque',
      'profiles[2] (slug "no-such-fill").theme.buttons.fill "glass":',
      'profiles[3] (slug "unreadable").theme.background: has no text colour that reads on all of it: the best, "#000000", is 1:1 on "#000000" where 4.5:1 is needed',
      'profiles[4] (slug "empty-theme").theme: says nothing',
      'profiles[5] (slug "css-in-a-colour").theme.accent "red;}body{display:none": is not a CSS colour',
      'cards[0] (cardId "card-theme").theme.background',
      'cards[1] (cardId "card-backdrop").theme.background',
    ])
      expect(r.out).toContain(line);
    expect(sha(path)).toBe(before);
  });

  it('writes a theme whose accent would not read, and says which colour each scheme draws instead (issue 49)', async () => {
    const path = await createDatabase();
    const r = importJson(path, {
      profiles: [{ slug: 'yellow', name: 'A', lang: 'en', theme: { accent: '#ffcc00' } }],
    });
    expect(r.status, r.out).toBe(0);
    expect(r.out).toMatch(
      /profiles\[0\] \(slug "yellow"\)\.theme\.accent "#ffcc00" is 1\.5:1 on "#ffffff" where 4\.5:1 is needed: the light scheme will use "#[0-9a-f]{6}"/,
    );
    // Dark enough on the dark ground: nothing said of the dark scheme.
    expect(r.out).not.toContain('the dark scheme');
  });

  it('takes a background image as avatars are taken, judges the accent over its tones, and refuses bytes that are no image (issue 49)', async () => {
    const path = await createDatabase();
    const folder = dirname(path);
    copyFileSync(join(projectRoot, 'scripts/demo-images/layla-backdrop.jpg'), join(folder, 'backdrop.jpg'));
    writeFileSync(join(folder, 'not-an-image.jpg'), 'plain text, not a picture');
    const before = sha(path);
    const refused = importJson(path, {
      cards: [
        { cardId: 'card-backdrop', mode: 'page', name: 'A', theme: { background: { image: 'not-an-image.jpg' } } },
      ],
    });
    expect(refused.status, refused.out).toBe(1);
    expect(refused.out).toContain('cards[0] (cardId "card-backdrop").theme.background.image "not-an-image.jpg":');
    expect(sha(path)).toBe(before);
    // Over the teal and sand of the picture, a teal accent would not read in the dark scheme: said, and written.
    const taken = importJson(path, {
      cards: [
        {
          cardId: 'card-backdrop',
          mode: 'page',
          name: 'A',
          theme: { accent: '#0a6b5d', background: { image: 'backdrop.jpg' } },
        },
      ],
    });
    expect(taken.status, taken.out).toBe(0);
    expect(taken.out).toMatch(
      /cards\[0\] \(cardId "card-backdrop"\)\.theme\.accent "#0a6b5d" is [\d.]+:1 on "#[0-9a-f]{6}" where 4\.5:1 is needed: the dark scheme will use/,
    );
    const db = new Database(path, { readonly: true });
    const theme = JSON.parse(
      (db.prepare("SELECT theme FROM cards WHERE card_id = 'card-backdrop'").get() as { theme: string }).theme,
    ) as { background: { image: string; tones: string[] } };
    const files = db.prepare('SELECT name FROM images WHERE name LIKE ?').all(`${theme.background.image}-w%`);
    db.close();
    expect(theme.background.tones).toHaveLength(2);
    expect(files.map((f) => (f as { name: string }).name).sort()).toEqual(
      ['w1600.jpg', 'w1600.webp', 'w800.jpg', 'w800.webp'].map((f) => `${theme.background.image}-${f}`),
    );
  });

  it('refuses a section translated that the profile does not have, a title too long, and a thumbnail that is no image, naming each, and writes nothing (issue 49)', async () => {
    const path = await createDatabase();
    const before = sha(path);
    const notAnImage = join(dirname(path), 'not-an-image.png');
    writeFileSync(notAnImage, 'plain text, not a picture');
    const r = importJson(path, {
      profiles: [
        {
          slug: 'sectioned',
          name: 'A',
          lang: 'en',
          links: [{ title: 'A', url: 'https://a.example/', section: 'Drinks' }],
          translations: { ar: { sections: { Food: 'طعام' } } },
        },
        {
          slug: 'long-section',
          name: 'A',
          lang: 'en',
          links: [{ title: 'B', url: 'https://b.example/', section: 'x'.repeat(61) }],
        },
      ],
    });
    expect(r.status, r.out).toBe(1);
    for (const line of [
      'profiles[0] (slug "sectioned").translations.ar.sections.Food "طعام": names no section of this profile',
      'profiles[1] (slug "long-section").links[0].section',
    ])
      expect(r.out).toContain(line);
    expect(sha(path)).toBe(before);
    // The image is judged by its bytes, and refused by its record, link and field.
    const again = importJson(path, {
      profiles: [
        {
          slug: 'sectioned',
          name: 'A',
          lang: 'en',
          links: [{ title: 'C', url: 'https://c.example/', thumbnailUrl: 'not-an-image.png' }],
        },
      ],
    });
    expect(again.status, again.out).toBe(1);
    expect(again.out).toContain('profiles[0] (slug "sectioned").links[0].thumbnailUrl "not-an-image.png":');
    expect(sha(path)).toBe(before);
  });

  it('refuses a record that gives a key twice, naming the record and the key, and writes nothing', async () => {
    const path = await createDatabase();
    const before = sha(path);
    const text = `{"profiles": [
      {"slug": "twice-a", "name": "First", "lang": "en"},
      {"slug": "twice-b", "name": "Second", "lang": "en", "slug": "twice-c", "links": [{"title": "t", "url": "https://a.example/", "url": "https://b.example/"}]}
    ], "cards": [], "cards": []}`;
    const r = importText(path, text);
    expect(r.status, r.out).toBe(1);
    expect(r.out).toContain('nothing was written');
    expect(r.out).toContain('profiles[1] (slug "twice-c").slug: the key "slug" is given twice (line 3)');
    expect(r.out).toContain('profiles[1] (slug "twice-c").links[0].url: the key "url" is given twice (line 3)');
    expect(r.out).toContain('cards: the key "cards" is given twice (line 4)');
    expect(sha(path)).toBe(before);
  });

  it('a refused import into a database that did not exist leaves no file behind (issue 27)', async () => {
    const scratch = dirname(await createDatabase({}));
    const folder = join(scratch, 'not-yet');
    const path = join(folder, 'bio.db');
    const file = join(scratch, 'bad.json');
    writeFileSync(file, JSON.stringify({ profiles: [{ slug: 'Not A Slug', name: 'x', lang: 'en' }] }));
    const r = cli(path, 'import', file);
    expect(r.status, r.out).toBe(1);
    expect(r.out).toContain('nothing was written');
    // Not a file with a schema and no rows, nor its folder: the next `npm start` would serve that empty database.
    expect(existsSync(path)).toBe(false);
    expect(existsSync(folder)).toBe(false);
  });

  it('rejects a file with bad records, names each record and field, and writes nothing', async () => {
    const path = await createDatabase();
    const before = sha(path);
    const bad = {
      profiles: [
        { slug: 'ok-profile', name: 'Fine', lang: 'en' },
        { slug: 'Not A Slug', name: 'x', lang: 'en' },
        {
          slug: 'bad-link',
          name: 'y',
          lang: 'ar',
          links: [{ title: 't', url: 'javascript:alert(1)' }],
          avatarUrl: 'ftp://x.example/a.png',
        },
      ],
      cards: [
        { cardId: 'good-card', mode: 'page', name: 'Card', profile: 'nobody' },
        { cardId: 'redir1', mode: 'redirect', redirectUrl: 'data:text/html,hi' },
      ],
      aliases: [
        { alias: 'blog', page: 'layla' },
        { alias: 'mine', page: 'ghost' },
      ],
    };
    const r = importJson(path, bad);
    expect(r.status).toBe(1);
    expect(r.out).toContain('nothing was written');
    for (const expected of [
      'profiles[1] (slug "Not A Slug").slug',
      'profiles[2] (slug "bad-link").links[0].url',
      'profiles[2] (slug "bad-link").avatarUrl',
      'cards[1] (cardId "redir1").redirectUrl',
      'aliases[0] (alias "blog").alias "blog": is reserved',
    ]) {
      expect(r.out).toContain(expected);
    }
    expect(sha(path)).toBe(before);
  });

  it('takes an image beside the file; refuses one from a private address unless told to fetch there, saying so', async () => {
    const path = await createDatabase();
    const before = sha(path);
    // Nothing listens on port 1 of loopback: with the option, the fetch is tried and refused by the host.
    const data = {
      profiles: [{ slug: 'pictured', name: 'Pictured', lang: 'en', avatarUrl: 'http://127.0.0.1:1/a.jpg' }],
    };
    const refused = importJson(path, data);
    expect(refused.status).toBe(1);
    expect(refused.out).toMatch(/import-\w+\.json: nothing was written; 1 problem:/);
    expect(refused.out).toContain(
      'profiles[0] (slug "pictured").avatarUrl "http://127.0.0.1:1/a.jpg": its host is a private, loopback or link-local address, which an import does not fetch from',
    );
    const file = join(dirname(path), 'private.json');
    writeFileSync(file, JSON.stringify(data));
    const tried = cli(path, 'import', file, '--allow-private-hosts');
    expect(tried.status).toBe(1);
    expect(tried.out).toContain('its host refused the connection');
    expect(cli(path, 'import', file, '--allow-privat-hosts').out).toContain('Unknown option --allow-privat-hosts');
    expect(sha(path)).toBe(before);
    // A file beside the import file is taken, and the profile shows it.
    copyFileSync(join(projectRoot, 'scripts/demo-images/sam-rivera.jpg'), join(dirname(path), 'sam.jpg'));
    const taken = importJson(path, { profiles: [{ ...data.profiles[0], avatarUrl: 'sam.jpg' }] });
    expect(taken.status, taken.out).toBe(0);
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT avatar_image FROM profiles WHERE slug = 'pictured'").get()).toEqual({
      avatar_image: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    db.close();
  });

  it('names broken references (after the format is valid) and writes nothing', async () => {
    const path = await createDatabase();
    const before = sha(path);
    const r = importJson(path, {
      cards: [{ cardId: 'good-card', mode: 'page', name: 'Card', profile: 'nobody' }],
      aliases: [{ alias: 'mine', page: 'ghost' }],
    });
    expect(r.status).toBe(1);
    expect(r.out).toContain('cards[0] (cardId "good-card").profile: no profile "nobody"');
    expect(r.out).toContain('aliases[0] (alias "mine").page: no profile "ghost"');
    expect(sha(path)).toBe(before);
  });

  // Issue 36: a file nested 200,000 deep ended in an uncaught RangeError and a stack trace.
  it('refuses a file nested deeper than any import needs, saying so, without a stack trace', async () => {
    const path = await createDatabase();
    const before = sha(path);
    const r = importText(path, `{"profiles": ${'['.repeat(200_000)}${']'.repeat(200_000)}}`);
    expect(r.status, r.out).toBe(1);
    expect(r.out).toMatch(/nested/);
    expect(r.out).not.toMatch(/RangeError|\n[ \t]+at /);
    expect(sha(path)).toBe(before);
  });

  // Issue 36: bytes that are not UTF-8 were imported as U+FFFD, silently.
  it('refuses a file that is not UTF-8, naming the line and byte, and writes nothing', async () => {
    const path = await createDatabase();
    const before = sha(path);
    const file = join(dirname(path), 'latin1.json');
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from('{"profiles": [\n  {"slug": "caf", "name": "Caf'),
        Buffer.from([0xe9]),
        Buffer.from('", "lang": "en"}\n]}'),
      ]),
    );
    const r = cli(path, 'import', file);
    expect(r.status, r.out).toBe(1);
    expect(r.out).toMatch(/not UTF-8/);
    expect(r.out).toMatch(/line 2/);
    expect(sha(path)).toBe(before);
  });

  // Issue 36: a redirect card whose target is its own page redirected to itself forever.
  it('refuses a redirect card that leads to a card of this site, itself included', async () => {
    const path = await createDatabase();
    const before = sha(path);
    const r = importJson(path, {
      cards: [
        { cardId: 'loop01', mode: 'redirect', redirectUrl: 'http://localhost:8080/c/loop01' },
        { cardId: 'loop02', mode: 'redirect', redirectUrl: 'http://localhost:8080/c/loop01?x=1' },
      ],
    });
    expect(r.status, r.out).toBe(1);
    expect(r.out).toContain('cards[0] (cardId "loop01").redirectUrl');
    expect(r.out).toContain('cards[1] (cardId "loop02").redirectUrl');
    expect(r.out).toMatch(/card of this site/);
    expect(sha(path)).toBe(before);
  });

  it('answers malformed JSON with a message and writes nothing', async () => {
    const path = await createDatabase();
    const before = sha(path);
    const file = join(dirname(path), 'broken.json');
    writeFileSync(file, '{"profiles": [');
    const r = cli(path, 'import', file);
    expect(r.status).toBe(1);
    expect(r.out).toContain('is not valid JSON');
    expect(sha(path)).toBe(before);
  });
});

describe('a running server and the CLI', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(server.url + path, { headers, redirect: 'manual' });

  it('shows a change written by the CLI on the next request, without a restart', async () => {
    expect(await (await get('/p/sam-rivera')).text()).toContain('Small Rooms');
    const r = importJson(server.databasePath, {
      profiles: [
        {
          slug: 'sam-rivera',
          name: 'Sam Rivera',
          bio: 'Now hosting Big Rooms.',
          lang: 'en',
          plan: 'paid',
          links: [{ title: 'New show', url: 'https://example.com/big-rooms' }],
        },
      ],
    });
    expect(r.status, r.out).toBe(0);
    const html = await (await get('/p/sam-rivera')).text();
    expect(html).toContain('Now hosting Big Rooms.');
    expect(html).toContain('https://example.com/big-rooms');
    expect(html).not.toContain('small-rooms/latest');
    const md = await (await get('/p/sam-rivera', { accept: 'text/markdown' })).text();
    expect(md).toContain('[New show](https://example.com/big-rooms)');
  });

  it('shows each write at once: after the file was still for seconds, and for writes within one clock tick', async () => {
    const writer = new Database(server.databasePath);
    const setBio = writer.prepare("UPDATE profiles SET bio = ? WHERE slug = 'sam-rivera'");
    try {
      expect((await get('/p/sam-rivera')).status).toBe(200);
      // Still for longer than the server trusts a file's timestamps without asking SQLite.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await get('/p/sam-rivera')).status).toBe(200);
      for (let i = 0; i < 5; i++) {
        setBio.run(`Write number ${i}.`);
        expect(await (await get('/p/sam-rivera')).text()).toContain(`Write number ${i}.`);
      }
    } finally {
      writer.close();
    }
  });

  it('lists a profile imported after the build in a sitemap that validates against the XSD', async () => {
    const r = importJson(server.databasePath, {
      profiles: [{ slug: 'new-after-build', name: 'Newcomer', lang: 'ar' }],
    });
    expect(r.status, r.out).toBe(0);
    const res = await get('/sitemap.xml');
    expect(res.headers.get('content-type')).toBe('application/xml');
    const xml = await res.text();
    expect(xml).toContain(`<loc>${base}/p/new-after-build</loc>`);
    expect(xml).not.toContain('/p/coming-soon');
    expect(xml).not.toContain('/c/r8x1');
    const { ok, output } = xmllintSitemap(xml);
    expect(ok, output).toBe(true);
  });
});

describe('health and the database going away', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(server.url + path, { headers, redirect: 'manual' });

  it('is ok, uncached, with the health object', async () => {
    const res = await get('/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.json();
    expect(body).toEqual({ status: 'ok', service: 'Bio Cards', time: expect.any(String) });
    expect(new Date(body.time).toISOString()).toBe(body.time);
  });

  it('degrades when the file is moved away, keeps static pages up, and recovers when it is back', async () => {
    const path = server.databasePath;
    await get('/p/layla'); // cached before the failure: must not be served from a vanished database
    renameSync(path, `${path}.away`);
    try {
      const health = await get('/health');
      expect(health.status).toBe(503);
      expect(health.headers.get('cache-control')).toBe('no-store');
      expect((await health.json()).status).toBe('degraded');

      const html = await get('/p/layla', { 'accept-language': 'ar' });
      expect(html.status).toBe(503);
      expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(html.headers.get('retry-after')).toBe('30');
      const text = await html.text();
      expect(text).toContain('الخدمة غير متاحة مؤقتًا');
      expect(text).not.toMatch(/at .*\.ts:\d+|SqliteError|node_modules/);

      const md = await get('/c/k7f2q9', { accept: 'text/markdown' });
      expect(md.status).toBe(503);
      expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(Object.keys(matter(await md.text()).data)).toEqual(['title', 'description', 'url', 'lang']);

      expect((await get('/layla')).status).toBe(503);
      expect((await get('/sitemap.xml')).status).toBe(503);
      for (const path of ['/', '/en/blog', '/openapi.json', '/robots.txt'])
        expect((await get(path)).status, path).toBe(200);
    } finally {
      renameSync(`${path}.away`, path);
    }
    expect((await get('/health')).status).toBe(200);
    expect((await get('/p/layla')).status).toBe(200);
  });

  it('degrades while another process holds an exclusive lock, without stalling other requests, and recovers', async () => {
    const writer = new Database(server.databasePath);
    try {
      writer.pragma('locking_mode = EXCLUSIVE');
      writer.exec('BEGIN EXCLUSIVE');
      const health = await get('/health');
      expect(health.status).toBe(503);
      expect((await health.json()).status).toBe('degraded');
      const [live, page] = await Promise.all([get('/p/layla'), get('/en/blog')]);
      expect(live.status).toBe(503);
      expect(page.status).toBe(200);
      writer.exec('COMMIT');
    } finally {
      writer.close();
    }
    await expect.poll(async () => (await get('/health')).status, { timeout: 3000, interval: 100 }).toBe(200);
  });

  it('waits out a slow commit by another process without stalling other requests, then answers with what it wrote', async () => {
    // A commit that holds the lock for 400 ms (a loaded disk's fsync): longer than a reader used to wait (250 ms)
    // before failing every query for a second, and answering 503 for the live page and /health.
    const writer = new Database(server.databasePath);
    try {
      writer.exec('BEGIN EXCLUSIVE');
      writer.prepare('UPDATE profiles SET bio = ? WHERE slug = ?').run('Written during a slow commit.', 'layla');
      let committed = false;
      const commit = new Promise<void>((resolve) =>
        setTimeout(() => {
          writer.exec('COMMIT');
          committed = true;
          resolve();
        }, 400),
      );
      const live = get('/p/layla');
      const health = get('/health');
      const page = await get('/en/blog');
      // Answered while the lock is held: the wait for it does not block the server.
      expect(page.status).toBe(200);
      expect(committed).toBe(false);
      const [liveRes, healthRes] = await Promise.all([live, health, commit]);
      expect(liveRes.status).toBe(200);
      expect(await liveRes.text()).toContain('Written during a slow commit.');
      expect(healthRes.status).toBe(200);
    } finally {
      if (writer.inTransaction) writer.exec('ROLLBACK');
      writer.close();
    }
  });

  it('degrades on a file replaced by garbage, and recovers when a good file replaces it', async () => {
    const path = server.databasePath;
    copyFileSync(path, `${path}.good`);
    writeFileSync(`${path}.tmp`, 'this is not a database '.repeat(200));
    renameSync(`${path}.tmp`, path);
    expect((await get('/health')).status).toBe(503);
    expect((await get('/p/layla')).status).toBe(503);
    // Liveness asks nothing of the database (#50): a probe on it never restarts a process for its database's sake.
    const live = await get('/livez');
    expect(live.status).toBe(200);
    expect(live.headers.get('cache-control')).toBe('no-store');
    // What runs (#61): the version, the commit the build was made from, and the build.
    expect(await live.json()).toEqual(expectedLiveness());
    renameSync(`${path}.good`, path);
    expect((await get('/health')).status).toBe(200);
    expect((await get('/p/layla')).status).toBe(200);
  });
});

describe('a sitemap past the URL limit', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ sitemapLimit: 10 });
  });
  afterAll(() => server.close());

  it('becomes a sitemap index whose children hold every URL', async () => {
    const index = await (await fetch(server.url + '/sitemap.xml')).text();
    expect(index).toContain('<sitemapindex');
    const children = [...index.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1] ?? '');
    expect(children.length).toBeGreaterThan(1);
    const urls: string[] = [];
    for (const child of children) {
      expect(child).toMatch(new RegExp(`^${base}/sitemaps/\\d+\\.xml$`));
      const res = await fetch(server.url + new URL(child).pathname);
      expect(res.status).toBe(200);
      const xml = await res.text();
      expect(xmllintSitemap(xml).ok).toBe(true);
      urls.push(...[...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1] ?? ''));
    }
    expect(urls).toContain(`${base}/p/layla`);
    expect(urls).toContain(`${base}/en/blog`);
    expect(new Set(urls).size).toBe(urls.length);
    expect((await fetch(server.url + '/sitemaps/999.xml')).status).toBe(404);
  });

  it('answers a part at its canonical URL only: every other spelling of the number is a 404 (issue 27)', async () => {
    expect((await fetch(server.url + '/sitemaps/1.xml')).status).toBe(200);
    // Six spellings of one number were six URLs of one document, each a miss at an edge and a rebuild here.
    for (const n of ['01', '+1', '1.0', '1e0', '0x1', '%201', '1%20', '0', '-1', '99999999999999999999']) {
      expect((await fetch(server.url + pathOf('getSitemapPart', { n }), { redirect: 'manual' })).status, n).toBe(404);
    }
  });
});
