// The release tier's artefacts, made once for the run (#50): a release folder of the tests' build, and the images made
// from it by `npm run image` as docs/operations.md gives it (issue 61: the sidecar's and the edge's, nothing a test
// helper builds beside it). The tier's files share them (two files building one image tag at once would race); the
// folder, some 450 MiB, is removed after the run, the images stay (tagged, each build replacing the last).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { EDGE_IMAGE, imageOf, podman } from '../../scripts/image.ts';
import { projectRoot } from '../helpers/env.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    release: { folder: string; bytes: number; image: string; imageBytes: number; edgeImage: string };
  }
}

export default async function setup(project: TestProject) {
  const { version } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
  const work = mkdtempSync(join(tmpdir(), 'bio-release-'));
  // The tests' build (for their BASE_URL, http://localhost:8080), packed by the guide's command with the options it
  // documents (`--no-build`: the build in dist/; `--out`: a folder of the run's own).
  const folder = join(work, `bio-cards-${version}`);
  const released = spawnSync('npm', ['run', 'release', '--', '--no-build', '--out', folder], {
    cwd: projectRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (released.status !== 0) throw new Error(`npm run release failed (${released.status}):\n${released.stdout}`);
  if (!released.stdout.includes(`${folder} (`)) throw new Error(`npm run release did not name ${folder}`);
  const bytes = Number(/\((\d+) MiB/.exec(released.stdout)?.[1] ?? 0) * 2 ** 20;
  // The guide's command, with the options it documents: this folder, and no build of its own (the tests' is in it).
  const made = spawnSync('npm', ['run', 'image', '--', '--release', folder, '--no-build'], {
    cwd: projectRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (made.status !== 0) throw new Error(`npm run image failed (${made.status}):\n${made.stdout}`);
  // The tag the command printed: the version and the build (#61).
  const image = imageOf(join(folder, 'dist'));
  if (!made.stdout.includes(`${image}:`)) throw new Error(`npm run image did not say ${image}:\n${made.stdout}`);
  const imageBytes = Number(podman(['image', 'inspect', '--format', '{{.Size}}', image]).trim());
  project.provide('release', { folder, bytes, image, imageBytes, edgeImage: EDGE_IMAGE });
  return () => rmSync(work, { recursive: true, force: true });
}
