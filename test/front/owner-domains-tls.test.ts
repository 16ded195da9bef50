// Owners' domains over TLS from one front, as docs/operations.md prints it (issue 63): the front's configuration made
// with TLS and an ACME webroot, tested and started by the guide's own block; two owners' domains then read over TLS,
// each with its own certificate (chosen by the name asked, SNI), a plain-HTTP request sent to https://, and an ACME
// challenge file served at an owner's name. Replaced: the addresses and folders (this run's), BASE_URL (the tests'
// build's), the package installation (the tier's setup), and certbot's lines, which need an ACME server this machine
// cannot reach: self-signed certificates written where certbot writes them. The two sidecars are this test's, in front
// mode, over a database that gives the two domains (the guide's shape 2 starts its own). The guide's `bio-tls` group is
// made on this machine as it says (groupadd -f: once, and left).
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/sidecar-process.ts';
import { getAt } from '../helpers/at-host.ts';
import { createDatabase, demoData } from '../helpers/database.ts';
import { cleanEnv, projectRoot, testConfig } from '../helpers/env.ts';
import { startAppInProcess } from '../helpers/front.ts';
import { guideBlock, runGuideBlock } from '../helpers/guide.ts';

const LAYLA = 'links.example.sa';
const NORTHWIND = 'northwind.example';
const work = mkdtempSync(join(tmpdir(), 'bio-owner-tls-'));
const live = join(work, 'live');
let sidecars: Awaited<ReturnType<typeof startAppInProcess>>[] = [];
let ports: { http: number; https: number };

/** A self-signed certificate for `host`, where certbot keeps one (`live/{host}/fullchain.pem`, `privkey.pem`). */
const selfSigned = (host: string) =>
  `mkdir -p ${live}/${host} && openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=${host} ` +
  `-addext subjectAltName=DNS:${host} -keyout ${live}/${host}/privkey.pem -out ${live}/${host}/fullchain.pem 2>/dev/null`;

