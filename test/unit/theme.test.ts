// Readable by construction (issue 49): whatever colours an owner gives, every colour a themed page draws text or a
// control in reads on what it sits on, in both schemes, by WCAG 2.2's ratio computed here apart from the code under
// test; a ground nothing reads on is refused rather than drawn; the stylesheet holds nothing but the palette's colours.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BUTTON_FILLS,
  BUTTON_SHAPES,
  colourOf,
  groundProblem,
  paletteOf,
  qrInk,
  storedTheme,
  themeCss,
  type Colours,
  type Theme,
} from '../../src/lib/theme.ts';
import { FONT_KEYS, fontStacks } from '../../src/lib/fonts.ts';

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

const hex = fc
  .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
  .map((rgb) => `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`);
const theme: fc.Arbitrary<Theme> = fc.record({
  accent: fc.option(hex, { nil: null }),
  background: fc.option(
    fc.oneof(
      hex.map((color) => ({ color })),
      fc.tuple(hex, hex).map((gradient) => ({ gradient })),
      // An image, by its tones (the darkest and lightest of its colours).
      fc.tuple(hex, hex).map((tones) => ({ image: 'a'.repeat(32), tones })),
    ),
    { nil: null },
  ),
  buttons: fc.record({ fill: fc.constantFrom(...BUTTON_FILLS), shape: fc.constantFrom(...BUTTON_SHAPES) }),
  font: fc.option(fc.constantFrom(...FONT_KEYS), { nil: null }),
});

/** Every pairing a page draws: text on the ground and on the surface, a filled button's label, its edge. */
function pairs(c: Colours): [string, string, string, number][] {
  return c.ground.flatMap(
    (g) =>
      [
        ['ink on the ground', c.ink, g, 4.5],
        ['muted text on the ground', c.muted, g, 4.5],
        ['accent on the ground', c.accent, g, 4.5],
        ["a filled button's edge on the ground", c.accent, g, 3],
        ['ink on the surface', c.ink, c.surface, 4.5],
        ['accent on the surface', c.accent, c.surface, 4.5],
        ['muted text on the surface', c.muted, c.surface, 4.5],
        ["a filled button's label", c.onAccent, c.accent, 4.5],
      ] as [string, string, string, number][],
  );
}

describe('a theme', () => {
  it('draws every text and control at AA contrast in both schemes, whatever colours it is given', () => {
    fc.assert(
      fc.property(theme, (t) => {
        const { palette } = paletteOf(t);
        for (const scheme of ['light', 'dark'] as const)
          for (const [what, fg, bg, ratio] of pairs(palette[scheme]))
            expect(
              contrast(fg, bg),
              `${scheme}: ${what} (${fg} on ${bg}) for ${JSON.stringify(t)}`,
            ).toBeGreaterThanOrEqual(ratio);
        // QR codes stay dark on white enough for any scanner.
        expect(contrast(qrInk(t), '#ffffff')).toBeGreaterThanOrEqual(7);
      }),
      { numRuns: 400 },
    );
  });

  it('keeps the owner’s colours where they read, and draws the ground they chose in the light scheme', () => {
    const { palette, substitutes } = paletteOf({
      accent: '#8b4513',
      background: { color: '#fdf6ec' },
      buttons: { fill: 'filled', shape: 'pill' },
      font: null,
    });
    expect(palette.light).toMatchObject({ ground: ['#fdf6ec'], accent: '#8b4513' });
    // The brown does not read on the night ground: the dark scheme draws it lighter, and says so.
    expect(substitutes).toEqual([
      expect.objectContaining({ scheme: 'dark', field: 'accent', given: '#8b4513', used: palette.dark.accent }),
    ]);
    expect(luminance(palette.dark.accent)).toBeGreaterThan(luminance('#8b4513'));
  });

  it('refuses only grounds that no text reads on', () => {
    fc.assert(
      fc.property(fc.tuple(hex, hex), (ground) => {
        const best = Math.max(...['#000000', '#ffffff'].map((ink) => Math.min(...ground.map((g) => contrast(ink, g)))));
        expect(groundProblem(ground) !== undefined).toBe(best < 4.5);
      }),
      { numRuns: 400 },
    );
  });

  it('makes a stylesheet of colours and fixed words alone', () => {
    fc.assert(
      fc.property(theme, (t) => {
        const css = themeCss(paletteOf(t).palette);
        // The font stacks are the table's (fonts.ts), named in quotes; everything else is lowercase words and colours.
        const stacks = t.font ? Object.values(fontStacks(t.font)) : [];
        const rest = stacks
          .reduce((left, stack) => left.replaceAll(stack, ''), css)
          .replace(/url\(\/images\/[0-9a-f]{32}-w(?:800|1600)\.webp\)/g, '');
        expect(rest.replace(/#[0-9a-f]{6}/g, '')).toMatch(/^[a-z0-9:;{}(),.\-% @]*$/);
      }),
      { numRuns: 200 },
    );
  });

  it('takes any opaque CSS colour as #rrggbb, and nothing else', () => {
    expect(colourOf('SaddleBrown')).toEqual({ ok: true, hex: '#8b4513' });
    expect(colourOf('rgb(139 69 19)')).toEqual({ ok: true, hex: '#8b4513' });
    expect(colourOf('#8B4513')).toEqual({ ok: true, hex: '#8b4513' });
    for (const bad of ['', 'brownish', 'red;}body{x:y', 'url(x)', 'rgb(0 0 0 / 0.5)', 'transparent', 'x'.repeat(65)])
      expect(colourOf(bad), bad).toMatchObject({ ok: false });
  });

  it('reads a stored theme only as colours and words it knows (a row written by hand)', () => {
    expect(storedTheme({ accent: '#8b4513' })).toEqual({
      accent: '#8b4513',
      background: null,
      buttons: { fill: 'outlined', shape: 'rounded' },
      font: null,
    });
    for (const bad of [
      { accent: 'red' },
      { accent: '#8b4513;}' },
      { background: { color: 'url(x)' } },
      { background: { gradient: ['#000000'] } },
      { buttons: { fill: 'glass' } },
      { font: 'Comic Sans' },
      [],
      'theme',
    ])
      expect(storedTheme(bad), JSON.stringify(bad)).toBeUndefined();
  });
});
