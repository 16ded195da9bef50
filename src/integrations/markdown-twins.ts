// Build step: a Markdown twin beside every HTML page, the static sitemap, and the build manifest the sidecar checks at
// start (with the hashes of the pages' inline styles, which the Content-Security-Policy allows).
import type { AstroIntegration } from 'astro';
import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sitemapXml, type SitemapEntry } from '../lib/sitemap.ts';
import type { TwinJob, TwinResult } from './twin-worker.ts';
import { filesUnder } from '../lib/files.ts';
import type { PublicConfig } from '../lib/site-config.ts';
import { buildFingerprint, MANIFEST_FILE, STATIC_SITEMAP_FILE, type BuildManifest } from '../lib/build-manifest.ts';

/**
 * Converts every page on all cores: the conversion (domino and turndown) is CPU-bound and was most of the build
 * at 2,000 articles per language (see BENCHMARKS.md). Returns the pages' sitemap entries; throws naming the
 * first page that failed.
 */
async function twinsInWorkers(workerFile: string, root: string, files: string[]): Promise<{ sitemap: SitemapEntry[]; styleHashes: string[] }> {
  const workers = Math.max(1, Math.min(availableParallelism(), Math.ceil(files.length / 50)));
  const shares = Array.from({ length: workers }, (_, i) => files.filter((_, k) => k % workers === i));
  const results = await Promise.all(
    shares.map(
      (share) =>
        new Promise<TwinResult>((resolve, reject) => {
          const worker = new Worker(workerFile, { workerData: { root, files: share } satisfies TwinJob });
          worker.once('message', resolve);
          worker.once('error', reject);
          worker.once('exit', (code) => code !== 0 && reject(new Error(`a Markdown twin worker exited with ${code}`)));
        }),
    ),
  );
  const entries: SitemapEntry[] = [];
  const styleHashes = new Set<string>();
  for (const result of results) {
    if (!result.ok) throw new Error(`Markdown twin of ${relative(root, result.file)} failed: ${result.message}`);
    entries.push(...result.entries);
    for (const hash of result.styleHashes) styleHashes.add(hash);
  }
  return { sitemap: entries, styleHashes: [...styleHashes].sort() };
}

export default function markdownTwins(config: PublicConfig): AstroIntegration {
  let projectRoot = process.cwd();
  return {
    name: 'markdown-twins',
    hooks: {
      'astro:config:done': ({ config: astroConfig }) => {
        projectRoot = fileURLToPath(astroConfig.root);
      },
      'astro:build:done': async ({ dir, logger }) => {
        const root = fileURLToPath(dir);
        const started = performance.now();
        const files: string[] = [];
        for (const file of filesUnder(root)) if (file.endsWith('.html')) files.push(join(root, file));
        const { sitemap, styleHashes } = await twinsInWorkers(join(projectRoot, 'src/integrations/twin-worker.ts'), root, files);
        const count = files.length;
        logger.info(`${count} Markdown twins in ${Math.round(performance.now() - started)} ms for ${config.baseUrl}`);

        sitemap.sort((a, b) => a.url.localeCompare(b.url));
        // The static pages' entries: sitemap.xml for a front that serves dist/client alone, and JSON for the sidecar,
        // which adds the live pages to them.
        await writeFile(join(root, 'sitemap.xml'), await sitemapXml(sitemap));
        await writeFile(join(root, '..', STATIC_SITEMAP_FILE), JSON.stringify(sitemap) + '\n');

        const manifest: BuildManifest = {
          baseUrl: config.baseUrl,
          serviceName: config.serviceName,
          contactEmail: config.contactEmail,
          fingerprint: buildFingerprint(projectRoot, config),
          // Live pages use the same layout, so the same styles: test/http/site.test.ts checks every page kind.
          styleHashes,
          builtAt: new Date().toISOString(),
        };
        await writeFile(join(root, '..', MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
      },
    },
  };
}
