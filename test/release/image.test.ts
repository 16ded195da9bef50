// The OCI image (#50), as an operator runs it: built by `npm run image`'s function from a release folder, offline, on a
// base made from Debian's packages; run by podman with a read-only root file system, as an unprivileged user, the
// database a read-only volume seeded by the image's own CLI. It serves a profile and its twin, says its version, its
// HEALTHCHECK passes, nothing can be written beside the release, and SIGTERM stops it cleanly; a build in a volume
// (DIST_DIR) is served instead of the one inside.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { podman } from '../../scripts/image.ts';
import { freePort } from '../../scripts/sidecar-process.ts';
import { distDir, expectedLiveness, projectRoot, testConfig } from '../helpers/env.ts';
import { guideBlock, runGuideBlock } from '../helpers/guide.ts';

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
  expect(await live!.json()).toEqual(expectedLiveness());
  return { container, base };
}

describe('the container image', () => {
  beforeAll(() => {
    // The database volume: written once by the image's CLI (as its user), then mounted read-only for the server.
    mkdirSync(data);
    chmodSync(data, 0o777);
    podman([
      'run',
      '--rm',
      '--volume',
      `${data}:/var/lib/bio`,
      '--entrypoint',
      '/opt/bio/bin/db',
      inject('release').image,
      'seed-demo',
    ]);
  });

  it('runs read-only as an unprivileged user and serves the site from a database volume', async () => {
    // The tier's image (test/setup/release.ts): `npm run image`'s function on the tier's release folder.
    const { image, imageBytes } = inject('release');
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

  it('is named by its version and build, labelled, without a package manager, with pg_dump (#61)', () => {
    const { image, folder } = inject('release');
    const manifest = JSON.parse(readFileSync(join(folder, 'dist', 'build-manifest.json'), 'utf8')) as {
      fingerprint: string;
      revision: string;
      builtAt: string;
    };
    const { version } = expectedLiveness(join(folder, 'dist'));
    // The version, the commit and the build: another commit or other content is another name.
    const commit = manifest.revision.slice(0, 12) + (manifest.revision.endsWith('-dirty') ? '.dirty' : '');
    expect(image).toBe(`localhost/bio-cards:${version}-${commit}-${manifest.fingerprint.slice(0, 12)}`);
    const labels = JSON.parse(podman(['image', 'inspect', '--format', '{{json .Labels}}', image])) as Record<
      string,
      string
    >;
    expect(labels).toMatchObject({
      'org.opencontainers.image.version': version,
      'org.opencontainers.image.revision': manifest.revision,
      'org.opencontainers.image.created': manifest.builtAt,
    });
    // What is inside, asked of the image's own Node: every file of the release, no apt and no dpkg, and PostgreSQL's
    // client programs, which `bin/db backup` runs on PostgreSQL.
    const inside = JSON.parse(
      podman([
        'run',
        '--rm',
        '--entrypoint',
        '/opt/bio/bin/node',
        image,
        '-e',
        `const fs = require('node:fs');
         const files = fs.readdirSync('/opt/bio', { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
         const on = (f) => fs.existsSync(f);
         const dump = require('node:child_process').execFileSync('/usr/lib/postgresql/15/bin/pg_dump', ['--version']);
         console.log(JSON.stringify({ files: files.length, apt: on('/usr/bin/apt') || on('/usr/bin/apt-get'),
           dpkg: on('/usr/bin/dpkg'), pgDump: String(dump).trim() }));`,
      ]),
    ) as { files: number; apt: boolean; dpkg: boolean; pgDump: string };
    const released = readdirSync(folder, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
    expect(inside).toMatchObject({ files: released, apt: false, dpkg: false });
    expect(inside.pgDump).toMatch(/^pg_dump \(PostgreSQL\) 15\./);
  });

  it("moves only the build's layer when only the content changed (#61)", () => {
    // The same release with one article's worth of change: another build (its fingerprint), the same code.
    const { image, folder } = inject('release');
    const next = join(work, 'next', basename(folder));
    cpSync(folder, next, { recursive: true });
    writeFileSync(join(next, 'dist', 'client', 'volume.txt'), 'an edit\n');
    const manifestFile = join(next, 'dist', 'build-manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { fingerprint: string };
    manifest.fingerprint = createHash('sha256').update('an edit').digest('hex');
    writeFileSync(manifestFile, JSON.stringify(manifest));
    // The guide's command.
    const made = spawnSync('npm', ['run', 'image', '--', '--release', next, '--no-build'], {
      cwd: projectRoot,
      encoding: 'utf8',
    });
    expect(made.status, made.stderr).toBe(0);
    const upgrade = image.replace(/-[0-9a-f]{12}$/, `-${manifest.fingerprint.slice(0, 12)}`);
    expect(made.stdout).toContain(`${upgrade}:`);
    try {
      const layers = (name: string) =>
        podman(['image', 'inspect', '--format', '{{range .RootFS.Layers}}{{println .}}{{end}}', name])
          .trim()
          .split('\n');
      const [before, after] = [layers(image), layers(upgrade)];
      expect(after).toHaveLength(before.length);
      // The runtime, the packages and the code are the layers a node already has; the build's is new.
      expect(after.slice(0, -1)).toEqual(before.slice(0, -1));
      expect(after.at(-1)).not.toBe(before.at(-1));
    } finally {
      podman(['rmi', '--force', upgrade]);
    }
  });

  it('seeds a volume and serves it as the guide prints the commands (#61)', async () => {
    // The block makes the folder and gives it to the image's user.
    const volume = join(work, 'guide');
    const port = await freePort();
    const container = `bio-image-guide-${process.pid}`;
    containers.push(container);
    runGuideBlock(
      guideBlock(/--entrypoint \/opt\/bio\/bin\/db \$IMAGE seed-demo/),
      [
        [/^IMAGE=(\S+)/m.exec(guideBlock(/\$IMAGE seed-demo/))![1]!, inject('release').image],
        ['/srv/bio', volume],
        ['https://bio.example', testConfig.baseUrl],
        ['-p 8080:8080', `-p 127.0.0.1:${port}:8080`],
        // Named, so that the test can stop it.
        ['podman run -d', `podman run -d --name ${container}`],
      ],
      { ...process.env, CONTAINERS_CONF: join(projectRoot, 'deploy', 'image', 'containers.conf') },
    );
    let page: Response | undefined;
    for (let i = 0; i < 150 && page?.status !== 200; i++) {
      page = await fetch(`http://127.0.0.1:${port}/p/layla`).catch(() => undefined);
      if (page?.status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(page?.status).toBe(200);
    expect(await page!.text()).toContain('ليلى الأحمد');
    podman(['rm', '--force', container]);
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
