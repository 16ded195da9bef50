// `npm run image [-- --release DIR] [--base IMAGE] [--no-build]` (#50): the sidecar's OCI image, built by podman from a
// release folder (`npm run release`: one is made unless --release names one) with deploy/image/Containerfile, offline.
// No image registry is reachable on this machine kind, so the base is made from Debian's packages the first time
// (mmdebstrap --variant=minbase bookworm, imported as localhost/bio-cards-base:bookworm); --base names another (a
// registry's debian:bookworm-slim in production). Tagged localhost/bio-cards:<version>; its size is printed.
// podman reads deploy/image/containers.conf (CONTAINERS_CONF), so the machine's own configuration is left alone.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { makeRelease } from './release.ts';

const root = join(import.meta.dirname, '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

export const IMAGE = `localhost/bio-cards:${version}`;
export const DEFAULT_BASE = 'localhost/bio-cards-base:bookworm';

/** podman with the project's settings (deploy/image/containers.conf). */
export function podman(args: string[], options: { input?: string } = {}): string {
  const run = spawnSync('podman', args, {
    encoding: 'utf8',
    env: { ...process.env, CONTAINERS_CONF: join(root, 'deploy', 'image', 'containers.conf') },
    maxBuffer: 64 * 1024 * 1024,
    ...(options.input !== undefined ? { input: options.input } : {}),
  });
  if (run.error) throw run.error;
  if (run.status !== 0) throw new Error(`podman ${args.join(' ')} failed (${run.status}): ${run.stderr.trim()}`);
  return run.stdout;
}

const imageExists = (name: string) =>
  spawnSync('podman', ['image', 'exists', name], {
    env: { ...process.env, CONTAINERS_CONF: join(root, 'deploy', 'image', 'containers.conf') },
  }).status === 0;

/** The Debian base, made from Debian's packages when this machine has none yet (some 15 s, 180 MB). */
export function ensureBase(name = DEFAULT_BASE): void {
  if (imageExists(name)) return;
  if (name !== DEFAULT_BASE) throw new Error(`no image ${name} here: pull it, or leave --base out to make one`);
  const work = mkdtempSync(join(tmpdir(), 'bio-base-'));
  try {
    const tarball = join(work, 'rootfs.tar');
    execFileSync('mmdebstrap', ['--quiet', '--variant=minbase', 'bookworm', tarball], { stdio: 'inherit' });
    podman(['import', tarball, name]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export function makeImage(options: { release?: string; base?: string; build: boolean }): {
  image: string;
  bytes: number;
} {
  const release = options.release ?? makeRelease({ build: options.build }).folder;
  const base = options.base ?? DEFAULT_BASE;
  ensureBase(base);
  podman([
    'build',
    // Docker's format: OCI's has no HEALTHCHECK.
    '--format=docker',
    '--network=none',
    `--build-arg=BASE=${base}`,
    '--file',
    join(root, 'deploy', 'image', 'Containerfile'),
    '--tag',
    IMAGE,
    release,
  ]);
  // The image this tag named before, now untagged: removed, so that building again does not pile them up.
  podman(['image', 'prune', '--force', '--filter', 'label=org.opencontainers.image.title=bio-cards']);
  const bytes = Number(podman(['image', 'inspect', '--format', '{{.Size}}', IMAGE]).trim());
  return { image: IMAGE, bytes };
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { release: { type: 'string' }, base: { type: 'string' }, 'no-build': { type: 'boolean' } },
  });
  const { image, bytes } = makeImage({
    build: !values['no-build'],
    ...(values.release ? { release: values.release } : {}),
    ...(values.base ? { base: values.base } : {}),
  });
  console.log(
    `${image}: ${(bytes / 2 ** 20).toFixed(0)} MiB. Run it with: podman run --read-only -p 8080:8080 ${image}`,
  );
}
