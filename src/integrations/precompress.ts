// Build step after the twins: a gzip and a brotli copy beside every text file of dist/client (x.html.gz,
// x.html.br), for a front that serves them as they are (nginx gzip_static / brotli_static, a CDN's
// precompressed assets) and for the sidecar, which loads them beside each file. Compressed once, at high levels,
// instead of on every response; what is text is src/lib/media-types.ts's rule, and what is worth it compression.ts's.
import type { AstroIntegration } from 'astro';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, gzip } from 'node:zlib';
import { ENCODING_SUFFIX, MIN_COMPRESS_BYTES, zlibOptions } from '../lib/compression.ts';
import { filesUnder } from '../lib/files.ts';
import { isTextType, typeOf } from '../lib/media-types.ts';
import { buildCacheDir, codeHash, keyOf, linkOrCopy, writeEntry } from './build-cache.ts';
import { buildStep } from './build-step.ts';
import type { FileDigests } from './file-digests.ts';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** The code the copies are made by: a change to it compresses everything again. */
const COMPRESSION_CODE = ['src/lib/compression.ts', 'src/integrations/precompress.ts'];

/**
 * Writes the .gz and .br copies; a file compressed before (its bytes' SHA-256, file-digests.ts) is linked from the
 * cache (build-cache.ts) without being read.
 */
async function precompress(
  root: string,
  cache: { dir: string; code: string },
  digests: FileDigests,
): Promise<{ written: number; reused: number }> {
  const queue: string[] = [];
  for (const file of filesUnder(root)) if (isTextType(typeOf(`/${file}`))) queue.push(join(root, file));
  let written = 0;
  let reused = 0;
  // zlib's async calls run on libuv's threads: a few at a time keep every core busy.
  const worker = async () => {
    for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
      // Synchronous file calls: fs/promises' writeFile was 14 times slower for thousands of small files.
      const { size, sha256 } = digests.of(file);
      if (size < MIN_COMPRESS_BYTES) continue;
      // Fingerprinted files are few and loaded by many pages: the smallest brotli.
      const best = /[\\/]_astro[\\/]/.test(file);
      const key = join(cache.dir, keyOf(cache.code + (best ? 'best' : ''), sha256));
      if (existsSync(`${key}.br`)) {
        linkOrCopy(`${key}.gz`, `${file}${ENCODING_SUFFIX.gzip}`);
        linkOrCopy(`${key}.br`, `${file}${ENCODING_SUFFIX.br}`);
        written++;
        reused++;
        continue;
      }
      const body = readFileSync(file);
      const [gz, br] = await Promise.all([
        gzipAsync(body, zlibOptions('gzip', body.length)),
        brotliAsync(body, zlibOptions('br', body.length, { best })),
      ]);
      // Written once, to the cache, and linked into the build as a rebuild links them (writing both cost a cold
      // build twice the file system's time). The .br last: it is what a later build looks for.
      writeEntry(`${key}.gz`, gz);
      writeEntry(`${key}.br`, br);
      linkOrCopy(`${key}.gz`, `${file}${ENCODING_SUFFIX.gzip}`);
      linkOrCopy(`${key}.br`, `${file}${ENCODING_SUFFIX.br}`);
      written++;
    }
  };
  await Promise.all(Array.from({ length: availableParallelism() * 2 }, worker));
  return { written, reused };
}

export default function precompressIntegration(digestsOf: (projectRoot: string) => FileDigests): AstroIntegration {
  return buildStep('precompress', async ({ projectRoot, root }) => {
    const cache = { dir: buildCacheDir(projectRoot, 'compressed'), code: codeHash(projectRoot, COMPRESSION_CODE) };
    const { written, reused } = await precompress(root, cache, digestsOf(projectRoot));
    digestsOf(projectRoot).save();
    return `${written} files precompressed (gzip and brotli; ${reused} from the build cache)`;
  });
}
