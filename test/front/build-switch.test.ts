// Switching the served build (#50): the services serve from a link (DIST_DIR=…/current); `npm run switch-build` moves
// it to another build in one step, the sidecars are restarted one at a time and the front reloaded, as
// docs/operations.md says, while readers keep asking: none of their requests fails, and afterwards the new build's
// article (served by nginx) and its sitemap entries (served by the sidecars) are there, and a file only the previous
// build had is still served to the pages it made.
import { spawnSync, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { frontConfig, nginxBinary, runFront, UNLIMITED_CLIENT } from '../../scripts/front-config.ts';
import { freePort, type SidecarProcess } from '../../scripts/sidecar-process.ts';
import { switchBuild, SwitchError } from '../../scripts/switch-build.ts';
import { RETRY_AFTER } from '../../src/lib/surface.ts';
import { createDatabase } from '../helpers/database.ts';
import { cleanEnv, distDir, projectRoot, testConfig } from '../helpers/env.ts';
import { stopNginx } from '../helpers/front.ts';
import { startReaders } from '../helpers/readers.ts';
import { spawnTestSidecar } from '../helpers/sidecar.ts';

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  );

/** The front's `fail_timeout` (scripts/front-config.ts). */
const FRONT_FAIL_TIMEOUT_MS = 5000;
const NEW_ARTICLE = '/en/blog/switched-in';
const ONLY_IN_A = '/_astro/only-in-a.0123abcd.css';

/** A copy of the tests' build; `b` adds an article (with its twin and its sitemap entry) that the first lacks. */
function makeBuilds(work: string) {
  const a = join(work, 'builds', 'a');
  const b = join(work, 'builds', 'b');
  cpSync(distDir, a, { recursive: true });
  writeFileSync(join(a, 'client', ONLY_IN_A), 'body { color: black }\n');
  cpSync(distDir, b, { recursive: true });
  const blog = join(b, 'client', 'en', 'blog');
  cpSync(join(blog, 'link-in-bio-that-works.html'), join(blog, 'switched-in.html'));
  cpSync(join(blog, 'link-in-bio-that-works.md'), join(blog, 'switched-in.md'));
  appendFileSync(join(blog, 'switched-in.html'), '<!-- build b -->\n');
  const sitemap = join(b, 'sitemap-static.json');
  const entries = JSON.parse(readFileSync(sitemap, 'utf8')) as { url: string }[];
  writeFileSync(sitemap, JSON.stringify([...entries, { url: `${testConfig.baseUrl}${NEW_ARTICLE}` }]));
  return { a, b };
}

