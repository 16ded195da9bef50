// The Kubernetes manifests (#50), played on this machine by podman (`podman kube play`), as `npm run kube -- config`
// prints them: the sidecars' Deployment (two pods of the release's image), the edge's (Varnish and its purger), their
// ConfigMaps, reading a PostgreSQL hot standby with the read-only role through the Secret bio-database. What podman
// lacks is given the way its documentation says: no Services, so the edge names the sidecars' pods (--backend); a
// Secret is a podman secret holding the keys' base64. PostgreSQL runs on this machine, listening only on the bridge
// the pods share (its gateway), trusted from that network alone; readers ask through the edge's hostPort on 127.0.0.1.
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_BASE, podman } from '../../scripts/image.ts';
import { startPrimary, type Node, type Topology } from '../../scripts/postgres-cluster.ts';
import { freePort } from '../../scripts/sidecar-process.ts';
import { cleanEnv, projectRoot } from '../helpers/env.ts';
import { startReaders } from '../helpers/readers.ts';

const id = process.pid % 200;
const network = `bio-kube-${process.pid}`;
const subnet = `10.90.${id}.0/24`;
const gateway = `10.90.${id}.1`;
/** Keeps the bridge (and so its gateway address, where PostgreSQL listens) up from before the pods to after them. */
const bridgeHolder = `bio-kube-bridge-${process.pid}`;
const SIDECAR_PODS = ['bio-sidecar-pod-0', 'bio-sidecar-pod-1'];
/** The volumes the manifests' pods name: the edge's ConfigMap and its work folder. */
const VOLUMES = ['bio-edge', 'bio-edge-work'];

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quietly = (args: string[]) => {
  try {
    podman(args);
  } catch {
    // Already gone.
  }
};

