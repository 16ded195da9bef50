// The import's new inputs drawn at random (issues 48 and 49): translations, places and themes of every shape, valid
// and hostile. Whatever a file holds, the judgement never throws, names each refusal by its record and field, and what
// it accepts is served without error: a translation's version of every language, a place's hours at any moment, a
// theme's stylesheet (as stored, read back).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateImport } from '../../sidecar/store/import-format.ts';
import { profileIn, cardIn, languagesOf, type Card, type Profile } from '../../src/lib/live-content.ts';
import { scheduleOf } from '../../src/lib/opening-hours.ts';
import { paletteOf, storedTheme, themeCss } from '../../src/lib/theme.ts';

const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', ' ', 'مقهى', '\u202e', '<b>x</b>', 'a\nb', 'x'.repeat(600)),
);
/** Mostly what an owner gives, sometimes what a hostile file does. */
const mostly = <T>(valid: fc.Arbitrary<T>, other: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: other });
const lang = mostly(fc.constantFrom('ar', 'en'), fc.constantFrom('fr', 'AR', ''));
const name = mostly(fc.constantFrom('مقهى النخيل', 'Al Nakheel Café'), text);
const hours = mostly(
  fc.constantFrom(
    'Mo-Fr 08:00-17:00',
    'Sa-Th 07:00-24:00; Fr 13:00-24:00',
    '24/7',
    'sunrise-sunset',
    'Mo-Fr 08:00-12:00; PH off',
    'week 1-53/2 Fr 09:00-11:00',
    'easter off',
  ),
  fc.oneof(fc.constantFrom('Mo 25:00-26:00', '', 'x'.repeat(300)), fc.string({ maxLength: 40 })),
);
const place = fc.record(
  {
    address: mostly(fc.constantFrom('Olaya Street, Riyadh'), text),
    geo: mostly(
      fc.record({
        lat: fc.double({ min: -90, max: 90, noNaN: true }),
        lon: fc.double({ min: -180, max: 180, noNaN: true }),
      }),
      fc.record({ lat: fc.double({ min: -100, max: 100 }), lon: fc.double({ min: -200, max: 200 }) }),
    ),
    openingHours: hours,
    timeZone: mostly(fc.constantFrom('Asia/Riyadh', 'UTC', 'Etc/GMT+12'), fc.constantFrom('Mars/Olympus', '')),
  },
  { requiredKeys: [] },
);
const colour = mostly(
  fc.oneof(
    fc.constantFrom('#8b4513', 'SaddleBrown', 'rgb(139 69 19)', 'oklch(0.7 0.3 30)', '#fff', 'hsl(330 100% 60%)'),
    fc
      .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
      .map(([r, g, b]) => `rgb(${r} ${g} ${b})`),
  ),
  fc.oneof(fc.constantFrom('red;}body{display:none', 'url(x)', 'transparent', 'rgb(0 0 0 / 50%)', ''), text),
);
const theme = fc.record(
  {
    accent: colour,
    background: fc.oneof(colour, fc.record({ gradient: fc.tuple(colour, colour) }), text),
    buttons: fc.record(
      {
        fill: mostly(fc.constantFrom('filled', 'outlined', 'soft'), text),
        shape: mostly(fc.constantFrom('square', 'rounded', 'pill'), text),
      },
      { requiredKeys: [] },
    ),
    font: mostly(fc.constantFrom('plex', 'naskh', 'kufi'), text),
  },
  { requiredKeys: [] },
);
const translation = mostly(
  fc.record(
    {
      name,
      bio: text,
      address: text,
      links: fc.dictionary(fc.constantFrom('https://EXAMPLE.com/a'), name),
      sections: fc.dictionary(fc.constantFrom('Drinks', 'Food'), name),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    { title: text, slug: text, links: fc.dictionary(fc.constantFrom('https://x.example/', ''), text) },
    { requiredKeys: [] },
  ),
);
const profile = fc.record({
  slug: fc.constantFrom('fuzz-a', 'fuzz-b'),
  name,
  lang,
  links: fc.constantFrom(
    [{ title: 'A', url: 'https://example.com/a' }],
    [{ title: 'A', url: 'https://example.com/a', section: 'Drinks' }],
  ),
  translations: fc.option(fc.dictionary(lang, translation), { nil: undefined }),
  place: fc.option(place, { nil: undefined }),
  theme: fc.option(theme, { nil: undefined }),
});
const card = fc.record({
  cardId: fc.constantFrom('fuzz-card'),
  mode: fc.constant('page'),
  name,
  lang,
  translations: fc.option(fc.dictionary(lang, translation), { nil: undefined }),
  place: fc.option(place, { nil: undefined }),
  theme: fc.option(theme, { nil: undefined }),
});

describe('the import, drawn at random', () => {
  it('judges any translations, place and theme without throwing, naming every refusal by its record', () => {
    // The draw reaches accepted records with hours, translations and themes, not only refusals.
    const reached = { hours: 0, translated: 0, themed: 0 };
    /** An accepted theme as the database keeps it (JSON text), read back and drawn. */
    const drawn = (given: unknown) => {
      if (given === undefined) return;
      reached.themed++;
      const stored = storedTheme(JSON.parse(JSON.stringify(given)));
      expect(stored).toEqual(given);
      expect(themeCss(paletteOf(stored!).palette)).toMatch(/^html:root\{/);
    };
    fc.assert(
      fc.property(
        fc.oneof(
          profile.map((p) => [[p], []] as const),
          card.map((c) => [[], [c]] as const),
        ),
        ([profiles, cards]) => {
          const result = validateImport({ profiles, cards }, () => false);
          if (!result.ok)
            for (const error of result.errors) expect(error).toMatch(/^(profiles|cards)\[\d+\]|^\(file\)/);
          else {
            // What is accepted is served: each language's version, and the hours at any moment.
            for (const p of result.data.profiles) {
              const shown = { ...p, translations: p.translations ?? {}, place: p.place ?? null } as unknown as Profile;
              for (const l of languagesOf(shown)) expect(profileIn(shown, l)?.lang).toBe(l);
              const given = p.place as
                | { address?: string; geo?: { lat: number; lon: number }; openingHours?: string; timeZone?: string }
                | undefined;
              if (given?.openingHours) {
                reached.hours++;
                const read = {
                  address: given.address ?? null,
                  geo: given.geo ?? null,
                  openingHours: given.openingHours,
                  timeZone: given.timeZone ?? null,
                };
                expect(() => scheduleOf(read, Date.now())).not.toThrow();
              }
              if (p.translations && Object.keys(p.translations).length > 0) reached.translated++;
              drawn(p.theme);
            }
            for (const c of result.data.cards) {
              if (c.mode !== 'page') continue;
              const shown = {
                ...c,
                translations: c.translations ?? {},
                jobTitle: null,
                organization: null,
                address: null,
              } as unknown as Card;
              for (const l of languagesOf(shown)) expect(cardIn(shown, l)?.lang).toBe(l);
              drawn(c.theme);
            }
          }
        },
      ),
      { numRuns: 1000, seed: 20_261_127 },
    );
    expect(reached.hours).toBeGreaterThan(0);
    expect(reached.translated).toBeGreaterThan(0);
    expect(reached.themed).toBeGreaterThan(0);
  });
});
