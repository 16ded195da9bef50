// `npm run release [-- --no-build] [--out DIR]` (#50): a self-contained folder an operator copies to a Debian machine
// that has no Node and no npm, and starts with one command. It holds the built site (for BASE_URL, as every build is),
// the server, the import CLI and the purger as the repository has them, the production dependencies only (copied from
// this install, native builds included: nothing is fetched, so it is made offline), and the Node 24 runtime that the
// `node` devDependency installed from npm. Its version is package.json's; CHANGELOG.md says what each changes.
//
//   release/bio-cards-<version>/bin/serve      the sidecar (`npm run serve`: its heap cap), PORT, DATABASE_PATH, …
//   release/bio-cards-<version>/bin/db         the import CLI (`npm run db`): migrate, import FILE, seed-demo
//   release/bio-cards-<version>/bin/purger     the edge's purger (`npm run purger`)
//   release/bio-cards-<version>/bin/probe PATH asks the local server for PATH: 0 when it answers 2xx (a health check)
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { commandLine } from './command-line.ts';

const root = join(import.meta.dirname, '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

/** What the server, the CLI and the purger read at run time, beside node_modules and dist/. */
const PARTS = [
  'package.json',
  'CHANGELOG.md',
  'sidecar',
  'src/lib',
  'scripts/db.ts',
  'scripts/backup.ts',
  'scripts/postgres-bin.ts',
  'scripts/purger.ts',
  'scripts/probe.ts',
  'scripts/demo-data.json',
  'scripts/demo-images',
];

/** The entry points, each run by the bundled Node with the options its npm script gives it. */
const LAUNCHERS: Record<string, string> = {
  serve: '--max-old-space-size=160 --max-semi-space-size=8 "$here/sidecar/server.ts"',
  db: '"$here/scripts/db.ts"',
  purger: '"$here/scripts/purger.ts"',
  probe: '"$here/scripts/probe.ts"',
};

/** The production dependencies as installed here: each top-level package folder (its own node_modules with it). */
function productionPackages(): string[] {
  const listed = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...new Set(listed.split('\n'))]
    .map((path) => relative(root, path))
    .filter((path) => /^node_modules\/(?:@[^/]+\/)?[^/@][^/]*$/.test(path));
}

export function makeRelease(options: { out?: string; build: boolean }): { folder: string; bytes: number } {
  const folder = options.out ?? join(root, 'release', `bio-cards-${version}`);
  if (options.build) execFileSync('npx', ['astro', 'build'], { cwd: root, stdio: 'inherit' });
  if (!existsSync(join(root, 'dist/build-manifest.json')))
    throw new Error('no build in dist/: run `npm run build` (with the BASE_URL the site will have) or drop --no-build');
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(join(folder, 'bin'), { recursive: true });
  cpSync(join(root, 'dist'), join(folder, 'dist'), { recursive: true, dereference: true });
  for (const part of PARTS) cpSync(join(root, part), join(folder, part), { recursive: true, dereference: true });
  for (const pkg of productionPackages())
    cpSync(join(root, pkg), join(folder, pkg), { recursive: true, dereference: true });
  // Node 24 from npm (the `node` package's binary), so that the machine needs none of its own.
  cpSync(join(root, 'node_modules/node/bin/node'), join(folder, 'bin/node'));
  for (const [name, args] of Object.entries(LAUNCHERS)) {
    writeFileSync(
      join(folder, 'bin', name),
      // Shell builtins only (no dirname): the folder is found from the launcher's own path, wherever it sits.
      `#!/bin/sh\n# bio-cards ${version}: ${name}, on the Node this folder carries.\ncase "$0" in */*) bin="\${0%/*}" ;; *) bin=. ;; esac\nhere="$(cd "$bin/.." && pwd)" || exit 1\nexec "$here/bin/node" ${args} "$@"\n`,
    );
    chmodSync(join(folder, 'bin', name), 0o755);
  }
  const bytes = Number(execFileSync('du', ['-sb', folder], { encoding: 'utf8' }).split('\t')[0]);
  return { folder, bytes };
}

if (import.meta.main) {
  const { values } = commandLine('Usage: npm run release -- [--out DIR] [--no-build]', {
    options: { 'no-build': { type: 'boolean' }, out: { type: 'string' } },
  });
  const { folder, bytes } = makeRelease({ build: !values['no-build'], ...(values.out ? { out: values.out } : {}) });
  console.log(
    `bio-cards ${version}: ${folder} (${(bytes / 2 ** 20).toFixed(0)} MiB). Start it with ${folder}/bin/serve`,
  );
}
