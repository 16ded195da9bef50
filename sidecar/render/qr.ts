// QR codes as SVG, drawn by the qrcode library: error correction M (a smudged or partly covered code still reads),
// the standard quiet zone of four modules, dark on light whatever the page's colour scheme. Text is encoded as
// UTF-8 bytes, so Arabic names in a contact code arrive intact.
import QRCode from 'qrcode';
import { M } from 'qrcode/lib/core/error-correction-level.js';
import { BYTE } from 'qrcode/lib/core/mode.js';
import { getCapacity } from 'qrcode/lib/core/version.js';

const LEVEL = 'M';
const segments = (text: string) => [{ data: new TextEncoder().encode(text), mode: 'byte' as const }];

/** Bytes a code of each version holds at our level in byte mode, from the library's own tables (index: version). */
const CAPACITY = [0, ...Array.from({ length: 40 }, (_, i) => getCapacity(i + 1, M, BYTE))];

/**
 * The QR version (size: 17 + 4 × version modules a side) that `text` needs at our error correction level, read from
 * the capacity tables the library chooses by (drawing a code to learn its version took 3–8 ms); Infinity when no
 * version holds it (past 2,331 bytes: a card with every field at its longest).
 */
export function qrVersion(text: string): number {
  const bytes = Buffer.byteLength(text);
  const version = CAPACITY.findIndex((capacity, v) => v > 0 && capacity >= bytes);
  return version === -1 ? Infinity : version;
}

/** `dark`: the modules' colour (an owner's, theme.ts qrInk: at least 7:1 on the white ground), black by default. */
export async function qrSvg(text: string, dark = '#000000'): Promise<string> {
  const svg = await QRCode.toString(segments(text), {
    type: 'svg',
    errorCorrectionLevel: LEVEL,
    margin: 4,
    color: { dark: /^#[0-9a-f]{6}$/.test(dark) ? dark : '#000000', light: '#ffffff' },
  });
  // An accessible name for the image when it is opened on its own; pages give it alt text of their own.
  return svg.replace('<svg ', '<svg role="img" aria-label="QR code" ');
}
