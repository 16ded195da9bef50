// An owner's theme (issue 49): an accent colour, a background (a colour or a two-colour gradient) and a button style,
// and the colours a page is drawn in from it, in the light and the dark scheme. Readable by construction: every colour
// a page draws text or a control in is judged here against the background it sits on by WCAG 2.2's contrast ratio
// (4.5:1 for text, 3:1 for controls), over each end of a gradient (along a gradient in sRGB each channel, and so the
// luminance, moves one way, so its ends are its extremes). What falls short is moved in lightness (OKLCH, its hue
// kept) until it reads, and said: the import prints which colour each page will use instead; a background no text
// colour reads on is refused. The same judgement runs where pages are drawn, from the owner's colours as stored, so a
// row written by hand is as readable as one imported. culori does the colour science (parsing every CSS colour
// syntax, OKLCH, the gamut, WCAG's luminance).
import { clampChroma, converter, formatHex, interpolate, parse, wcagContrast } from 'culori';
import { FONT_KEYS, fontStacks, type FontKey } from './fonts.ts';
import { backdropFile, IMAGE_ID_PATTERN, type BackdropWidth } from './image-files.ts';
import { pathOf } from './surface.ts';
import type { Result } from './result.ts';

export const BUTTON_FILLS = ['filled', 'outlined', 'soft'] as const;
export const BUTTON_SHAPES = ['square', 'rounded', 'pill'] as const;
type ButtonFill = (typeof BUTTON_FILLS)[number];
type ButtonShape = (typeof BUTTON_SHAPES)[number];

/**
 * A background: one colour, a gradient from the top of the page to its foot, or an image taken in (its identifier,
 * image-files.ts) with its darkest and lightest tones. Colours are `#rrggbb`.
 */
type Background = { color: string } | { gradient: [string, string] } | { image: string; tones: [string, string] };

/** A theme as stored and shown: the owner's colours as given (normalised to `#rrggbb`), each part optional. */
export interface Theme {
  accent: string | null;
  background: Background | null;
  buttons: { fill: ButtonFill; shape: ButtonShape };
  /** A shipped typeface (fonts.ts), for both scripts; null: the site's. */
  font: FontKey | null;
}

export const DEFAULT_BUTTONS: Theme['buttons'] = { fill: 'outlined', shape: 'rounded' };

const HEX = /^#[0-9a-f]{6}$/;
const isHex = (v: unknown): v is string => typeof v === 'string' && HEX.test(v);

/** A stored theme as pages see it, or undefined when it is not one (a corrupt row). */
export function storedTheme(value: unknown): Theme | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { accent = null, background = null, buttons = {}, font = null } = value as Record<string, unknown>;
  if (accent !== null && !isHex(accent)) return undefined;
  if (font !== null && !(FONT_KEYS as unknown[]).includes(font)) return undefined;
  let ground: Background | null = null;
  if (background !== null) {
    const b = background as Record<string, unknown>;
    if (isHex(b.color)) ground = { color: b.color };
    else if (Array.isArray(b.gradient) && b.gradient.length === 2 && b.gradient.every(isHex))
      ground = { gradient: [b.gradient[0] as string, b.gradient[1] as string] };
    else if (
      typeof b.image === 'string' &&
      IMAGE_ID_PATTERN.test(b.image) &&
      Array.isArray(b.tones) &&
      b.tones.length === 2 &&
      b.tones.every(isHex)
    )
      ground = { image: b.image, tones: [b.tones[0] as string, b.tones[1] as string] };
    else return undefined;
  }
  const { fill = DEFAULT_BUTTONS.fill, shape = DEFAULT_BUTTONS.shape } = (buttons ?? {}) as Record<string, unknown>;
  if (!(BUTTON_FILLS as readonly unknown[]).includes(fill) || !(BUTTON_SHAPES as readonly unknown[]).includes(shape))
    return undefined;
  return {
    accent,
    background: ground,
    buttons: { fill: fill as ButtonFill, shape: shape as ButtonShape },
    font: font as FontKey | null,
  };
}

/** WCAG 2.2 AA (1.4.3, 1.4.11): text, and the parts of a control that identify it. */
const CONTRAST = { text: 4.5, control: 3 } as const;

type Scheme = 'light' | 'dark';

/** The colours a page is drawn in, in one scheme. */
export interface Colours {
  /** The background: one colour, or a gradient's two ends. */
  ground: string[];
  /** Text, and text of less weight (both ≥ 4.5:1 on every part of the ground). */
  ink: string;
  muted: string;
  /** Links, outlined buttons, focus rings (≥ 4.5:1 on the ground). */
  accent: string;
  /** Text on a filled button (≥ 4.5:1 on the accent). */
  onAccent: string;
  /** A tint of the ground (soft buttons, the hover of a link): ink and accent both ≥ 4.5:1 on it. */
  surface: string;
  /** Rules and the borders of boxes (decorative). */
  line: string;
  /** A background image (its identifier) under a scrim of `scrim` at `alpha`: `ground` is its tones seen through it. */
  backdrop?: { image: string; scrim: string; alpha: number };
}

