// QR codes as SVG, drawn by the qrcode library: error correction M (a smudged or partly covered code still reads),
// the standard quiet zone of four modules, dark on light whatever the page's colour scheme. Text is encoded as
// UTF-8 bytes, so Arabic names in a contact code arrive intact.
import QRCode from 'qrcode';

const LEVEL = 'M';
const segments = (text: string) => [{ data: new TextEncoder().encode(text), mode: 'byte' as const }];

/**
 * The QR version (size: 17 + 4 × version modules a side) that `text` needs at our error correction level; Infinity
 * when no version holds it (past about 2,300 bytes: a card with every field at its longest).
 */
export function qrVersion(text: string): number {
  // Past version 40's capacity no code can hold it: the library would throw.
  if (new TextEncoder().encode(text).length > MAX_BYTES) return Infinity;
  return QRCode.create(segments(text), { errorCorrectionLevel: LEVEL }).version;
}

/** The most bytes a code holds at level M (version 40, byte mode: ISO/IEC 18004 table 7). */
const MAX_BYTES = 2331;

export async function qrSvg(text: string): Promise<string> {
  const svg = await QRCode.toString(segments(text), {
    type: 'svg',
    errorCorrectionLevel: LEVEL,
    margin: 4,
    color: { dark: '#000000', light: '#ffffff' },
  });
  // An accessible name for the image when it is opened on its own; pages give it alt text of their own.
  return svg.replace('<svg ', '<svg role="img" aria-label="QR code" ');
}