describe('the Kubernetes manifests, played by podman', () => {
  let work: string;
  let manifests: string;
  let topology: Topology | undefined;
  let primary: Node;
  let edge: string;

  beforeAll(async () => {
    const { image, edgeImage } = inject('release');
    work = mkdtempSync(join(tmpdir(), 'bio-kube-'));
    podman(['network', 'create', '--subnet', subnet, network]);
    podman([
      'run',
      '--detach',
      '--rm',
      '--network',
      network,
      '--name',
      bridgeHolder,
      DEFAULT_BASE,
      '/bin/sleep',
      '600',
    ]);

    // The data tier: a primary and a streaming standby on the bridge's gateway; the service's database on the primary,
    // migrated and seeded by the CLI, the read-only role granted.
    topology = await startPrimary({ host: gateway, trust: [subnet] });
    primary = topology.primary;
    const admin = new pg.Client({ connectionString: primary.url('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE bio');
    await admin.end();
    const seeded = spawnSync(process.execPath, [join(projectRoot, 'scripts/db.ts'), 'seed-demo'], {
      env: cleanEnv({ DATABASE_URL: primary.url('bio') }),
      encoding: 'utf8',
    });
    expect(seeded.status, seeded.stderr).toBe(0);
    const roles = new pg.Client({ connectionString: primary.url('bio') });
    await roles.connect();
    await roles.query(readFileSync(join(projectRoot, 'deploy/postgres-roles.sql'), 'utf8'));
    await roles.end();
    const standby = await topology.addStandby('standby', { host: gateway });

    // The Secret, as podman keeps one: its keys' base64 in JSON.
    quietly(['secret', 'rm', 'bio-database']);
    const secretFile = join(work, 'secret.json');
    const databaseUrl = standby.url('bio', 'bio_reader');
    writeFileSync(secretFile, JSON.stringify({ DATABASE_URL: Buffer.from(databaseUrl).toString('base64') }));
    podman(['secret', 'create', 'bio-database', secretFile]);

    const port = await freePort();
    edge = `http://127.0.0.1:${port}`;
    manifests = join(work, 'bio.yaml');
    // The command docs/operations.md gives, with what podman needs: the pods named as the edge's backends, the bridge
    // as the pod network, the edge's port on 127.0.0.1.
    const printed = spawnSync(
      'npm',
      [
        'run',
        '--silent',
        'kube',
        '--',
        'config',
        '--edge-replicas',
        '1',
        ...SIDECAR_PODS.flatMap((pod) => ['--backend', `${pod}:8080`]),
        '--trust-proxy',
        subnet,
        '--publish',
        `127.0.0.1:${port}`,
      ],
      { cwd: projectRoot, env: cleanEnv(), encoding: 'utf8' },
    );
    expect(printed.status, printed.stderr).toBe(0);
    expect(printed.stdout).toContain(`image: ${image}`);
    expect(printed.stdout).toContain(`image: ${edgeImage}`);
    writeFileSync(manifests, printed.stdout);
    // podman keeps a pod's volumes by name (a ConfigMap's files, an emptyDir) after `kube down`: none from before.
    for (const volume of VOLUMES) quietly(['volume', 'rm', '--force', volume]);
    podman(['kube', 'play', '--network', network, manifests]);
    for (let i = 0; i < 300; i++) {
      const answer = await fetch(`${edge}/p/layla`).catch(() => undefined);
      if (answer?.status === 200) return;
      await pause(200);
    }
    throw new Error(`the edge did not serve /p/layla: ${podman(['logs', 'bio-edge-pod-0-varnish'])}`);
  }, 240_000);

  // A failure on a busy machine is diagnosed from one CI log: what the pods said is printed with it.
  afterEach(({ task }) => {
    if (task.result?.state !== 'fail') return;
    for (const container of [...SIDECAR_PODS.map((pod) => `${pod}-sidecar`), 'bio-edge-pod-0-varnish']) {
      const logs = spawnSync('podman', ['logs', '--tail', '40', container], { encoding: 'utf8' });
      console.error(`--- podman logs --tail 40 ${container}\n${logs.stdout}${logs.stderr}`);
    }
    // And the edge's own account: its backends as its probes judge them, and why each failed answer failed.
    const varnish = ([program, ...rest]: string[]) =>
      spawnSync('podman', ['exec', 'bio-edge-pod-0-varnish', program!, '-n', '/var/lib/varnish/bio', ...rest], {
        encoding: 'utf8',
      });
    const backends = varnish(['varnishadm', 'backend.list', '-p']);
    console.error(`--- varnishadm backend.list -p\n${backends.stdout}${backends.stderr}`);
    const failed = varnish([
      'varnishlog',
      '-d',
      '-g',
      'request',
      '-q',
      'RespStatus >= 500',
      '-i',
      'ReqURL,RespStatus,FetchError,BackendOpen,VCL_return,Timestamp',
    ]);
    console.error(`--- varnishlog: answers >= 500\n${failed.stdout.slice(-20_000)}${failed.stderr}`);
  });

  afterAll(() => {
    if (manifests) quietly(['kube', 'down', manifests]);
    quietly(['rm', '--force', bridgeHolder]);
    quietly(['network', 'rm', '--force', network]);
    quietly(['secret', 'rm', 'bio-database']);
    for (const volume of VOLUMES) quietly(['volume', 'rm', '--force', volume]);
    topology?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("backs up the primary with the image's own pg_dump, as the guide's command does (#61)", () => {
    const backups = join(work, 'backups');
    mkdirSync(backups);
    // The image's user writes it.
    chmodSync(backups, 0o777);
    podman([
      'run',
      '--rm',
      '--network',
      network,
      '-v',
      `${backups}:/backups`,
      '-e',
      `DATABASE_URL=${primary.url('bio')}`,
      '--entrypoint',
      '/opt/bio/bin/db',
      inject('release').image,
      'backup',
      '/backups/bio.dump',
    ]);
    // A custom-format archive, pg_dump's own header.
    expect(readFileSync(join(backups, 'bio.dump')).subarray(0, 5).toString('latin1')).toBe('PGDMP');
  });

  it('serves a profile and its twin through the edge, from sidecars that run as the manifests say', async () => {
    const page = await fetch(`${edge}/p/layla`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('ليلى الأحمد');
    const twin = await fetch(`${edge}/p/sam-rivera.md`);
    expect(twin.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await twin.text()).toContain('# Sam Rivera');
    expect(await (await fetch(`${edge}/health`)).json()).toMatchObject({ status: 'ok' });
    for (const pod of SIDECAR_PODS) {
      const container = `${pod}-sidecar`;
      expect(podman(['inspect', '--format', '{{.State.Status}}', container]).trim()).toBe('running');
      expect(podman(['exec', container, '/usr/bin/id', '-u']).trim()).toBe('10001');
      expect(podman(['inspect', '--format', '{{.HostConfig.ReadonlyRootfs}}', container]).trim()).toBe('true');
      // The liveness probe's route answers in the pod; it does not depend on the database.
      podman(['exec', container, '/opt/bio/bin/probe', '/livez']);
    }
  });

  it('shows an edit made on the primary through the edge, the purger beside Varnish purging it', async () => {
    expect(await (await fetch(`${edge}/p/sam-rivera`)).text()).not.toContain('Edited while the pods serve');
    const file = join(work, 'edit.json');
    writeFileSync(
      file,
      JSON.stringify({
        profiles: [
          { slug: 'sam-rivera', name: 'Sam Rivera', bio: 'Edited while the pods serve.', lang: 'en', links: [] },
        ],
      }),
    );
    const started = Date.now();
    // Not spawnSync: this process's loop must run while the import does. An import that took longer than the edge's
    // idle timeout (Varnish's timeout_idle, 5 s; CI on a machine at load 8) had the edge close this process's kept-alive
    // connection unseen, and the next fetch was written on it: "other side closed".
    const edit = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(projectRoot, 'scripts/db.ts'), 'import', file],
        { env: cleanEnv({ DATABASE_URL: primary.url('bio') }), encoding: 'utf8' },
        (err, _stdout, stderr) => resolve({ status: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr }),
      );
    });
    expect(edit.status, edit.stderr).toBe(0);
    let shownAfter: number | undefined;
    for (let i = 0; i < 200 && shownAfter === undefined; i++) {
      if ((await (await fetch(`${edge}/p/sam-rivera`)).text()).includes('Edited while the pods serve.'))
        shownAfter = Date.now() - started;
      else await pause(50);
    }
    expect(shownAfter, 'the edit never showed through the edge').toBeDefined();
    console.log(`kube: the edit showed through the edge ${shownAfter} ms after the import began`);
  });

  it('replaces a sidecar killed under load, with no failed reader request', async () => {
    const victim = `${SIDECAR_PODS[0]}-sidecar`;
    const restartsBefore = Number(podman(['inspect', '--format', '{{.RestartCount}}', victim]).trim());
    // /health is never kept by the edge: each reaches a sidecar, so half of them meet the killed one's address. The
    // readers ask at about 80 requests a second, the edge's origin share for one address (50 a second) well above
    // their /health: they are readers, not the attacker the share is for.
    const readers = startReaders({
      count: 4,
      paths: ['/health', '/p/layla', '/c/k7f2q9', '/health', '/p/sam-rivera.md', '/en/blog', '/p/layla'],
      get: (path) => fetch(edge + path),
      pauseMs: 50,
    });
    await readers.until(30);
    const killedAt = readers.answered();
    // A crash: the node process itself killed, not a stop podman was asked for.
    const pid = Number(podman(['inspect', '--format', '{{.State.Pid}}', victim]).trim());
    process.kill(pid, 'SIGKILL');
    let replaced = false;
    for (let i = 0; i < 150 && !replaced; i++) {
      await pause(200);
      const restarts = Number(podman(['inspect', '--format', '{{.RestartCount}}', victim]).trim());
      replaced =
        restarts > restartsBefore &&
        spawnSync('podman', ['exec', victim, '/opt/bio/bin/probe', '/health'], {
          env: { ...process.env, CONTAINERS_CONF: join(projectRoot, 'deploy/image/containers.conf') },
        }).status === 0;
    }
    // And the edge sends to it again: a second and a half more of load, and at least sixty answers since the kill.
    await pause(1500);
    await readers.until(60, killedAt);
    await readers.stop();
    expect(replaced, 'the killed sidecar was not started again').toBe(true);
    expect(readers.failures).toEqual([]);
    expect(killedAt).toBeGreaterThanOrEqual(30);
    expect(readers.answered() - killedAt).toBeGreaterThan(50);
  });
});
