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
import type { Result } from './result.ts';

export const BUTTON_FILLS = ['filled', 'outlined', 'soft'] as const;
export const BUTTON_SHAPES = ['square', 'rounded', 'pill'] as const;
type ButtonFill = (typeof BUTTON_FILLS)[number];
type ButtonShape = (typeof BUTTON_SHAPES)[number];

/** A background: one colour, or a gradient from the top of the page to its foot. Colours are `#rrggbb`. */
type Background = { color: string } | { gradient: [string, string] };

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

/** The gradient's ends, or the colour twice over. */
const stopsOf = (background: Background): string[] =>
  'color' in background ? [background.color] : [...background.gradient];

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

function variables(c: Colours): string {
  const ground = c.ground.length > 1 ? `linear-gradient(${c.ground.join(',')})` : c.ground[0]!;
  return (
    `html:root{--ink:${c.ink};--muted:${c.muted};--line:${c.line};--accent:${c.accent};--on-accent:${c.onAccent};` +
    `--surface:${c.surface};background:${ground};background-attachment:fixed}`
  );
}

/**
 * The stylesheet of a themed page, from its palette: the custom properties global.css draws with, the ground across
 * the whole page, the buttons. Nothing in it comes from an owner's string: colours are `#rrggbb` made here, the rest
 * fixed words. Sent in the page, allowed by its hash (the sidecar adds it to that page's Content-Security-Policy).
 */
export function themeCss(palette: Palette): string {
  const { fill, shape } = palette.buttons;
  const link = 'html .profile-links a';
  const buttons =
    fill === 'filled'
      ? `${link}{background:var(--accent);color:var(--on-accent);border-color:var(--accent)}${link}:hover{background:var(--accent);text-decoration:underline}`
      : fill === 'soft'
        ? `${link}{background:var(--surface);color:var(--ink);border-color:var(--surface)}${link}:hover{text-decoration:underline}`
        : `${link}{border:2px solid var(--accent)}`;
  const fonts = palette.font && fontStacks(palette.font);
  return (
    variables(palette.light) +
    (fonts ? `html:root{--font-latin:${fonts.latin};--font-arabic:${fonts.arabic}}` : '') +
    `html body{background:transparent}html .button{color:var(--on-accent)}html .button-secondary{color:var(--accent)}` +
    `${link},html .button{border-radius:${RADIUS[shape]}}${buttons}` +
    `@media (prefers-color-scheme:dark){${variables(palette.dark)}}`
  );
}
