// `npm run release [-- --no-build] [--out DIR]` (#50): a self-contained folder an operator copies to a Debian machine
// that has no Node and no npm, and starts with one command. It holds the built site (for BASE_URL, as every build is),
// the server, the import CLI and the purger as the repository has them, of the production dependencies the files each
// of them loads (traced from their imports by @vercel/nft, as Vercel's and Netlify's builders cut a function's; and
// the files drawing reads by a name made at run time, og-draw.ts DRAWING_FILES), copied from this install, native
// builds for this platform only, no source maps: nothing is fetched, so it is made offline (issue 61: 454 MiB and
// 24,018 files when it copied every production package whole, astro's build chain with them), and the Node 24 runtime
// that the `node` devDependency installed from npm. Its version is package.json's; CHANGELOG.md says what each
// changes. Beside the folder: a CycloneDX SBOM of the packages in it, and SHA-256 checksums of every file.
//
//   release/bio-cards-<version>/bin/serve      the sidecar (`npm run serve`: its heap cap), PORT, DATABASE_PATH, …
//   release/bio-cards-<version>/bin/db         the import CLI (`npm run db`): migrate, import FILE, seed-demo
//   release/bio-cards-<version>/bin/purger     the edge's purger (`npm run purger`)
//   release/bio-cards-<version>/bin/probe PATH asks the local server for PATH: 0 when it answers 2xx (a health check)
//   release/bio-cards-<version>/bin/switch-build NEW_BUILD   `npm run switch-build`: builds under this folder (#61)
//   release/bio-cards-<version>/bin/front config …           `npm run front`: the front's nginx configuration
//   release/bio-cards-<version>/bin/edge [config] …          `npm run edge`: the edge's Varnish, or its VCL
// (the front and the edge run Debian's nginx and Varnish: no checkout and no npm on the server).
import { nodeFileTrace } from '@vercel/nft';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire, stripTypeScriptTypes } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { DRAWING_FILES } from '../src/lib/og-draw.ts';
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
  'scripts/switch-build.ts',
  'scripts/front-config.ts',
  'scripts/edge.ts',
  // The templates the front's and the edge's configurations are made from, and the front's negotiation.
  'deploy/nginx.conf',
  'deploy/negotiate.js',
  'deploy/edge.vcl',
  // podman's settings for this machine kind (runc, no default limits), for the operator's own podman commands.
  'deploy/image/containers.conf',
  'scripts/demo-data.json',
  'scripts/demo-images',
];

/** The entry points, each run by the bundled Node with the options its npm script gives it. */
const LAUNCHERS: Record<string, string> = {
  serve: '--max-old-space-size=160 --max-semi-space-size=8 "$here/sidecar/server.ts"',
  db: '"$here/scripts/db.ts"',
  purger: '"$here/scripts/purger.ts"',
  probe: '"$here/scripts/probe.ts"',
  'switch-build': '"$here/scripts/switch-build.ts"',
  front: '"$here/scripts/front-config.ts"',
  edge: '"$here/scripts/edge.ts"',
};

/** Every script file under the parts (each an entry: a worker thread's file is named by a path, not imported). */
const scriptsUnder = (part: string): string[] =>
  statSync(join(root, part)).isDirectory()
    ? readdirSync(join(root, part), { recursive: true, encoding: 'utf8' })
        .filter((file) => /\.(?:ts|mjs|js)$/.test(file) && !file.endsWith('.d.ts'))
        .map((file) => join(part, file))
    : /\.(?:ts|mjs|js)$/.test(part)
      ? [part]
      : [];

/**
 * The files that the server, the CLI, the purger, the operator's commands and the build's server code load, beside the
 * parts: of node_modules, and of the project (a module a part imports, such as scripts/command-line.ts). Traced from
 * their imports (TypeScript read with its types stripped, as Node runs it), with the files read by a name made at run
 * time.
 */
async function tracedFiles(): Promise<string[]> {
  const entries = [...PARTS.flatMap(scriptsUnder), ...scriptsUnder('dist/server')].map((file) => join(root, file));
  const { fileList } = await nodeFileTrace(entries, {
    base: root,
    readFile: async (path) => {
      try {
        return path.endsWith('.ts') ? stripTypeScriptTypes(await readFile(path, 'utf8')) : await readFile(path);
      } catch {
        return null;
      }
    },
  });
  const require = createRequire(join(root, 'package.json'));
  const computed = [DRAWING_FILES.wasm, ...DRAWING_FILES.fonts].map((file) => relative(root, require.resolve(file)));
  // Each package a file is taken from, with its package.json: what it is and which version (the SBOM reads them).
  const manifests = [...fileList, ...computed].flatMap((file) => {
    const folder = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1];
    return folder && existsSync(join(root, folder, 'package.json')) ? [join(folder, 'package.json')] : [];
  });
  return [...new Set([...fileList, ...computed, ...manifests])].filter(
    (file) =>
      // The build is copied whole (a switch may name files no import does).
      !file.startsWith('dist/') &&
      !file.endsWith('.map') &&
      // A native module's builds for other systems (better-sqlite3 carries eight): this platform's alone.
      !(/\/prebuilds\/[^/]+\.node$/.test(file) && !file.endsWith(`/prebuilds/${platform()}-${arch()}.node`)),
  );
}

