// The release tier's artefacts, made once for the run (#50): a release folder of the tests' build, the sidecar's image
// built from it, and the edge's image. The tier's files share them (two files building one image tag at once would
// race); the folder, some 450 MiB, is removed after the run, the images stay (tagged, each build replacing the last).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureEdgeImage, makeImage } from '../../scripts/image.ts';
import { makeRelease } from '../../scripts/release.ts';
import { projectRoot } from '../helpers/env.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    release: { folder: string; bytes: number; image: string; imageBytes: number; edgeImage: string };
  }
}

export default function setup(project: TestProject) {
  const { version } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
  const work = mkdtempSync(join(tmpdir(), 'bio-release-'));
  // The tests' build (for their BASE_URL, http://localhost:8080), as `npm run release` would make it.
  const { folder, bytes } = makeRelease({ build: false, out: join(work, `bio-cards-${version}`) });
  const { image, bytes: imageBytes } = makeImage({ release: folder, build: false });
  const edgeImage = ensureEdgeImage();
  project.provide('release', { folder, bytes, image, imageBytes, edgeImage });
  return () => rmSync(work, { recursive: true, force: true });
}
