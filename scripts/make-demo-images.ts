// Draws the demo data's avatars and card photo (scripts/demo-images/), so that `npm start` and the tests show pages
// with images and no image is downloaded: portraits and logos drawn as SVG, rasterised by sharp into the files an
// owner would upload (JPEG and PNG of a phone's or a designer's size, one with the EXIF a phone writes, its place
// included, which the import must leave behind), and the café's links' thumbnails. Run once when the demo changes:
// `node scripts/make-demo-images.ts [FILE…]` (only the files named, when some are); the files are committed.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp, { type Sharp } from 'sharp';

const folder = join(import.meta.dirname, 'demo-images');

const portrait = (w: number, h: number, [from, to]: [string, string], skin: string, hair: string, shirt: string) => `
<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs>
  <rect width="${w}" height="${h}" fill="url(#g)"/>
  <g transform="translate(${w / 2} ${h * 0.55})">
    <path d="M ${-w * 0.38} ${h * 0.45} C ${-w * 0.36} ${h * 0.12}, ${-w * 0.2} ${h * 0.05}, 0 ${h * 0.05} C ${w * 0.2} ${h * 0.05}, ${w * 0.36} ${h * 0.12}, ${w * 0.38} ${h * 0.45} Z" fill="${shirt}"/>
    <rect x="${-w * 0.07}" y="${-h * 0.06}" width="${w * 0.14}" height="${h * 0.14}" fill="${skin}"/>
    <ellipse cx="0" cy="${-h * 0.17}" rx="${w * 0.17}" ry="${w * 0.21}" fill="${skin}"/>
    <path d="M ${-w * 0.19} ${-h * 0.17} C ${-w * 0.2} ${-h * 0.42}, ${w * 0.2} ${-h * 0.42}, ${w * 0.19} ${-h * 0.17} C ${w * 0.12} ${-h * 0.3}, ${-w * 0.12} ${-h * 0.3}, ${-w * 0.19} ${-h * 0.17} Z" fill="${hair}"/>
  </g>
</svg>`;

const logo = (size: number, background: string, body: string) => `
<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 100 100">
  <rect width="100" height="100" fill="${background}"/>${body}
</svg>`;

const images: { file: string; svg: string; encode: (s: Sharp) => Sharp }[] = [
  {
    file: 'layla.jpg',
    svg: portrait(900, 1200, ['#f3d9c4', '#c98b6b'], '#d9a27e', '#2b1d16', '#0a6b5d'),
    encode: (s) => s.jpeg({ quality: 88 }),
  },
  {
    file: 'sam-rivera.jpg',
    svg: portrait(1200, 1200, ['#cfe3f7', '#6b8fc9'], '#f0c8a8', '#6b4a2b', '#3b3b58'),
    // What a phone writes: its make and model, and where the photo was taken.
    encode: (s) =>
      s.jpeg({ quality: 88 }).withExif({
        IFD0: { Make: 'DemoPhone', Model: 'Demo 15', Copyright: 'Sam Rivera' },
        IFD3: {
          GPSLatitudeRef: 'N',
          GPSLatitude: '51/1 30/1 2600/100',
          GPSLongitudeRef: 'W',
          GPSLongitude: '0/1 7/1 3900/100',
        },
      }),
  },
  {
    file: 'dana-ortiz.jpg',
    svg: portrait(1000, 800, ['#e8e2f5', '#9a86c9'], '#8d5a3b', '#1c1410', '#c94f2b'),
    encode: (s) => s.jpeg({ quality: 88 }),
  },
  {
    file: 'qahwat-alnakheel.png',
    svg: logo(
      600,
      '#f5ecd9',
      `<circle cx="50" cy="50" r="38" fill="#5b3a1e"/><path d="M50 72 V40 M50 40 C40 30 30 32 24 40 M50 40 C60 30 70 32 76 40 M50 40 C44 28 36 24 30 26 M50 40 C56 28 64 24 70 26" stroke="#f5ecd9" stroke-width="4" fill="none" stroke-linecap="round"/>`,
    ),
    encode: (s) => s.png(),
  },
  {
    file: 'northwind-studio.png',
    svg: logo(
      600,
      '#10304a',
      `<path d="M22 74 L50 22 L78 74 Z" fill="#5fb3d9"/><path d="M50 22 L50 74" stroke="#10304a" stroke-width="5"/><circle cx="50" cy="82" r="4" fill="#f2f7fa"/>`,
    ),
    encode: (s) => s.png(),
  },
  // The background of Layla's card (issue 49): an eight-pointed star pattern, as a designer's backdrop would be.
  {
    file: 'layla-backdrop.jpg',
    svg: `<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="1000" viewBox="0 0 160 100">
  <defs>
    <linearGradient id="b" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#0a6b5d"/><stop offset="1" stop-color="#c98b6b"/></linearGradient>
    <pattern id="s" width="20" height="20" patternUnits="userSpaceOnUse">
      <path d="M10 2 L12.5 7.5 L18 10 L12.5 12.5 L10 18 L7.5 12.5 L2 10 L7.5 7.5 Z" fill="#f3d9c4" opacity="0.35"/>
      <rect x="6" y="6" width="8" height="8" transform="rotate(45 10 10)" fill="none" stroke="#f3d9c4" stroke-width="0.6" opacity="0.5"/>
    </pattern>
  </defs>
  <rect width="160" height="100" fill="url(#b)"/><rect width="160" height="100" fill="url(#s)"/>
</svg>`,
    encode: (s) => s.jpeg({ quality: 80 }),
  },
  // The café's links' thumbnails (issue 49): a cup for the menu, a pin for the map.
  {
    file: 'nakheel-menu.png',
    svg: logo(
      300,
      '#f5ecd9',
      `<path d="M28 40 H68 V62 C68 74 58 80 48 80 C38 80 28 74 28 62 Z" fill="#8b4513"/><path d="M68 46 C80 46 80 62 68 62" stroke="#8b4513" stroke-width="5" fill="none"/><path d="M40 20 C36 26 44 28 40 34 M52 20 C48 26 56 28 52 34" stroke="#5b3a1e" stroke-width="3" fill="none" stroke-linecap="round"/>`,
    ),
    encode: (s) => s.png(),
  },
  {
    file: 'nakheel-map.png',
    svg: logo(
      300,
      '#e6efe3',
      `<path d="M0 70 L100 40 M30 0 L55 100" stroke="#ffffff" stroke-width="8"/><path d="M50 18 C36 18 28 28 28 40 C28 56 50 80 50 80 C50 80 72 56 72 40 C72 28 64 18 50 18 Z" fill="#8b4513"/><circle cx="50" cy="40" r="8" fill="#f5ecd9"/>`,
    ),
    encode: (s) => s.png(),
  },
];
const only = process.argv.slice(2);

mkdirSync(folder, { recursive: true });
for (const image of images.filter((i) => only.length === 0 || only.includes(i.file))) {
  await image.encode(sharp(Buffer.from(image.svg))).toFile(join(folder, image.file));
  console.log(`wrote scripts/demo-images/${image.file}`);
}
