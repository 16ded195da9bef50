// Build step: the Open Graph image of every page that names one (articles and the blog's list pages). Each page
// names its image by a hash of what it shows (src/lib/og.ts) in <meta property="og:image">, with the title drawn in
// og:image:alt and its language in <html lang>; this step reads those (as the twins step recorded them, page-facts.ts),
// checks the hash, and draws what the build cache does not already hold (.cache/og-images/, kept between builds and by
// the publish workflow), on every core. A changed title is a new name, so the cache can never serve a stale picture.
import type { AstroIntegration } from 'astro';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isLang } from '../lib/locales.ts';
import { blogCard, ogImagePath, type OgCard } from '../lib/og.ts';
import type { PublicConfig } from '../lib/site-config.ts';
import type { OgAnswer, OgJob } from './og-worker.ts';
import { codeHash, linkOrCopy } from './build-cache.ts';
import { buildStep, inWorkers } from './build-step.ts';
import type { PageFacts, PageFactsBoard } from './page-facts.ts';

/** The code that draws an image, from the project's root: what ogDrawingHash hashes. */
const DRAWING_CODE = ['src/lib/og-draw.ts', 'src/integrations/og-worker.ts'];

/** The hash of the drawing code (and of the installed packages: the fonts, CanvasKit), a part of every image's name. */
export function ogDrawingHash(projectRoot: string): string {
  return codeHash(projectRoot, DRAWING_CODE);
}

/** The cards the built pages name, by image path; throws when a page's image name does not match what it shows. */
function cardsOfPages(
  mentions: PageFacts['ogImages'],
  config: Pick<PublicConfig, 'baseUrl' | 'serviceName'>,
  drawing: string,
): Map<string, OgCard> {
  const cards = new Map<string, OgCard>();
  for (const [file, { image, alt, lang }] of mentions) {
    if (alt === undefined || !isLang(lang)) throw new Error(`${file}: og:image without og:image:alt or a language`);
    const card = blogCard(config, lang, alt);
    const path = new URL(image).pathname;
    if (ogImagePath(card, drawing) !== path)
      throw new Error(
        `${file}: og:image ${path} is not the image of what the page shows, drawn by this code (${ogImagePath(card, drawing)})`,
      );
    cards.set(path, card);
  }
  return cards;
}

async function writeOgImages(
  root: string,
  mentions: PageFacts['ogImages'],
  cacheDir: string,
  workerFile: string,
  config: Pick<PublicConfig, 'baseUrl' | 'serviceName'>,
  drawing: string,
): Promise<{ drawn: number; reused: number }> {
  const jobs: OgJob['jobs'] = [];
  let reused = 0;
  for (const [path, card] of cardsOfPages(mentions, config, drawing)) {
    const out = join(root, path);
    const cached = join(cacheDir, path.slice(path.lastIndexOf('/') + 1));
    if (existsSync(cached)) {
      linkOrCopy(cached, out);
      reused++;
    } else jobs.push({ card, out, cached });
  }
  const answers = await inWorkers<OgJob['jobs'][number], OgAnswer>(
    workerFile,
    jobs,
    8,
    (share) => ({ jobs: share }) satisfies OgJob,
    'an Open Graph worker',
  );
  for (const answer of answers) if (!answer.ok) throw new Error(`Open Graph image: ${answer.problem}`);
  return { drawn: jobs.length, reused };
}

export default function ogImages(config: PublicConfig, pages: PageFactsBoard): AstroIntegration {
  return buildStep('og-images', async ({ projectRoot, root }) => {
    const cacheDir = join(projectRoot, '.cache/og-images');
    const { drawn, reused } = await writeOgImages(
      root,
      pages.read('og-images').ogImages,
      cacheDir,
      join(projectRoot, 'src/integrations/og-worker.ts'),
      config,
      ogDrawingHash(projectRoot),
    );
    return `${drawn} Open Graph images drawn, ${reused} reused from the cache`;
  });
}
