// Shape 2 as docs/operations.md prints it (issue 61): the database seeded, two sidecars started in the background, the
// front's configuration made and nginx started on it, one block run by bash. Replaced: the addresses and folders (this
// run's own, the build a readable copy of the tests' for nginx's workers), BASE_URL (the tests' build's), and the two
// lines the tier's setup does (installing nginx's packages, `npm run build`), which would rebuild dist/ under the other
// tests. The database is this run's file (DATABASE_PATH, which the guide's commands read). The front's firewall (issue
// 60) is loaded for this run's port alone, and removed after.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { firewallTable, NFT, removeFirewall } from '../../scripts/front-firewall.ts';
import { freePort } from '../../scripts/sidecar-process.ts';
import { cleanEnv, projectRoot, testConfig } from '../helpers/env.ts';
import { asRunHere, guideBlock, stopListening } from '../helpers/guide.ts';

const work = mkdtempSync(join(tmpdir(), 'bio-shape-two-'));
let shell: ChildProcess | undefined;
let sidecarPorts: number[] = [];
let frontPort: number | undefined;

/** PATH as an operator's shell has it: without the project's node_modules/.bin (npm and vitest put it first). */
const operatorPath = () =>
  (process.env.PATH ?? '')
    .split(':')
    .filter((folder) => !folder.includes('node_modules'))
    .join(':');

afterAll(() => {
  // nginx (a daemon, its pid in the prefix) and the two sidecars (bash's background jobs, in its process group).
  const pid = join(work, 'prefix', 'nginx.pid');
  if (existsSync(pid)) spawnSync('kill', ['-QUIT', readFileSync(pid, 'utf8').trim()]);
  // bash and its background jobs (npm, which leaves the sidecar it started running): each sidecar found by its port.
  shell?.kill('SIGTERM');
  for (const port of sidecarPorts) stopListening(port);
  if (frontPort) removeFirewall(frontPort);
  rmSync(work, { recursive: true, force: true });
});

describe('Shape 2, as the guide prints it', () => {
  it('serves the site and live pages through the front over the two sidecars', async () => {
    // nginx's workers run as nobody: the build they read sits where they can read it, as /opt/bio is.
    chmodSync(work, 0o755);
    cpSync(join(projectRoot, 'dist'), join(work, 'dist'), { recursive: true });
    const [port, first, second] = [await freePort(), await freePort(), await freePort()];
    sidecarPorts = [first, second];
    const block = guideBlock(/npm run --silent front -- config --listen 0\.0\.0\.0:80/);
    const replace: [string, string][] = [
      ['apt-get install nginx-light libnginx-mod-http-js libnginx-mod-http-brotli-static', '# (npm run setup)'],
      ['BASE_URL=https://bio.example npm run build', '# (the tier has built dist/ with this command)'],
      ['https://bio.example', testConfig.baseUrl],
      ['0.0.0.0:80', `127.0.0.1:${port}`],
      ['8081', String(first)],
      ['8082', String(second)],
      ['/opt/bio/dist/client', join(work, 'dist', 'client')],
      ['/var/lib/bio-front', join(work, 'prefix')],
      ['/var/log/nginx/bio-access.log', join(work, 'access.log')],
      ['/etc/nginx/bio.conf', join(work, 'bio.conf')],
      ['/etc/nftables-bio-front.nft', join(work, 'bio-front.nft')],
    ];
    frontPort = port;
    const text = asRunHere(block, replace);
    // Run as it is: nginx starts over sidecars still starting, and the front is asked until it answers.
    shell = spawn('bash', ['-c', `${text}\nwait`], {
      cwd: projectRoot,
      // An operator's shell: no node_modules/.bin on its PATH, whose `nft` (@vercel/nft) is not nftables'.
      env: cleanEnv({ DATABASE_PATH: join(work, 'bio.db'), PATH: operatorPath() }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    shell.stdout?.on('data', (d) => (output += d));
    shell.stderr?.on('data', (d) => (output += d));
    const front = `http://127.0.0.1:${port}`;
    let live: Response | undefined;
    for (let i = 0; i < 300 && live?.status !== 200; i++) {
      live = await fetch(`${front}/p/layla`).catch(() => undefined);
      if (live?.status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(live?.status, output).toBe(200);
    expect(await live!.text()).toContain('ليلى الأحمد');
    expect((await fetch(`${front}/ar/blog`)).status).toBe(200);
    expect((await fetch(`${front}/health`)).status).toBe(200);
    // Both sidecars answer behind it: each has its own port.
    for (const sidecar of [first, second])
      expect((await fetch(`http://127.0.0.1:${sidecar}/livez`)).status, `sidecar on ${sidecar}`).toBe(200);
    // And its firewall holds the front's port, and no other.
    const rules = spawnSync(NFT, ['list', 'table', 'inet', firewallTable(port)], { encoding: 'utf8' }).stdout;
    expect(rules, output).toContain(`tcp dport ${port} ct state new jump per_client`);
  }, 120_000);
});