/** A colour the owner chose that a scheme draws in another, and why. */
export interface Substitute {
  scheme: Scheme;
  field: 'accent';
  given: string;
  /** The ground it fell short on, and its ratio there. */
  against: string;
  ratio: number;
  used: string;
}

export interface Palette {
  light: Colours;
  dark: Colours;
  buttons: Theme['buttons'];
  font: FontKey | null;
}

/** The platform's own colours (global.css), which an owner's theme replaces only where it says something. */
const PLATFORM = {
  light: { ground: '#ffffff', ink: '#1b1f24', accent: '#0a6b5d' },
  dark: { ground: '#0d1117', ink: '#e6edf3', accent: '#4fd1b5' },
} as const;

const toOklch = converter('oklch');

/** `input` as `#rrggbb`, or why not: any CSS colour (`#b5651d`, `rgb(…)`, `hsl(…)`, `oklch(…)`, `saddlebrown`), opaque. */
export function colourOf(input: string): Result<{ hex: string }> {
  if (input.length > 64) return { ok: false, problem: 'is longer than a colour: give one such as "#8b4513"' };
  const colour = parse(input.trim());
  if (!colour) return { ok: false, problem: 'is not a CSS colour: give one such as "#8b4513" or "rgb(139 69 19)"' };
  if (colour.alpha !== undefined && colour.alpha < 1)
    return {
      ok: false,
      problem: 'is not opaque: a see-through colour has no contrast to judge; give it without alpha',
    };
  return { ok: true, hex: formatHex(clampChroma(colour, 'oklch')) };
}

const contrast = (a: string, b: string) => wcagContrast(a, b);
/** The least contrast `colour` has on any part of `ground`. */
const worst = (colour: string, ground: readonly string[]) => Math.min(...ground.map((g) => contrast(colour, g)));
const worstGround = (colour: string, ground: readonly string[]) =>
  ground.reduce((a, b) => (contrast(colour, a) <= contrast(colour, b) ? a : b));
/** Whether text on `ground` is best light (a dark ground). */
const isDark = (ground: readonly string[]) => worst('#ffffff', ground) > worst('#000000', ground);
const mix = (a: string, b: string, t: number) => formatHex(interpolate([a, b], 'rgb')(t));

/** The text colour that reads best on every part of `ground`: the platform's, else pure black or white. */
function inkOn(ground: readonly string[]): string {
  const [ours, pure] = isDark(ground) ? [PLATFORM.dark.ink, '#ffffff'] : [PLATFORM.light.ink, '#000000'];
  return worst(ours, ground) >= CONTRAST.text ? ours : pure;
}

/**
 * `colour` moved in lightness (OKLCH: hue kept, chroma cut to what sRGB holds) the least that gives it `ratio` on every
 * part of `ground`: darker on a light ground, lighter on a dark one; `fallback` when no lightness does.
 */
function readable(colour: string, ground: readonly string[], ratio: number, fallback: string): string {
  if (worst(colour, ground) >= ratio) return colour;
  const start = toOklch(colour)!;
  const target = isDark(ground) ? 1 : 0;
  const at = (t: number) => formatHex(clampChroma({ ...start, l: start.l + (target - start.l) * t }, 'oklch'));
  if (worst(at(1), ground) < ratio) return fallback;
  let [lo, hi] = [0, 1];
  for (let i = 0; i < 16; i++) {
    const mid = (lo + hi) / 2;
    if (worst(at(mid), ground) >= ratio) hi = mid;
    else lo = mid;
  }
  return at(hi);
}

/** The furthest `from` moves toward `to` (at most `max`) while `keep` holds. */
function furthest(from: string, to: string, max: number, keep: (c: string) => boolean): string {
  if (keep(mix(from, to, max))) return mix(from, to, max);
  let [lo, hi] = [0, max];
  for (let i = 0; i < 12; i++) {
    const mid = (lo + hi) / 2;
    if (keep(mix(from, to, mid))) lo = mid;
    else hi = mid;
  }
  return mix(from, to, lo);
}

/** The gradient's ends, the colour, or an image's darkest and lightest tones. */
const stopsOf = (background: Background): string[] =>
  'color' in background
    ? [background.color]
    : 'gradient' in background
      ? [...background.gradient]
      : [...background.tones];

