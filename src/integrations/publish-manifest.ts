// Build step, last: dist/publish-manifest.json, every file of dist/client with a hash of its bytes, which
// scripts/publish.ts compares with the manifest of the last published build to upload, delete and invalidate only
// what changed (src/lib/publishing/plan.ts).
import type { AstroIntegration } from 'astro';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { manifestOf, PUBLISH_MANIFEST_FILE } from '../lib/publishing/plan.ts';
import { buildStep } from './build-step.ts';
import type { FileDigests } from './file-digests.ts';

export default function publishManifest(digestsOf: (projectRoot: string) => FileDigests): AstroIntegration {
  return buildStep('publish-manifest', ({ projectRoot, root }) => {
    const digests = digestsOf(projectRoot);
    const manifest = manifestOf(root, (path) => digests.of(path).sha256);
    digests.save();
    writeFileSync(join(root, '..', PUBLISH_MANIFEST_FILE), JSON.stringify(manifest) + '\n');
    return `${Object.keys(manifest.files).length} files in ${PUBLISH_MANIFEST_FILE}`;
  });
}