describe('switching the build under load, through the front', () => {
  let work: string;
  let builds: { a: string; b: string };
  let link: string;
  let databasePath: string;
  let sidecars: SidecarProcess[];
  let front: { url: string; nginx: ChildProcess };
  let prefix: string;
  let frontPort: number;
  const sidecarAt = (port: number) =>
    spawnTestSidecar({
      DATABASE_PATH: databasePath,
      DIST_DIR: link,
      STATIC_FILES: 'front',
      TRUST_PROXY: '127.0.0.1',
      PORT: String(port),
    });
  const frontOptions = () => ({
    config: testConfig,
    sidecars: sidecars.map((s) => s.address),
    prefix,
    dist: join(link, 'client'),
    clientLimits: UNLIMITED_CLIENT,
  });

  beforeAll(async () => {
    // Inside the installation, as builds must be (their server code imports its packages): under node_modules/.cache,
    // which no linter reads and git ignores.
    mkdirSync(join(projectRoot, 'node_modules', '.cache'), { recursive: true });
    work = mkdtempSync(join(projectRoot, 'node_modules', '.cache', 'bio-switch-'));
    builds = makeBuilds(work);
    link = join(work, 'current');
    switchBuild(testConfig, builds.a, link);
    databasePath = await createDatabase();
    sidecars = [await sidecarAt(0), await sidecarAt(0)];
    prefix = mkdtempSync(join(tmpdir(), 'bio-front-'));
    frontPort = await freePort();
    front = await runFront({ ...frontOptions(), port: frontPort });
  });
  afterAll(async () => {
    await stopNginx(front.nginx, prefix);
    for (const s of sidecars) s.child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  it('refuses a build outside the installation, or made for another address, changing nothing', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'bio-build-'));
    const outside = join(elsewhere, 'dist');
    cpSync(distDir, outside, { recursive: true });
    onTestFinished(() => rmSync(elsewhere, { recursive: true, force: true }));
    expect(() => switchBuild(testConfig, outside, link)).toThrow(/outside .*cannot find the packages/);
    const other = join(work, 'builds', 'other');
    cpSync(distDir, other, { recursive: true });
    const manifestFile = join(other, 'build-manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, baseUrl: 'https://elsewhere.example' }));
    expect(() => switchBuild(testConfig, other, link)).toThrow(SwitchError);
    expect(() => switchBuild(testConfig, other, link)).toThrow(/elsewhere\.example/);
    expect(readlinkSync(link)).toBe(builds.a);
    // The command as the docs give it says so, and fails.
    const run = spawnSync(process.execPath, [join(projectRoot, 'scripts/switch-build.ts'), other], {
      env: cleanEnv({ DIST_DIR: link }),
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('Nothing changed');
    expect(readlinkSync(link)).toBe(builds.a);
  });

  it('moves every service to the new build with no failed request', async () => {
    let retried = 0;
    let shed = 0;
    // As a browser asks: a request sent on a kept-alive connection at the moment the server closes it (nginx's old
    // workers close their idle connections on reload) is sent again, once, on a new one (RFC 9112 §9.3.1; Chromium
    // and Firefox do so).
    const once = async (path: string): Promise<Response> => {
      try {
        return await fetch(front.url + path, { redirect: 'manual' });
      } catch (err) {
        // Closed (FIN) before the request went, or reset (RST) because it arrived after the close: the same race.
        if (!/other side closed|ECONNRESET/.test(String((err as Error).cause))) throw err;
        retried++;
        return fetch(front.url + path, { redirect: 'manual' });
      }
    };
    // And as a client that honours Retry-After: a sidecar that sheds work on a busy machine (a render waited past its
    // bound, the event loop lagged) says `503` with `Retry-After: 1`, and is asked again once, a second later. A CI
    // machine at load 13 gave readers that 503, which says nothing of the switch. What a switch that dropped requests
    // gives (no sidecar could answer: the front's own 503, Retry-After 30) is never asked again: it stays a failure.
    const get = async (path: string): Promise<Response> => {
      const res = await once(path);
      if (res.status !== 503 || res.headers.get('retry-after') !== String(RETRY_AFTER.busy)) return res;
      shed++;
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, RETRY_AFTER.busy * 1000));
      return once(path);
    };
    expect((await get(NEW_ARTICLE)).status).toBe(404);
    expect(await (await get('/sitemap.xml')).text()).not.toContain(NEW_ARTICLE);

    const readers = startReaders({
      count: 8,
      paths: ['/en/blog', '/p/layla', '/c/k7f2q9', '/sitemap.xml', ONLY_IN_A, '/health', '/p/sam-rivera.md'],
      get,
    });
    await readers.until(30);
    const before = readers.answered();

    // The switch, as docs/operations.md gives it: the link, then each sidecar in turn, then the front.
    const run = spawnSync(process.execPath, [join(projectRoot, 'scripts/switch-build.ts'), builds.b], {
      env: cleanEnv({ DIST_DIR: link }),
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('1 of its fingerprinted files kept');
    expect(readlinkSync(link)).toBe(builds.b);
    for (const [i, old] of sidecars.entries()) {
      old.child.kill('SIGTERM');
      await exited(old.child);
      sidecars[i] = await sidecarAt(old.port);
      // The front tries a sidecar it marked failed again after fail_timeout (5 s): only then may the next one stop.
      expect((await fetch(`${sidecars[i].url}/health`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, FRONT_FAIL_TIMEOUT_MS + 500));
    }
    writeFileSync(
      join(prefix, 'nginx.conf'),
      frontConfig({ ...frontOptions(), listen: `127.0.0.1:${frontPort}`, workers: 1, accessLog: 'off' }),
    );
    expect(
      spawnSync(nginxBinary()!, ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-t'], { encoding: 'utf8' }).status,
    ).toBe(0);
    front.nginx.kill('SIGHUP');
    await new Promise((r) => setTimeout(r, 500));
    await readers.until(60, before);
    await readers.stop();

    expect(readers.failures).toEqual([]);
    expect(retried).toBeLessThan(16);
    // Shedding is the machine's weather, not the switch's doing: a few at most, each answered on its second ask.
    expect(shed, 'answers shed with Retry-After: 1').toBeLessThan(readers.answered() / 4);
    expect(before).toBeGreaterThanOrEqual(30);
    expect(readers.answered() - before).toBeGreaterThan(50);
    // nginx serves the new article at once (it follows the link at each request), the sidecars list it in the sitemap.
    const article = await get(NEW_ARTICLE);
    expect(article.status).toBe(200);
    expect(await article.text()).toContain('<!-- build b -->');
    expect(await (await get('/sitemap.xml')).text()).toContain(`${testConfig.baseUrl}${NEW_ARTICLE}`);
    for (const s of sidecars)
      expect(await (await fetch(`${s.url}/sitemap.xml`)).text()).toContain(`${testConfig.baseUrl}${NEW_ARTICLE}`);
    // The previous build's own file, carried over for the pages it made.
    expect((await get(ONLY_IN_A)).status).toBe(200);
  });
});