/** The least a scrim covers an image, however quiet: the text sits on a calm ground. */
const SCRIM_MIN = 0.15;
/** The most a scrim covers an image to let the owner's accent read as given (past it, the accent is moved instead). */
const SCRIM_FOR_ACCENT = 0.85;
/**
 * The scrim over an image's `tones` (white under dark text, black under light): the least alpha at which text reads
 * on both tones seen through it (and the owner's `accent` too, when a scrim of at most SCRIM_FOR_ACCENT lets it), and
 * those tones. Always found: at the top of the range the tones are nearly the scrim itself.
 */
function scrimmed(
  tones: readonly string[],
  scrim: '#ffffff' | '#000000',
  accent: string | null,
): { alpha: number; ground: string[]; accentKept: boolean } {
  const through = (alpha: number) => tones.map((t) => mix(t, scrim, alpha));
  const textReads = (alpha: number) => {
    const ground = through(alpha);
    return isDark(ground) === (scrim === '#000000') && !groundProblem(ground);
  };
  const accentReads = (alpha: number) =>
    textReads(alpha) && (accent === null || worst(accent, through(alpha)) >= CONTRAST.text);
  const reads = accentReads(SCRIM_FOR_ACCENT) ? accentReads : textReads;
  let [lo, hi] = [SCRIM_MIN, reads === accentReads ? SCRIM_FOR_ACCENT : 0.95];
  if (reads(lo)) hi = lo;
  else
    for (let i = 0; i < 14; i++) {
      const mid = (lo + hi) / 2;
      if (reads(mid)) hi = mid;
      else lo = mid;
    }
  const alpha = Math.ceil(hi * 100) / 100;
  return { alpha, ground: through(alpha), accentKept: accent !== null && reads === accentReads };
}

/** A light ground for the dark scheme, darkened: its hue kept, its lightness and chroma those of a night page. */
const darkened = (hex: string) => {
  const c = toOklch(hex)!;
  return formatHex(clampChroma({ ...c, l: 0.2, c: Math.min(c.c ?? 0, 0.04) }, 'oklch'));
};

/** Why no text can be read on `ground`, if none can. */
export function groundProblem(ground: readonly string[]): string | undefined {
  const ink = inkOn(ground);
  const ratio = worst(ink, ground);
  if (ratio >= CONTRAST.text) return undefined;
  return `has no text colour that reads on all of it: the best, "${ink}", is ${ratioText(ratio)} on "${worstGround(ink, ground)}" where ${ratioText(CONTRAST.text)} is needed (bring the gradient's ends closer in lightness)`;
}

const ratioText = (ratio: number) => `${Math.floor(ratio * 10) / 10}:1`;

function coloursOn(ground: string[], scheme: Scheme, accent: string | null, substitutes: Substitute[]): Colours {
  const ink = inkOn(ground);
  const given = accent ?? PLATFORM[scheme].accent;
  const used = readable(given, ground, CONTRAST.text, ink);
  if (used !== given && accent !== null) {
    const against = worstGround(given, ground);
    substitutes.push({ scheme, field: 'accent', given, against, ratio: contrast(given, against), used });
  }
  const onAccent = contrast('#ffffff', used) >= contrast('#000000', used) ? '#ffffff' : '#000000';
  const base = ground[0]!;
  const readsOn = (c: string) => contrast(ink, c) >= CONTRAST.text && contrast(used, c) >= CONTRAST.text;
  // An opaque tint of the ground's first colour toward the accent: as far as ink and accent still read on it.
  const surface = furthest(base, used, 0.14, readsOn);
  const muted = furthest(
    ink,
    base,
    0.45,
    (c) => worst(c, ground) >= CONTRAST.text && contrast(c, surface) >= CONTRAST.text,
  );
  return { ground, ink, muted, accent: used, onAccent, surface, line: mix(base, ink, 0.3) };
}

/**
 * The colours of a page with `theme` in each scheme, and each colour of the owner's it does not draw as given. The
 * light scheme is the owner's background; the dark one is theirs when it is dark already, else it darkened.
 */
export function paletteOf(theme: Theme): { palette: Palette; substitutes: Substitute[] } {
  const substitutes: Substitute[] = [];
  const background = theme.background;
  if (background && 'image' in background) {
    // Over an image: the light scheme under whichever scrim covers it least, the dark one under a black one.
    const [white, black] = [
      scrimmed(background.tones, '#ffffff', theme.accent),
      scrimmed(background.tones, '#000000', theme.accent),
    ];
    // The scrim that keeps the owner's accent as given, else the one that covers the image least.
    const whiteFirst = white.accentKept === black.accentKept ? white.alpha <= black.alpha : white.accentKept;
    const light = whiteFirst ? { ...white, scrim: '#ffffff' } : { ...black, scrim: '#000000' };
    const over = (s: { alpha: number; ground: string[]; scrim: string }, scheme: Scheme): Colours => ({
      ...coloursOn(s.ground, scheme, theme.accent, substitutes),
      backdrop: { image: background.image, scrim: s.scrim, alpha: s.alpha },
    });
    return {
      palette: {
        light: over(light, 'light'),
        dark: over({ ...black, scrim: '#000000' }, 'dark'),
        buttons: theme.buttons,
        font: theme.font,
      },
      substitutes,
    };
  }
  // A ground no text reads on (refused at import; a row written by hand) is not drawn: the platform's is.
  const given = theme.background ? stopsOf(theme.background) : null;
  const owned = given && !groundProblem(given) ? given : null;
  const lightGround = owned ?? [PLATFORM.light.ground];
  const darkGround = owned ? (isDark(owned) ? owned : owned.map(darkened)) : [PLATFORM.dark.ground];
  return {
    palette: {
      light: coloursOn(lightGround, 'light', theme.accent, substitutes),
      dark: coloursOn(darkGround, 'dark', theme.accent, substitutes),
      buttons: theme.buttons,
      font: theme.font,
    },
    substitutes,
  };
}

