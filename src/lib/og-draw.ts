// Draws an Open Graph image with CanvasKit (Skia's WebAssembly build): its paragraph layout shapes text with
// HarfBuzz and orders it with ICU's bidi, so an Arabic title comes out joined and right to left with Latin words
// in place (satori, behind @vercel/og, does not shape Arabic: vercel/satori#74). Fonts from npm, as TrueType (the
// site's own @fontsource files are WOFF, which CanvasKit does not read): the site's three Arabic faces (IBM Plex Sans
// Arabic, its default, Noto Naskh Arabic and Noto Kufi Arabic), the one the owner's theme names drawing their text in
// both scripts as their page does (issue 62: an Arabic name was drawn in Naskh under a theme that said Kufi), and Noto
// Sans for Latin (where the face has none, each falls back on the other), and Noto Emoji, the monochrome
// emoji face, whose ligatures draw a joined sequence (👨‍👩‍👧) as one picture in the text's colour (the colour face is 25 MB
// a thread, and its bitmaps would clash with the card's two colours).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import CanvasKitInit, { type CanvasKit, type FontMgr, type MallocObj, type Surface } from 'canvaskit-wasm';
import { DEFAULT_FONT, type FontKey } from './fonts.ts';
import { dirOf } from './locales.ts';
import { OG_HEIGHT, OG_WIDTH, type OgCard } from './og.ts';

const require = createRequire(import.meta.url);

/** The site's faces (fonts.ts FONTS), by the word a theme names them with: their family names in the TrueType files. */
const FACES: Record<FontKey, { family: string; file: [string, string] }> = {
  plex: {
    family: 'IBM Plex Sans Arabic',
    file: ['@expo-google-fonts/ibm-plex-sans-arabic', '700Bold/IBMPlexSansArabic_700Bold.ttf'],
  },
  naskh: {
    family: 'Noto Naskh Arabic',
    file: ['@expo-google-fonts/noto-naskh-arabic', '700Bold/NotoNaskhArabic_700Bold.ttf'],
  },
  kufi: {
    family: 'Noto Kufi Arabic',
    file: ['@expo-google-fonts/noto-kufi-arabic', '700Bold/NotoKufiArabic_700Bold.ttf'],
  },
};
/**
 * Every file drawing reads by a name made at run time, which no import names (a release copies them beside what its
 * imports trace: scripts/release.ts): CanvasKit's WebAssembly, and the faces in the order FontMgr takes them.
 */
export const DRAWING_FILES = {
  wasm: 'canvaskit-wasm/bin/canvaskit.wasm',
  fonts: [
    ...Object.values(FACES).map(({ file }) => file.join('/')),
    '@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf',
    '@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf',
    '@expo-google-fonts/noto-emoji/700Bold/NotoEmoji_700Bold.ttf',
  ],
} as const;
const LATIN = 'Noto Sans';
const EMOJI = 'Noto Emoji';

/**
 * Bidi isolation (UAX #9), as <bdi> on the pages: an owner's name takes its own direction from its first strong letter
 * (FSI … PDI), an address is left to right whatever the card's language (LRI … PDI). Without it, an Arabic card drew
 * `127.0.0.1:18301/p/layla` as `p/layla/127.0.0.1:18301`.
 */
const isolated = (text: string) => `\u2068${text}\u2069`;
const leftToRight = (text: string) => `\u2066${text}\u2069`;

interface Kit {
  ck: CanvasKit;
  fonts: FontMgr;
  /** One surface and one pixel buffer for every image a process draws: allocating them per image exhausted
   * CanvasKit's WebAssembly memory after a few hundred images. */
  surface: Surface;
  pixels: MallocObj;
}
let kit: Promise<Kit> | undefined;

