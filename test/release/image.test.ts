// The OCI image (#50), as an operator runs it: built by `npm run image`'s function from a release folder, offline, on a
// base made from Debian's packages; run by podman with a read-only root file system, as an unprivileged user, the
// database a read-only volume seeded by the image's own CLI. It serves a profile and its twin, says its version, its
// HEALTHCHECK passes, nothing can be written beside the release, and SIGTERM stops it cleanly; a build in a volume
// (DIST_DIR) is served instead of the one inside.
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { IMAGE, podman } from '../../scripts/image.ts';
import { freePort } from '../../scripts/sidecar-process.ts';
import { distDir, projectRoot } from '../helpers/env.ts';

const { version } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
const containers: string[] = [];
/** The database volume and a build: not left behind. */
const work = mkdtempSync(join(tmpdir(), 'bio-image-'));
const data = join(work, 'data');

afterAll(() => {
  for (const container of containers) podman(['rm', '--force', '--ignore', container]);
  rmSync(work, { recursive: true, force: true });
});

/** Runs the image read-only over the database volume (and `args`); resolves with its address once /livez answers. */
async function serve(args: string[] = []): Promise<{ container: string; base: string }> {
  const container = `bio-image-test-${process.pid}-${containers.length}`;
  containers.push(container);
  const port = await freePort();
  podman([
    'run',
    '--detach',
    '--name',
    container,
    '--read-only',
    '--volume',
    `${data}:/var/lib/bio:ro`,
    '--env',
    'BASE_URL=http://localhost:8080',
    '--publish',
    `127.0.0.1:${port}:8080`,
    ...args,
    inject('release').image,
  ]);
  const base = `http://127.0.0.1:${port}`;
  let live: Response | undefined;
  for (let i = 0; i < 150 && !live; i++) {
    live = await fetch(`${base}/livez`).catch(() => undefined);
    if (!live) await new Promise((r) => setTimeout(r, 200));
  }
  expect(live?.status, podman(['logs', container])).toBe(200);
  expect(await live!.json()).toEqual({ status: 'alive', version });
  return { container, base };
}

describe('the container image', () => {
  beforeAll(() => {
    // The database volume: written once by the image's CLI (as its user), then mounted read-only for the server.
    mkdirSync(data);
    chmodSync(data, 0o777);
    podman(['run', '--rm', '--volume', `${data}:/var/lib/bio`, '--entrypoint', '/opt/bio/bin/db', IMAGE, 'seed-demo']);
  });

  it('runs read-only as an unprivileged user and serves the site from a database volume', async () => {
    // The tier's image (test/setup/release.ts): `npm run image`'s function on the tier's release folder.
    const { image, imageBytes } = inject('release');
    expect(image).toBe(IMAGE);
    expect(imageBytes).toBeGreaterThan(0);
    const [inspected] = JSON.parse(podman(['image', 'inspect', image])) as {
      Config: { User: string };
      Healthcheck?: { Test: string[] };
    }[];
    expect(inspected?.Config.User).toBe('10001:10001');
    expect(inspected?.Healthcheck?.Test).toEqual(['CMD', '/opt/bio/bin/probe', '/health']);

    const { container, base } = await serve();
    const page = await fetch(`${base}/p/layla`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('ليلى الأحمد');
    expect(await (await fetch(`${base}/p/sam-rivera.md`)).text()).toContain('# Sam Rivera');
    // The HEALTHCHECK as podman runs it; the user; a root file system nothing can write.
    podman(['healthcheck', 'run', container]);
    expect(podman(['exec', container, 'id', '-u']).trim()).toBe('10001');
    expect(() => podman(['exec', '--user', '0', container, 'touch', '/opt/bio/written'])).toThrow(
      /Read-only file system/,
    );
    // SIGTERM: drained and exited 0.
    podman(['stop', '--time', '15', container]);
    expect(podman(['inspect', '--format', '{{.State.ExitCode}}', container]).trim()).toBe('0');
  });

  it('serves a build from a volume when DIST_DIR names it', async () => {
    // The tests' build with a file more, mounted read-only where a build's server code finds the release's packages.
    const build = join(work, 'build');
    cpSync(distDir, build, { recursive: true });
    writeFileSync(join(build, 'client', 'volume.txt'), 'the build in the volume\n');
    const { container, base } = await serve([
      '--volume',
      `${build}:/opt/bio/builds/next:ro`,
      '--env',
      'DIST_DIR=/opt/bio/builds/next',
    ]);
    expect(await (await fetch(`${base}/volume.txt`)).text()).toBe('the build in the volume\n');
    expect((await fetch(`${base}/p/layla`)).status).toBe(200);
    podman(['rm', '--force', container]);
  });
});
