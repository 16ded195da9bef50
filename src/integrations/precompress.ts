// Build step after the twins: a gzip and a brotli copy beside every text file of dist/client (x.html.gz,
// x.html.br), for a front that serves them as they are (nginx gzip_static / brotli_static, a CDN's
// precompressed assets). Compressed once, at high levels, instead of on every response.
import type { AstroIntegration } from 'astro';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { filesUnder } from '../lib/files.ts';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** Files worth compressing: text, by extension (the discovery documents without one are listed by name). */
const TEXT = new Set(['.html', '.md', '.css', '.js', '.mjs', '.json', '.xml', '.txt', '.svg', '.webmanifest']);
const TEXT_NAMES = new Set(['api-catalog']);
/** Below this, compression saves less than a packet and costs a file. */
const MIN_BYTES = 1024;

/**
 * Brotli at 11 (the smallest) for the few fingerprinted assets every page loads; at 5 for the pages and twins,
 * which are many: on a 7 KB article page 11 took 8.3 ms and saved 16% over 5, which took 0.3 ms; at 11, 4,000
 * articles spent 30 s compressing (BENCHMARKS.md).
 */
function brotliQuality(file: string): number {
  return /[\\/]_astro[\\/]/.test(file) ? 11 : 5;
}

export async function precompress(root: string): Promise<number> {
  const queue: string[] = [];
  for (const file of filesUnder(root)) if (TEXT.has(extname(file)) || TEXT_NAMES.has(basename(file))) queue.push(join(root, file));
  let written = 0;
  // zlib's async calls run on libuv's threads: a few at a time keep every core busy.
  const worker = async () => {
    for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
      // Synchronous file calls: fs/promises' writeFile was 14 times slower for thousands of small files.
      const body = readFileSync(file);
      if (body.length < MIN_BYTES) continue;
      const [gz, br] = await Promise.all([
        gzipAsync(body, { level: 9 }),
        brotliAsync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: brotliQuality(file), [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
      ]);
      writeFileSync(`${file}.gz`, gz);
      writeFileSync(`${file}.br`, br);
      written++;
    }
  };
  await Promise.all(Array.from({ length: availableParallelism() * 2 }, worker));
  return written;
}

export default function precompressIntegration(): AstroIntegration {
  return {
    name: 'precompress',
    hooks: {
      'astro:build:done': async ({ dir, logger }) => {
        const started = performance.now();
        const count = await precompress(fileURLToPath(dir));
        logger.info(`${count} files precompressed (gzip and brotli) in ${Math.round(performance.now() - started)} ms`);
      },
    },
  };
}