/** A QR code's ink on its white ground: the owner's accent, darkened until it is 7:1 (scanners read luminance). */
const QR_CONTRAST = 7;
export function qrInk(theme: Theme): string {
  return theme.accent ? readable(theme.accent, ['#ffffff'], QR_CONTRAST, '#000000') : '#000000';
}

/** A link preview's colours: the owner's accent as its ground (the platform's draws on its own), text that reads on it. */
export function ogColours(theme: Theme): { ground: string; ink: string } {
  const { light } = paletteOf(theme).palette;
  return { ground: light.accent, ink: light.onAccent };
}

/** What the import says of a colour it will draw in another. */
export function substituteText(s: Substitute): string {
  return `"${s.given}" is ${ratioText(s.ratio)} on "${s.against}" where ${ratioText(CONTRAST.text)} is needed: the ${s.scheme} scheme will use "${s.used}"`;
}

const RADIUS: Record<ButtonShape, string> = { square: '0', rounded: '12px', pill: '999px' };

/** A scheme's custom properties and ground; `wide`: the rule for a wide screen, when its ground is an image. */
function variables(c: Colours): { root: string; wide: string } {
  const properties = `--ink:${c.ink};--muted:${c.muted};--line:${c.line};--accent:${c.accent};--on-accent:${c.onAccent};--surface:${c.surface}`;
  if (c.backdrop) {
    const { image, scrim, alpha } = c.backdrop;
    const veil = `rgba(${scrim === '#ffffff' ? '255,255,255' : '0,0,0'},${alpha})`;
    const layers = (width: BackdropWidth) =>
      `linear-gradient(${veil},${veil}),url(${pathOf('getImage', { image: backdropFile(image, width, 'webp') })})`;
    return {
      root: `html:root{${properties};background:${c.ground[0]};background-image:${layers(800)};background-size:cover;background-position:center;background-attachment:fixed}`,
      wide: `html:root{background-image:${layers(1600)}}`,
    };
  }
  const ground = c.ground.length > 1 ? `linear-gradient(${c.ground.join(',')})` : c.ground[0]!;
  return { root: `html:root{${properties};background:${ground};background-attachment:fixed}`, wide: '' };
}

/**
 * The stylesheet of a themed page, from its palette: the custom properties global.css draws with, the ground across
 * the whole page, the buttons. Nothing in it comes from an owner's string: colours are `#rrggbb` made here, the rest
 * fixed words. Sent in the page, allowed by its hash (the sidecar adds it to that page's Content-Security-Policy).
 */
export function themeCss(palette: Palette): string {
  const { fill, shape } = palette.buttons;
  // The owner's links and the first taps above them (FirstTaps.astro), in the owner's buttons.
  const link = 'html :is(.profile-links,.first-taps) a';
  const buttons =
    fill === 'filled'
      ? `${link}{background:var(--accent);color:var(--on-accent);border-color:var(--accent)}${link}:hover{background:var(--accent);text-decoration:underline}`
      : fill === 'soft'
        ? `${link}{background:var(--surface);color:var(--ink);border-color:var(--surface)}${link}:hover{text-decoration:underline}`
        : `${link}{border:2px solid var(--accent)}`;
  const fonts = palette.font && fontStacks(palette.font);
  const [light, dark] = [variables(palette.light), variables(palette.dark)];
  return (
    light.root +
    (light.wide && `@media (min-width:800px){${light.wide}}`) +
    (fonts ? `html:root{--font-latin:${fonts.latin};--font-arabic:${fonts.arabic}}` : '') +
    `html body{background:transparent}html .button{color:var(--on-accent)}html .button-secondary{color:var(--accent)}` +
    `${link},html .button{border-radius:${RADIUS[shape]}}${buttons}` +
    `@media (prefers-color-scheme:dark){${dark.root}}` +
    (dark.wide && `@media (prefers-color-scheme:dark) and (min-width:800px){${dark.wide}}`)
  );
}
