// What is worth compressing, and how: one rule for the build's precompressed copies (for a front and the sidecar) and
// the sidecar's live renders.
import { brotliCompressSync, constants, gzipSync, type BrotliOptions, type ZlibOptions } from 'node:zlib';
import { isTextType } from './media-types.ts';

export type Encoding = 'br' | 'gzip';
/** Preferred first: brotli is a sixth to a quarter smaller than gzip on these pages. */
export const ENCODINGS: readonly Encoding[] = ['br', 'gzip'];
/** The file suffix of each encoding's copy in the build. */
export const ENCODING_SUFFIX: Record<Encoding, string> = { br: '.br', gzip: '.gz' };

/** Below this, compression saves less than a packet. */
export const MIN_COMPRESS_BYTES = 1024;

/** Text formats compress (media-types.ts says which are text); images, fonts and archives already are. */
export function isCompressible(type: string, bytes: number): boolean {
  return bytes >= MIN_COMPRESS_BYTES && isTextType(type);
}

/**
 * zlib's options for an encoding. Brotli at 11 (the smallest) for files every page loads and few there are; at 5 for
 * pages and twins, which are many: on a 7 KB article page 11 took 8.3 ms and saved 16% over 5, which took 0.3 ms
 * (docs/benchmarks/overview.md). gzip at 9: on pages this small it costs little more than 6.
 */
export function zlibOptions(
  encoding: Encoding,
  bytes: number,
  { best = false }: { best?: boolean } = {},
): ZlibOptions | BrotliOptions {
  if (encoding === 'gzip') return { level: 9 };
  return {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: best ? 11 : 5,
      ...(bytes > 0 ? { [constants.BROTLI_PARAM_SIZE_HINT]: bytes } : {}),
    },
  };
}

/** The body in `encoding`, now (a live render is compressed once, when it is first asked for so). */
export function compress(body: Buffer, encoding: Encoding): Buffer {
  return encoding === 'gzip'
    ? gzipSync(body, zlibOptions('gzip', body.length))
    : brotliCompressSync(body, zlibOptions('br', body.length));
}
