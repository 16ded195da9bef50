// Build step: the static pages' sitemap, from the entries the twins step read in every page's head: sitemap.xml for a
// front that serves dist/client alone, and JSON beside it for the sidecar, which adds the live pages to them.
import type { AstroIntegration } from 'astro';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sitemapXml, STATIC_SITEMAP_FILE } from '../lib/sitemap.ts';
import { buildStep } from './build-step.ts';
import type { PageFactsBoard } from './page-facts.ts';

export default function staticSitemap(pages: PageFactsBoard): AstroIntegration {
  return buildStep('static-sitemap', async ({ root }) => {
    const { sitemap } = pages.read('static-sitemap');
    await writeFile(join(root, 'sitemap.xml'), await sitemapXml(sitemap));
    await writeFile(join(root, '..', STATIC_SITEMAP_FILE), JSON.stringify(sitemap) + '\n');
    return `a sitemap of ${sitemap.length} static pages`;
  });
}
