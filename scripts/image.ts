// `npm run image [-- --release DIR] [--base IMAGE] [--no-build]` (#50): the sidecar's OCI image, built by podman from a
// release folder (`npm run release`: one is made unless --release names one) with deploy/image/Containerfile, offline,
// and the edge's image (Varnish from Debian) when this machine has none yet: the two the Kubernetes manifests name.
// No image registry is reachable on this machine kind, so the base is made from Debian's packages the first time
// (mmdebstrap --variant=minbase bookworm, imported as localhost/bio-cards-base:bookworm-pg15-noapt); --base names another (a
// registry's debian:bookworm-slim in production). Tagged localhost/bio-cards:<version>-<commit>-<build> (imageOf: a
// code-only or a content-only rebuild is a new tag, which nodes that have the last one pull), with the OCI labels
// (version, revision, source, created); its layers change at different rates (the runtime, the packages, the code, the
// build), so that an upgrade that changes only content moves only the build's. Its size is printed.
// podman reads deploy/image/containers.conf (CONTAINERS_CONF), so the machine's own configuration is left alone.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandLine } from './command-line.ts';
import { readManifest } from '../src/lib/build-manifest.ts';
import { makeRelease } from './release.ts';

const root = join(import.meta.dirname, '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

/**
 * Where the source is published, for the image's `source` label: SOURCE_URL, else package.json's repository, else the
 * checkout's `origin` when it names a host (a clone of a folder names a path, which says nothing off this machine).
 */
function sourceUrl(): string | undefined {
  if (process.env.SOURCE_URL) return process.env.SOURCE_URL;
  const { repository } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    repository?: { url?: string } | string;
  };
  const declared = typeof repository === 'string' ? repository : repository?.url;
  if (declared) return declared.replace(/^git\+/, '');
  const origin = spawnSync('git', ['-C', root, 'remote', 'get-url', 'origin'], { encoding: 'utf8' }).stdout?.trim();
  return origin && /^(?:https?|ssh|git):\/\//.test(origin) ? origin : undefined;
}

/**
 * The image's name for the build in `dist` (a release's, or the project's): the version, the commit (twelve hex
 * digits, `.dirty` when the work tree had changes) and the build (its fingerprint's twelve: content). A change of
 * code or of content is a new name; the same release, the same name. The build alone named it at first, and a
 * code-only change then reused the name (two clones' images took each other's place).
 */
export function imageOf(dist: string): string {
  const manifest = readManifest(dist);
  if (!manifest) throw new Error(`no build in ${dist}: run \`npm run build\` first`);
  const [commit = 'unknown', dirty] = (manifest.revision ?? 'unknown').split('-');
  return `localhost/bio-cards:${version}-${commit.slice(0, 12)}${dirty ? '.dirty' : ''}-${manifest.fingerprint.slice(0, 12)}`;
}
/**
 * The base made here. Its tag names what is in it, so that a machine holding an older base (with apt, no pg_dump)
 * makes this one rather than reusing that.
 */
export const DEFAULT_BASE = 'localhost/bio-cards-base:bookworm-pg15-noapt';

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

/**
 * The Debian base, made from Debian's packages when this machine has none yet (some 20 s, 190 MB): minbase, with
 * PostgreSQL 15's client programs (`bin/db backup` and `restore` run pg_dump and pg_restore on PostgreSQL, issue 61),
 * then without a package manager (apt purged, dpkg's programs removed; its record of what is installed,
 * /var/lib/dpkg/status, stays for scanners that inventory an image's packages).
 */
