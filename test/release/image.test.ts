// The OCI image (#50), as an operator runs it: built by `npm run image`'s function from a release folder, offline, on a
// base made from Debian's packages; run by podman with a read-only root file system, as an unprivileged user, the
// database a read-only volume seeded by the image's own CLI. It serves a profile and its twin, says its version, its
// HEALTHCHECK passes, nothing can be written beside the release, and SIGTERM stops it cleanly.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { IMAGE, podman } from '../../scripts/image.ts';
import { freePort } from '../../scripts/sidecar-process.ts';
import { projectRoot } from '../helpers/env.ts';

const { version } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
const container = `bio-image-test-${process.pid}`;
/** The database volume: not left behind. */
const work = mkdtempSync(join(tmpdir(), 'bio-image-'));

afterAll(() => {
  podman(['rm', '--force', '--ignore', container]);
  rmSync(work, { recursive: true, force: true });
});

describe('the container image', () => {
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

    // The database volume: written once by the image's CLI (as its user), then mounted read-only for the server.
    const data = join(work, 'data');
    mkdirSync(data);
    chmodSync(data, 0o777);
    podman(['run', '--rm', '--volume', `${data}:/var/lib/bio`, '--entrypoint', '/opt/bio/bin/db', image, 'seed-demo']);
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
      image,
    ]);
    const base = `http://127.0.0.1:${port}`;
    let live: Response | undefined;
    for (let i = 0; i < 150 && !live; i++) {
      live = await fetch(`${base}/livez`).catch(() => undefined);
      if (!live) await new Promise((r) => setTimeout(r, 200));
    }
    expect(live?.status, podman(['logs', container])).toBe(200);
    expect(await live!.json()).toEqual({ status: 'alive', version });
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
});
