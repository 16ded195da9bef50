// The release (#50), as an operator gets it: `npm run release` makes a folder that starts on a machine with no Node and
// no npm (here: an environment whose PATH names no folder at all, so that only what the folder carries can run). Its
// CLI seeds a database, its server answers a profile, a card's picture and the twin, says its version at /livez, and
// /health is ok. The tier runs alone too: `npx vitest run --project release`.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runNginx } from '../../scripts/front-config.ts';
import { freePort } from '../../scripts/sidecar-process.ts';
import { expectedLiveness } from '../helpers/env.ts';
import { stopListening } from '../helpers/guide.ts';

/** No Node, no npm, no coreutils: what a bare machine offers a process, less. */
const BARE = { PATH: '/nonexistent', HOME: tmpdir() };

let server: ChildProcess | undefined;
const work = mkdtempSync(join(tmpdir(), 'release-'));
afterAll(() => {
  server?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

describe('the release folder', () => {
  it('starts with one command and no Node or npm of the machine, serving the site and the demo data', async () => {
    // The tier's release folder (test/setup/release.ts): the tests' build, as `npm run release` would pack it.
    const { folder, bytes } = inject('release');
    expect(bytes).toBeGreaterThan(0);
    const databasePath = join(work, 'bio.db');
    const seeded = spawnSync(join(folder, 'bin/db'), ['seed-demo'], {
      env: { ...BARE, DATABASE_PATH: databasePath },
      encoding: 'utf8',
    });
    expect(seeded.status, seeded.stderr).toBe(0);
    expect(seeded.stdout).toContain('Imported the demo data');
    // Port 8080: the build's BASE_URL, which the server checks its configuration against.
    const base = 'http://127.0.0.1:8080';
    server = spawn(join(folder, 'bin/serve'), [], {
      env: { ...BARE, DATABASE_PATH: databasePath, PORT: '8080', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    server.stdout?.on('data', (d) => (output += d));
    server.stderr?.on('data', (d) => (output += d));
    let live: Response | undefined;
    for (let i = 0; i < 150 && !live; i++) {
      live = await fetch(`${base}/livez`).catch(() => undefined);
      if (!live) await new Promise((r) => setTimeout(r, 200));
    }
    expect(live?.status, output).toBe(200);
    expect(await live!.json()).toEqual(expectedLiveness(join(folder, 'dist')));
    expect(await (await fetch(`${base}/health`)).json()).toMatchObject({ status: 'ok' });
    const page = await fetch(`${base}/p/layla`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('ليلى الأحمد');
    const picture = await fetch(`${base}/c/k7f2q9/og.png`);
    expect(picture.headers.get('content-type')).toBe('image/png');
    await picture.arrayBuffer();
    expect(await (await fetch(`${base}/p/sam-rivera.md`)).text()).toContain('# Sam Rivera');
  });

  it("runs the front, the edge and a build switch from the folder, with Debian's nginx and Varnish (#61)", async () => {
    // The server the first test started (on 8080) stands for the sidecars. No checkout, no npm: the folder's commands.
    const { folder } = inject('release');
    const front = join(work, 'front');
    const frontPort = await freePort();
    const conf = spawnSync(
      join(folder, 'bin/front'),
      [
        'config',
        '--listen',
        `127.0.0.1:${frontPort}`,
        '--sidecar',
        '127.0.0.1:8080',
        '--dist',
        join(folder, 'dist/client'),
        '--prefix',
        front,
      ],
      { env: BARE, encoding: 'utf8' },
    );
    expect(conf.status, conf.stderr).toBe(0);
    // Debian's nginx on what the folder printed (as the tests run it: its own prefix, in the foreground).
    const nginx = await runNginx(front, conf.stdout, `http://127.0.0.1:${frontPort}`);
    try {
      const home = await fetch(`http://127.0.0.1:${frontPort}/`);
      // A static page from the folder's build (nginx), a live one from the server behind it.
      expect(home.status).toBe(200);
      const live = await fetch(`http://127.0.0.1:${frontPort}/p/layla`);
      expect(live.status).toBe(200);
      expect(await live.text()).toContain('ليلى الأحمد');
    } finally {
      nginx.kill('SIGQUIT');
    }
    // The edge's VCL, which Varnish compiles.
    const vcl = spawnSync(join(folder, 'bin/edge'), ['config', '--backend', '127.0.0.1:8080'], {
      env: BARE,
      encoding: 'utf8',
    });
    expect(vcl.status, vcl.stderr).toBe(0);
    writeFileSync(join(work, 'edge.vcl'), vcl.stdout);
    const compiled = spawnSync(
      '/usr/sbin/varnishd',
      // Unjailed (-j none), as the edge runs it: the jail's user cannot read a mode-700 folder.
      ['-C', '-j', 'none', '-f', join(work, 'edge.vcl'), '-n', join(work, 'varnish')],
      { encoding: 'utf8' },
    );
    expect(compiled.status, compiled.stderr.slice(-2000)).toBe(0);
    // The edge itself, started by the folder's command over the server: Debian's Varnish, which compiles its VCL with
    // the machine's C compiler (on PATH: the programs Debian put there, not a Node of the machine's).
    const edgePort = await freePort();
    const edge = spawn(join(folder, 'bin/edge'), ['--listen', `127.0.0.1:${edgePort}`, '--backend', '127.0.0.1:8080'], {
      env: { ...BARE, PATH: '/usr/sbin:/usr/bin:/bin' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    edge.stdout?.on('data', (d) => (said += d));
    edge.stderr?.on('data', (d) => (said += d));
    try {
      let page: Response | undefined;
      for (let i = 0; i < 150 && page?.status !== 200; i++) {
        page = await fetch(`http://127.0.0.1:${edgePort}/p/layla`).catch(() => undefined);
        if (page?.status !== 200) await new Promise((r) => setTimeout(r, 200));
      }
      expect(page?.status, said).toBe(200);
      expect(page!.headers.get('cache-status'), said).toMatch(/^edge; /);
    } finally {
      edge.kill('SIGTERM');
      await new Promise((resolve) => edge.once('exit', resolve));
      // And Varnish, should it outlive the command that started it (it did, in CI): whatever listens on its port.
      stopListening(edgePort);
    }
    // A build switch between two builds inside the folder (the guide names /opt/bio/builds/…).
    const builds = join(folder, 'builds');
    cpSync(join(folder, 'dist'), join(builds, 'first'), { recursive: true });
    cpSync(join(folder, 'dist'), join(builds, 'second'), { recursive: true });
    const link = join(folder, 'current');
    symlinkSync(join(builds, 'first'), link);
    try {
      const switched = spawnSync(join(folder, 'bin/switch-build'), [join(builds, 'second')], {
        env: { ...BARE, DIST_DIR: link },
        encoding: 'utf8',
      });
      expect(switched.status, switched.stderr).toBe(0);
      expect(realpathSync(link)).toBe(join(builds, 'second'));
    } finally {
      rmSync(link, { force: true });
      rmSync(builds, { recursive: true, force: true });
    }
  });

  it('carries what runs and nothing of the build chain, with an SBOM and checksums beside it (#61)', () => {
    const { folder } = inject('release');
    const files = readdirSync(folder, { recursive: true, encoding: 'utf8' });
    // The build chain and the type checker stay behind (they were 393 MB of node_modules with the packages whole).
    for (const tool of ['typescript', 'esbuild', 'vite', 'rolldown', '@astrojs/compiler', 'lightningcss', 'shiki'])
      expect(existsSync(join(folder, 'node_modules', tool)), tool).toBe(false);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    // A native module's build for this platform alone.
    const natives = files.filter((f) => /\/prebuilds\/[^/]+\.node$/.test(f));
    expect(natives.length).toBeGreaterThan(0);
    for (const file of natives) expect(file).toMatch(new RegExp(`/${platform()}-${arch()}\\.node$`));
    // Every file and the SBOM as the checksums say, checked as an operator would: sha256sum -c in the folder's parent.
    const checked = spawnSync('sha256sum', ['--check', '--quiet', `${basename(folder)}.sha256`], {
      cwd: dirname(folder),
      encoding: 'utf8',
    });
    expect(checked.status, checked.stdout + checked.stderr).toBe(0);
    const listed = readFileSync(`${folder}.sha256`, 'utf8').trim().split('\n');
    expect(listed).toHaveLength(files.filter((f) => statSync(join(folder, f)).isFile()).length + 1);
    // The SBOM: CycloneDX, each package the folder carries at the version it carries, and none it does not.
    interface Component {
      name: string;
      group?: string;
      version: string;
      components?: Component[];
    }
    const bom = JSON.parse(readFileSync(`${folder}.cdx.json`, 'utf8')) as {
      bomFormat: string;
      components: Component[];
    };
    // A package nested in another's node_modules is a component of that one's.
    const every = (list: Component[]): Component[] => list.flatMap((c) => [c, ...every(c.components ?? [])]);
    expect(bom.bomFormat).toBe('CycloneDX');
    const named = new Map(bom.components.map((c) => [c.group ? `${c.group}/${c.name}` : c.name, c.version]));
    for (const pkg of ['better-sqlite3', 'fastify', 'sharp', '@modelcontextprotocol/server', 'pg']) {
      const { version } = JSON.parse(readFileSync(join(folder, 'node_modules', pkg, 'package.json'), 'utf8')) as {
        version: string;
      };
      expect(named.get(pkg), pkg).toBe(version);
    }
    expect(named.has('typescript')).toBe(false);
    // Every package the folder carries is named (the typefaces, read by a computed path, were not), and the runtime.
    const carried = files
      .filter((f) => /^node_modules\/(?:.*\/node_modules\/)?(?:@[^/]+\/)?[^/@][^/]*\/package\.json$/.test(f))
      .map((f) => JSON.parse(readFileSync(join(folder, f), 'utf8')) as { name?: string; version?: string })
      .filter((pkg) => pkg.name && pkg.version);
    expect(carried.length).toBeGreaterThan(100);
    const versions = new Set(
      every(bom.components).map((c) => `${c.group ? `${c.group}/${c.name}` : c.name}@${c.version}`),
    );
    expect(carried.map((pkg) => `${pkg.name}@${pkg.version}`).filter((id) => !versions.has(id))).toEqual([]);
    expect(named.get('node')).toBe(process.versions.node);
  });
});