export function ensureBase(name = DEFAULT_BASE): void {
  if (imageExists(name)) return;
  if (name !== DEFAULT_BASE) throw new Error(`no image ${name} here: pull it, or leave --base out to make one`);
  const work = mkdtempSync(join(tmpdir(), 'bio-base-'));
  try {
    const tarball = join(work, 'rootfs.tar');
    execFileSync(
      'mmdebstrap',
      [
        '--quiet',
        '--variant=minbase',
        '--include=postgresql-client-15',
        '--customize-hook=chroot "$1" dpkg --purge apt',
        '--customize-hook=rm -f "$1"/usr/bin/dpkg "$1"/usr/bin/dpkg-* "$1"/usr/sbin/dpkg-* "$1"/usr/bin/apt*',
        'bookworm',
        tarball,
      ],
      { stdio: 'inherit' },
    );
    podman(['import', tarball, name]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A root file system of Debian's packages (minbase and `include`), with `hooks`; its /etc/passwd. */
function debianRoot(tarball: string, include: string[], hooks: string[] = []): string {
  execFileSync(
    'mmdebstrap',
    ['--quiet', '--variant=minbase', `--include=${include.join(',')}`, ...hooks, 'bookworm', tarball],
    { stdio: 'inherit' },
  );
  return execFileSync('tar', ['-xOf', tarball, './etc/passwd'], { encoding: 'utf8' });
}

/** Imports the root file system `tarball` as the image `name`, with Debian's PATH and the Containerfile `changes`. */
function importRoot(tarball: string, name: string, changes: string[]): void {
  const all = ['ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', ...changes];
  podman(['import', ...all.flatMap((change) => ['--change', change]), tarball, name]);
}

/** The edge's image: Varnish and varnish-modules from Debian (the VCL comes from the manifests' ConfigMap). */
export const EDGE_IMAGE = 'localhost/bio-cards-edge:bookworm';
/** The varnish user Debian's package makes in it, which the manifests run Varnish as. */
const EDGE_USER = { uid: 100, gid: 101 };

/**
 * The edge's image, made from Debian's packages when this machine has none yet (some 20 s, 390 MB: Varnish compiles
 * its VCL with gcc, which comes with it). Varnish runs unjailed as the varnish user (`-j none`; its work folder a
 * volume), so the root file system may be read-only.
 */
function ensureEdgeImage(): string {
  if (imageExists(EDGE_IMAGE)) return EDGE_IMAGE;
  const work = mkdtempSync(join(tmpdir(), 'bio-edge-image-'));
  try {
    const tarball = join(work, 'rootfs.tar');
    const passwd = debianRoot(
      tarball,
      ['varnish', 'varnish-modules'],
      // Varnish's work folder, a volume in the manifests, is the varnish user's (podman gives a new volume the owner
      // of the folder it covers; Kubernetes makes an emptyDir writable by all).
      [`--customize-hook=chroot "$1" chown ${EDGE_USER.uid}:${EDGE_USER.gid} /var/lib/varnish`],
    );
    if (!passwd.includes(`\nvarnish:x:${EDGE_USER.uid}:${EDGE_USER.gid}:`))
      throw new Error(
        `the varnish user is not ${EDGE_USER.uid}:${EDGE_USER.gid} in Debian's package any more: change deploy/kubernetes.yaml and EDGE_USER`,
      );
    importRoot(tarball, EDGE_IMAGE, [
      `USER ${EDGE_USER.uid}:${EDGE_USER.gid}`,
      'EXPOSE 6081',
      'ENTRYPOINT ["/usr/sbin/varnishd"]',
    ]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return EDGE_IMAGE;
}

/** The compose file's front: Debian's nginx with the njs and brotli modules (deploy/nginx.conf loads them by path). */
export const FRONT_IMAGE = 'localhost/bio-cards-front:bookworm';

/** The front's image, made from Debian's packages when this machine has none yet (some 15 s). */
function ensureFrontImage(): string {
  if (imageExists(FRONT_IMAGE)) return FRONT_IMAGE;
  const work = mkdtempSync(join(tmpdir(), 'bio-front-image-'));
  try {
    const tarball = join(work, 'rootfs.tar');
    debianRoot(tarball, ['nginx-light', 'libnginx-mod-http-js', 'libnginx-mod-http-brotli-static']);
    importRoot(tarball, FRONT_IMAGE, ['ENTRYPOINT ["/usr/sbin/nginx"]']);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return FRONT_IMAGE;
}

/** What the compose file's PostgreSQL runs at each start, and the role it makes: baked into its image. */
const POSTGRES_FILES = ['deploy/compose/postgres-init.sh', 'deploy/postgres-roles.sql'];

/** The compose file's PostgreSQL image: named by what is baked into it, so that a change makes a new one. */
export function postgresImage(): string {
  const hash = createHash('sha256');
  for (const file of POSTGRES_FILES) hash.update(readFileSync(join(root, file)));
  return `localhost/bio-cards-postgres:15-${hash.digest('hex').slice(0, 12)}`;
}

/**
 * PostgreSQL 15 from Debian, running deploy/compose/postgres-init.sh as the postgres user, its data in a volume at
 * /var/lib/postgresql/data (made here, the postgres user's: a new volume takes the owner of the folder it covers).
 */
function ensurePostgresImage(): string {
  const name = postgresImage();
  if (imageExists(name)) return name;
  const work = mkdtempSync(join(tmpdir(), 'bio-postgres-image-'));
  try {
    const tarball = join(work, 'rootfs.tar');
    const passwd = debianRoot(
      tarball,
      ['postgresql-15'],
      [
        `--customize-hook=copy-in ${join(root, POSTGRES_FILES[0]!)} /usr/local/bin`,
        '--customize-hook=mkdir -p "$1"/usr/local/share/bio',
        `--customize-hook=copy-in ${join(root, POSTGRES_FILES[1]!)} /usr/local/share/bio`,
        '--customize-hook=chroot "$1" install -d -o postgres -g postgres -m 700 /var/lib/postgresql/data',
      ],
    );
    const user = /^postgres:x:(\d+):(\d+):/m.exec(passwd);
    if (!user) throw new Error("no postgres user in Debian's postgresql-15 package");
    importRoot(tarball, name, [
      `USER ${user[1]}:${user[2]}`,
      'EXPOSE 5432',
      'ENTRYPOINT ["/usr/local/bin/postgres-init.sh"]',
    ]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return name;
}

export async function makeImage(options: { release?: string; base?: string; build: boolean }): Promise<{
  image: string;
  bytes: number;
}> {
  const release = options.release ?? (await makeRelease({ build: options.build })).folder;
  const base = options.base ?? DEFAULT_BASE;
  ensureBase(base);
  const image = imageOf(join(release, 'dist'));
  const manifest = readManifest(join(release, 'dist'))!;
  const source = sourceUrl();
  const labels = {
    'org.opencontainers.image.version': version,
    'org.opencontainers.image.revision': manifest.revision ?? 'unknown',
    'org.opencontainers.image.created': manifest.builtAt,
    ...(source ? { 'org.opencontainers.image.source': source } : {}),
  };
  podman([
    'build',
    // Docker's format: OCI's has no HEALTHCHECK.
    '--format=docker',
    '--network=none',
    `--build-arg=BASE=${base}`,
    ...Object.entries(labels).map(([name, value]) => `--label=${name}=${value}`),
    '--file',
    join(root, 'deploy', 'image', 'Containerfile'),
    '--tag',
    image,
    release,
  ]);
  // The image this tag named before, now untagged: removed, so that building again does not pile them up.
  podman(['image', 'prune', '--force', '--filter', 'label=org.opencontainers.image.title=bio-cards']);
  const bytes = Number(podman(['image', 'inspect', '--format', '{{.Size}}', image]).trim());
  return { image, bytes };
}

if (import.meta.main) {
  const { values } = commandLine('Usage: npm run image -- [--release DIR] [--no-build] [--base IMAGE]', {
    options: { release: { type: 'string' }, base: { type: 'string' }, 'no-build': { type: 'boolean' } },
  });
  const { image, bytes } = await makeImage({
    build: !values['no-build'],
    ...(values.release ? { release: values.release } : {}),
    ...(values.base ? { base: values.base } : {}),
  });
  console.log(
    `${image}: ${(bytes / 2 ** 20).toFixed(0)} MiB. Run it with: podman run --read-only -p 8080:8080 ${image}`,
  );
  // The edge's image (issue 61): the manifests (`npm run kube -- config`) name it beside the sidecar's.
  const edge = ensureEdgeImage();
  console.log(`${edge}: the edge's Varnish, for the Kubernetes manifests and the compose file.`);
  // The compose file's other two (issue 61: one machine, one file).
  console.log(`${ensureFrontImage()}: the front's nginx, for the compose file.`);
  console.log(`${ensurePostgresImage()}: PostgreSQL 15, for the compose file.`);
}