interface Component {
  properties?: { name: string; value: string }[];
  components?: Component[];
  'bom-ref'?: string;
}

/**
 * A CycloneDX SBOM (JSON, by @cyclonedx/cyclonedx-npm from this install's whole tree) of the packages in `folder`:
 * the components whose folder the release carries, and the dependencies between them. The whole tree, not its
 * production part: an optional require of a production package (debug's supports-color) can resolve to a package
 * npm installed for development, which the release then carries.
 */
function sbom(folder: string): string {
  const made = JSON.parse(
    execFileSync(
      process.execPath,
      [
        join(root, 'node_modules/.bin/cyclonedx-npm'),
        // npm ls finds fault with the development tree (an override of a test-only package); what it lists stands.
        '--ignore-npm-errors',
        '--output-format',
        'JSON',
        '--output-file',
        '-',
      ],
      { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] },
    ),
  ) as {
    metadata: { component: Component };
    components: Component[];
    dependencies?: { ref: string; dependsOn?: string[] }[];
  };
  const carried = (c: Component) => {
    const path = c.properties?.find((p) => p.name === 'cdx:npm:package:path')?.value;
    return path !== undefined && existsSync(join(folder, path, 'package.json'));
  };
  const keep = (list: Component[]): Component[] =>
    list.filter(carried).map((c) => (c.components ? { ...c, components: keep(c.components) } : c));
  made.components = keep(made.components);
  // The runtime the folder carries (bin/node): npm's node package, which the release copies and no package names.
  const { version: nodeVersion } = JSON.parse(readFileSync(join(root, 'node_modules/node/package.json'), 'utf8')) as {
    version: string;
  };
  made.components.push({
    type: 'application',
    name: 'node',
    version: nodeVersion,
    purl: `pkg:npm/node@${nodeVersion}`,
    'bom-ref': 'bio-cards-runtime|node',
  } as Component);
  // The project itself (the release's application), and the packages carried.
  const refs = new Set<string>(made.metadata.component['bom-ref'] ? [made.metadata.component['bom-ref']] : []);
  const collect = (list: Component[]) =>
    list.forEach((c) => {
      if (c['bom-ref']) refs.add(c['bom-ref']);
      collect(c.components ?? []);
    });
  collect(made.components);
  made.dependencies = (made.dependencies ?? [])
    .filter((d) => refs.has(d.ref))
    .map((d) => ({ ...d, dependsOn: d.dependsOn?.filter((ref) => refs.has(ref)) ?? [] }));
  return JSON.stringify(made, null, 2) + '\n';
}

/** `sha256sum` lines for every file under `folder` and each of `beside`, named from the folder's parent. */
function checksums(folder: string, beside: string[]): string {
  const parent = dirname(folder);
  const files = [
    ...readdirSync(folder, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name)),
    ...beside,
  ].sort();
  return files
    .map((file) => `${createHash('sha256').update(readFileSync(file)).digest('hex')}  ${relative(parent, file)}\n`)
    .join('');
}

export async function makeRelease(options: {
  out?: string;
  build: boolean;
}): Promise<{ folder: string; bytes: number; files: number }> {
  const folder = options.out ?? join(root, 'release', `bio-cards-${version}`);
  if (options.build) execFileSync('npx', ['astro', 'build'], { cwd: root, stdio: 'inherit' });
  if (!existsSync(join(root, 'dist/build-manifest.json')))
    throw new Error('no build in dist/: run `npm run build` (with the BASE_URL the site will have) or drop --no-build');
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(join(folder, 'bin'), { recursive: true });
  cpSync(join(root, 'dist'), join(folder, 'dist'), { recursive: true, dereference: true });
  for (const part of PARTS) cpSync(join(root, part), join(folder, part), { recursive: true, dereference: true });
  for (const file of await tracedFiles()) {
    mkdirSync(dirname(join(folder, file)), { recursive: true });
    // A file, not a link: a package linked into node_modules is copied as what it names.
    copyFileSync(realpathSync(join(root, file)), join(folder, file));
  }
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
  // Beside the folder, named after it: what is in it (the SBOM), and the checksums of every file and of the SBOM, for
  // `sha256sum -c` in the folder's parent.
  const bom = `${folder}.cdx.json`;
  writeFileSync(bom, sbom(folder));
  writeFileSync(`${folder}.sha256`, checksums(folder, [bom]));
  const bytes = Number(execFileSync('du', ['-sb', folder], { encoding: 'utf8' }).split('\t')[0]);
  const files = readdirSync(folder, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
  return { folder, bytes, files };
}

if (import.meta.main) {
  const { values } = commandLine('Usage: npm run release -- [--out DIR] [--no-build]', {
    options: { 'no-build': { type: 'boolean' }, out: { type: 'string' } },
  });
  const { folder, bytes, files } = await makeRelease({
    build: !values['no-build'],
    ...(values.out ? { out: values.out } : {}),
  });
  console.log(
    `bio-cards ${version}: ${folder} (${(bytes / 2 ** 20).toFixed(0)} MiB, ${files} files). Start it with ${folder}/bin/serve`,
  );
}
