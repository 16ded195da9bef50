// Build step: a Markdown twin beside every HTML page, the static sitemap, and the build manifest the sidecar checks at start.
import type { AstroIntegration } from 'astro';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pageToMarkdown } from '../lib/markdown.ts';
import { sitemapEntryOf, sitemapXml, type SitemapEntry } from '../lib/sitemap.ts';
import type { SiteConfig } from '../lib/site-config.ts';
import { buildFingerprint, MANIFEST_FILE, STATIC_SITEMAP_FILE, type BuildManifest } from '../lib/build-manifest.ts';

async function* htmlFiles(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* htmlFiles(full);
    else if (entry.name.endsWith('.html')) yield full;
  }
}

export default function markdownTwins(config: SiteConfig): AstroIntegration {
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
        let count = 0;
        const sitemap: SitemapEntry[] = [];
        for await (const file of htmlFiles(root)) {
          const rel = relative(root, file);
          const html = await readFile(file, 'utf8');
          try {
            await writeFile(file.replace(/\.html$/, '.md'), pageToMarkdown(html));
          } catch (err) {
            throw new Error(`Markdown twin of ${rel} failed: ${(err as Error).message}`, { cause: err });
          }
          const entry = sitemapEntryOf(html);
          if (entry) sitemap.push(entry);
          count++;
        }
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
          builtAt: new Date().toISOString(),
        };
        await writeFile(join(root, '..', MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
      },
    },
  };
}