function load(): Promise<Kit> {
  kit ??= (async () => {
    const ck = await CanvasKitInit({ locateFile: () => require.resolve(DRAWING_FILES.wasm) });
    const buffers = DRAWING_FILES.fonts
      .map((file) => readFileSync(require.resolve(file)))
      .map((b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    const fonts = ck.FontMgr.FromData(...buffers);
    if (!fonts) throw new Error('CanvasKit could not load the Open Graph fonts');
    const surface = ck.MakeSurface(OG_WIDTH, OG_HEIGHT);
    if (!surface) throw new Error('CanvasKit could not make a surface');
    return { ck, fonts, surface, pixels: ck.Malloc(Uint8Array, OG_WIDTH * OG_HEIGHT * 4) };
  })();
  return kit;
}

type Rgb = [number, number, number];
const PLATFORM_COLOURS = {
  ground: [10, 107, 93],
  band: [6, 78, 68],
  soft: [200, 240, 230],
  ink: [255, 255, 255],
} satisfies Record<string, Rgb>;

const rgbOf = (hex: string): Rgb => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as Rgb;
const toward = (a: Rgb, b: Rgb, t: number): Rgb => a.map((v, i) => Math.round(v + (b[i]! - v) * t)) as Rgb;

/** An owner's ground and text (`#rrggbb`, the text ≥ 4.5:1 on the ground, theme.ts): every line in that text, the band a step away from it. */
function ownColours(colours: { ground: string; ink: string }): typeof PLATFORM_COLOURS {
  const ground = rgbOf(colours.ground);
  const ink = rgbOf(colours.ink);
  const away: Rgb = ink[0] + ink[1] + ink[2] > 382 ? [0, 0, 0] : [255, 255, 255];
  return { ground, band: toward(ground, away, 0.25), soft: ink, ink };
}

/** The side of the owner's picture on a card, in pixels, drawn as a circle at the end of the line. */
const PICTURE = 280;

/** The PNG of a card: 1200×630, the title in up to four lines, as large as fits; `picture`, the owner's avatar or
 * photo (any format sharp reads: the image route's JPEG), drawn as a circle at the end of the text's lines. */
export async function drawOgImage(card: OgCard, picture?: Uint8Array): Promise<Buffer> {
  const { ck, fonts, surface, pixels } = await load();
  const rgba = picture
    ? await sharp(picture).resize(PICTURE, PICTURE, { fit: 'cover' }).ensureAlpha().raw().toBuffer()
    : undefined;
  const rtl = dirOf(card.lang) === 'rtl';
  // The owner's face first for both scripts, as their page draws them; without a theme's, the site's Arabic face for
  // Arabic and Noto Sans for Latin (the pages' system Latin).
  const own = card.font && FACES[card.font].family;
  const arabic = FACES[DEFAULT_FONT].family;
  const families = own ? [own, LATIN, EMOJI] : rtl ? [arabic, LATIN, EMOJI] : [LATIN, arabic, EMOJI];
  const canvas = surface.getCanvas();
  // The platform's teal, or the owner's accent with the text colour that reads on it (theme.ts ogColours); the band at
  // the foot a step further from the text colour, so that the host on it reads better still.
  const { ground, band: bandColour, soft, ink } = card.colours ? ownColours(card.colours) : PLATFORM_COLOURS;
  canvas.clear(ck.Color(ground[0], ground[1], ground[2], 1));
  const band = new ck.Paint();
  band.setColor(ck.Color(bandColour[0], bandColour[1], bandColour[2], 1));
  canvas.drawRect(ck.LTRBRect(0, OG_HEIGHT - 96, OG_WIDTH, OG_HEIGHT), band);
  band.delete();

  const margin = 80;
  const width = OG_WIDTH - 2 * margin - (rgba ? PICTURE + 48 : 0);
  if (rgba) {
    const image = ck.MakeImage(
      {
        width: PICTURE,
        height: PICTURE,
        colorType: ck.ColorType.RGBA_8888,
        alphaType: ck.AlphaType.Unpremul,
        colorSpace: ck.ColorSpace.SRGB,
      },
      rgba,
      PICTURE * 4,
    );
    if (!image) throw new Error('CanvasKit could not take the picture');
    // At the end of the lines: the right in a left-to-right language, the left in Arabic.
    const left = rtl ? margin : OG_WIDTH - margin - PICTURE;
    const top = (OG_HEIGHT - 96 - PICTURE) / 2;
    const ring = new ck.Paint();
    ring.setColor(ck.Color(soft[0], soft[1], soft[2], 1));
    ring.setAntiAlias(true);
    canvas.drawCircle(left + PICTURE / 2, top + PICTURE / 2, PICTURE / 2 + 6, ring);
    ring.delete();
    canvas.save();
    canvas.clipRRect(
      ck.RRectXY(ck.LTRBRect(left, top, left + PICTURE, top + PICTURE), PICTURE / 2, PICTURE / 2),
      ck.ClipOp.Intersect,
      true,
    );
    canvas.drawImage(image, left, top, null);
    canvas.restore();
    image.delete();
  }
  // The text's lines start after the picture in Arabic (it stands at their end, on the left).
  const x = rtl && rgba ? margin + PICTURE + 48 : margin;
  const paragraph = (
    text: string,
    size: number,
    weight: number,
    colour: number[],
    maxLines: number,
    lineWidth = width,
    faces = families,
  ) => {
    const style = new ck.ParagraphStyle({
      textStyle: {
        color: ck.Color(colour[0]!, colour[1]!, colour[2]!, 1),
        fontFamilies: faces,
        fontSize: size,
        fontStyle: { weight: { value: weight } },
        heightMultiplier: rtl ? 1.35 : 1.2,
      },
      textAlign: ck.TextAlign.Start,
      textDirection: rtl ? ck.TextDirection.RTL : ck.TextDirection.LTR,
      maxLines,
      ellipsis: '…',
    });
    const builder = ck.ParagraphBuilder.Make(style, fonts);
    builder.addText(text);
    const p = builder.build();
    builder.delete();
    p.layout(lineWidth);
    return p;
  };

  // No line above the title when there is nothing to say there (an owner's page names no platform).
  const kicker = card.kicker ? paragraph(card.kicker, 34, 700, soft, 1) : undefined;
  if (kicker) canvas.drawParagraph(kicker, x, 72);
  // The largest size at which the whole title fits in four lines.
  let title = paragraph(isolated(card.title), 76, 700, ink, 4);
  for (const size of [68, 60, 52]) {
    if (!title.didExceedMaxLines() && title.getHeight() <= 360) break;
    title.delete();
    title = paragraph(isolated(card.title), size, 700, ink, 4);
  }
  canvas.drawParagraph(title, x, 150);
  // The address is the site's, in Latin letters: Noto Sans, whatever the owner's face.
  const host = paragraph(leftToRight(card.host), 30, 400, soft, 1, OG_WIDTH - 2 * margin, [LATIN, arabic, EMOJI]);
  canvas.drawParagraph(host, margin, OG_HEIGHT - 96 + (96 - host.getHeight()) / 2);
  for (const p of [kicker, title, host]) p?.delete();

  const image = surface.makeImageSnapshot();
  const read = image.readPixels(
    0,
    0,
    {
      width: OG_WIDTH,
      height: OG_HEIGHT,
      colorType: ck.ColorType.RGBA_8888,
      alphaType: ck.AlphaType.Unpremul,
      colorSpace: ck.ColorSpace.SRGB,
    },
    pixels,
    OG_WIDTH * 4,
  );
  image.delete();
  if (!read) throw new Error('CanvasKit could not read the pixels');
  // A copy: the Malloc'd buffer is drawn over by the next image while sharp may still be reading this one.
  const drawn = Buffer.from(pixels.toTypedArray());
  // Encoded by sharp (libvips, the build's image encoder already): Skia's own PNG encoder took 80% of the time.
  return sharp(drawn, { raw: { width: OG_WIDTH, height: OG_HEIGHT, channels: 4 } })
    .removeAlpha()
    .png({ compressionLevel: 3 })
    .toBuffer();
}