beforeAll(async () => {
  const databasePath = await createDatabase({
    ...demoData,
    domains: [
      { host: LAYLA, page: 'layla' },
      { host: NORTHWIND, page: 'northwind-studio', cards: true },
    ],
  });
  sidecars = [
    await startAppInProcess({ ...testConfig, databasePath }),
    await startAppInProcess({ ...testConfig, databasePath }),
  ];
  ports = { http: await freePort(), https: await freePort() };
  // nginx's workers run as nobody: the build they read sits where they can read it, as /opt/bio is.
  chmodSync(work, 0o755);
  // certbot's folders, which it makes (its keys under archive/, linked from live/).
  mkdirSync(join(work, 'archive'));
  cpSync(join(projectRoot, 'dist'), join(work, 'dist'), { recursive: true });
  const block = guideBlock(/--tls-listen 0\.0\.0\.0:443/);
  const platformHost = new URL(testConfig.baseUrl).hostname;
  runGuideBlock(
    block,
    [
      ['apt-get install certbot', '# (npm run setup: certbot is not needed by this run)'],
      [
        'certbot certonly --webroot -w /var/lib/bio-acme -d bio.example --deploy-hook "$READABLE" -n --agree-tos -m ops@bio.example',
        `${selfSigned(platformHost)} && eval "$READABLE"`,
      ],
      [
        'certbot certonly --webroot -w /var/lib/bio-acme -d links.example.sa --deploy-hook "$READABLE" -n --agree-tos -m ops@bio.example',
        `${selfSigned(LAYLA)} && ${selfSigned(NORTHWIND)} && eval "$READABLE"`,
      ],
      ['https://bio.example', testConfig.baseUrl],
      ['0.0.0.0:80', `127.0.0.1:${ports.http}`],
      ['0.0.0.0:443', `127.0.0.1:${ports.https}`],
      ['127.0.0.1:8081', new URL(sidecars[0]!.url).host],
      ['127.0.0.1:8082', new URL(sidecars[1]!.url).host],
      ['/opt/bio/dist/client', join(work, 'dist', 'client')],
      ['/var/lib/bio-front', join(work, 'prefix')],
      ['/var/log/nginx/bio-access.log', join(work, 'access.log')],
      ['/etc/nginx/bio.conf', join(work, 'bio.conf')],
      ['/var/lib/bio-acme', join(work, 'acme')],
      ['/etc/letsencrypt/live', live],
      ['/etc/letsencrypt/archive', join(work, 'archive')],
    ],
    cleanEnv({}),
  );
  // Started as a daemon: asked until it answers.
  for (let i = 0; i < 100; i++) {
    const up = await getAt(`http://127.0.0.1:${ports.http}`, 'localhost', '/').catch(() => undefined);
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

afterAll(async () => {
  const pid = join(work, 'prefix', 'nginx.pid');
  if (existsSync(pid)) spawnSync('kill', ['-QUIT', readFileSync(pid, 'utf8').trim()]);
  await Promise.all(sidecars.map((s) => s.app.close()));
  rmSync(work, { recursive: true, force: true });
});

/** A GET over TLS asking for `host` (SNI and Host), trusting only that host's certificate. */
function overTls(host: string, path: string): Promise<{ status: number; text: string; subject: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port: ports.https,
        path,
        servername: host,
        headers: { host },
        ca: readFileSync(join(live, host, 'fullchain.pem')),
        checkServerIdentity: () => undefined,
      },
      (res) => {
        const subject = (res.socket as TLSSocket).getPeerCertificate().subject?.CN?.toString();
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, subject }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe("owners' domains over TLS, as the guide prints it", () => {
  it("serves each owner's page at its domain, with that domain's certificate", async () => {
    const layla = await overTls(LAYLA, '/');
    expect(layla.status).toBe(200);
    expect(layla.subject).toBe(LAYLA);
    expect(layla.text).toContain('ليلى الأحمد');
    expect(layla.text).toContain(`<link rel="canonical" href="https://${LAYLA}/">`);
    const northwind = await overTls(NORTHWIND, '/c/n0rth1');
    expect(northwind.status).toBe(200);
    expect(northwind.subject).toBe(NORTHWIND);
    expect(northwind.text).toContain(`<link rel="canonical" href="https://${NORTHWIND}/c/n0rth1">`);
    // The page's assets at the domain, from the build.
    const asset = /(?:href|src)="(\/(?:_astro|global-scripts)\/[^"]+)"/.exec(layla.text)?.[1];
    expect(asset).toBeDefined();
    expect((await overTls(LAYLA, asset!)).status).toBe(200);
  });

  it("serves the platform over TLS with its own certificate, and sends its address of a domain's page there", async () => {
    const platformHost = new URL(testConfig.baseUrl).hostname;
    const home = await overTls(platformHost, '/');
    expect(home.status).toBe(200);
    expect(home.subject).toBe(platformHost);
    const moved = await getAt(`http://127.0.0.1:${ports.http}`, platformHost, '/p/layla');
    expect(moved.status).toBe(301);
    expect(moved.header('location')).toBe(`https://${LAYLA}/`);
  });

  it("sends an owner's page asked over plain HTTP to https://, and answers an ACME challenge at the owner's name", async () => {
    const plain = await getAt(`http://127.0.0.1:${ports.http}`, LAYLA, '/ar?x=1');
    expect(plain.status).toBe(301);
    expect(plain.header('location')).toBe(`https://${LAYLA}/ar?x=1`);
    const challenges = join(work, 'acme', '.well-known', 'acme-challenge');
    mkdirSync(challenges, { recursive: true });
    writeFileSync(join(challenges, 'token-63'), 'token-63.thumbprint');
    const challenge = await getAt(
      `http://127.0.0.1:${ports.http}`,
      'new-owner.example',
      '/.well-known/acme-challenge/token-63',
    );
    expect(challenge.status).toBe(200);
    expect(challenge.text).toBe('token-63.thumbprint');
  });

  it("loads no certificate but a host name's folder (SNI is the client's word), and answers 421 to a Host not the connection's name", async () => {
    // A pair of files beside the certificates' folder, which a name with `..` would have had nginx load.
    mkdirSync(join(work, 'elsewhere'), { recursive: true });
    spawnSync('bash', ['-c', selfSigned('elsewhere').replaceAll(`${live}/elsewhere`, join(work, 'elsewhere'))]);
    spawnSync('chmod', ['-R', 'a+rX', join(work, 'elsewhere')]);
    const traversal = new Promise<string | undefined>((resolve, reject) => {
      const req = httpsRequest(
        { host: '127.0.0.1', port: ports.https, path: '/', servername: '../elsewhere', rejectUnauthorized: false },
        (res) => resolve((res.socket as TLSSocket).getPeerCertificate().subject?.CN?.toString()),
      );
      req.on('error', reject);
      req.end();
    });
    await expect(traversal).rejects.toThrow();
    // The connection made for one owner's name, the request for another's: refused, not answered as the other's.
    const crossed = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: ports.https,
          path: '/',
          servername: LAYLA,
          headers: { host: NORTHWIND },
          ca: readFileSync(join(live, LAYLA, 'fullchain.pem')),
          checkServerIdentity: () => undefined,
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(crossed).toBe(421);
  });

  it("offers no certificate for a name that is nobody's: no page of another's is served under it", async () => {
    const handshake = new Promise<number>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: ports.https,
          path: '/',
          servername: 'nobody.example',
          headers: { host: 'nobody.example' },
          rejectUnauthorized: false,
        },
        (res) => resolve(res.statusCode ?? 0),
      );
      req.on('error', reject);
      req.end();
    });
    await expect(handshake).rejects.toThrow();
  });
});
