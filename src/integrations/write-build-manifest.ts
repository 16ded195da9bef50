// Build step: dist/build-manifest.json (src/lib/build-manifest.ts), what the build was made for, which `npm start` and
// the sidecar check at start-up, with the hashes of the pages' inline styles that the Content-Security-Policy allows.
import type { AstroIntegration } from 'astro';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildFingerprint, MANIFEST_FILE, sourceRevision, type BuildManifest } from '../lib/build-manifest.ts';
import type { PublicConfig } from '../lib/site-config.ts';
import { buildStep } from './build-step.ts';
import type { PageFactsBoard } from './page-facts.ts';

export default function writeBuildManifest(config: PublicConfig, pages: PageFactsBoard): AstroIntegration {
  return buildStep('build-manifest', async ({ projectRoot, root }) => {
    const manifest: BuildManifest = {
      baseUrl: config.baseUrl,
      serviceName: config.serviceName,
      contactEmail: config.contactEmail,
      fingerprint: buildFingerprint(projectRoot, config),
      // Live pages use the same layout, so the same styles: test/http/site.test.ts checks every page kind.
      styleHashes: pages.read('build-manifest').styleHashes,
      builtAt: new Date().toISOString(),
      revision: sourceRevision(projectRoot),
    };
    await writeFile(join(root, '..', MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
    return `the build manifest for ${config.baseUrl} (${manifest.styleHashes.length} inline style${manifest.styleHashes.length === 1 ? '' : 's'})`;
  });
}
