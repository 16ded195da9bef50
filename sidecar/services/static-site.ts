// The built site (dist/client) held in memory: every file with its bytes, its build's compressed copies, type,
// ETag and cache policy.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENCODING_SUFFIX, ENCODINGS, type Encoding } from '../../src/lib/compression.ts';
import { filesUnder } from '../../src/lib/files.ts';
import { typeOfBuildFile } from '../../src/lib/media-types.ts';
import { cacheControlOf } from '../../src/lib/surface.ts';
import { twinPath, urlOfBuildFile } from '../../src/lib/urls.ts';
import { makeAsset, type Asset, type Page } from '../asset.ts';

/** The build's compressed copies of a file (x.br, x.gz beside x, among `files`), as precompress wrote them. */
function copiesOf(root: string, file: string, files: ReadonlySet<string>): Partial<Record<Encoding, Buffer>> {
  const copies: Partial<Record<Encoding, Buffer>> = {};
  for (const encoding of ENCODINGS) {
    const copy = file + ENCODING_SUFFIX[encoding];
    if (files.has(copy)) copies[encoding] = readFileSync(join(root, copy));
  }
  return copies;
}

export class StaticSite {
  /** Every file by its URL path, twins included (`/en/blog.md`). */
  readonly files = new Map<string, Asset>();
  /** Every HTML page by its clean URL path (`/`, `/en/blog`), with its twin. */
  readonly pages = new Map<string, Page>();

  readonly root: string;

  constructor(root: string) {
    this.root = root;
    const html = new Map<string, Asset>();
    const files = new Set(filesUnder(root));
    for (const file of files) {
      // The compressed copies (src/integrations/precompress.ts) are loaded with their file, not URLs of their own.
      if (ENCODINGS.some((encoding) => file.endsWith(ENCODING_SUFFIX[encoding]))) continue;
      const urlPath = urlOfBuildFile(file);
      const asset = makeAsset(
        readFileSync(join(root, file)),
        typeOfBuildFile(file),
        cacheControlOf(urlPath),
        copiesOf(root, file, files),
      );
      if (file.endsWith('.html')) html.set(urlPath, asset);
      else this.files.set(urlPath, asset);
    }
    for (const [pagePath, asset] of html) {
      const markdown = this.files.get(twinPath(pagePath));
      if (!markdown) throw new Error(`the build has no Markdown twin for ${pagePath}; rebuild with npm run build`);
      this.pages.set(pagePath, { html: asset, markdown });
    }
  }
}
