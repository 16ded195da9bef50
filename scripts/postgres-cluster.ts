// A PostgreSQL primary and a streaming hot standby on loopback, from Debian's binaries, for the tests and the bench:
// initdb into a temporary folder (owned by the postgres user when run as root: PostgreSQL refuses to run as
// root), pg_basebackup -R for the standby, free ports, fsync off. The same shape as production, on one machine.
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './sidecar-process.ts';
import { postgresBin } from './postgres-bin.ts';

export interface Node {
  port: number;
  dir: string;
  /** A URL of this node as the superuser, for `database`. */
  url(database: string, user?: string): string;
  start(): void;
  stop(mode?: 'fast' | 'immediate'): void;
}

export interface Cluster {
  primary: Node;
  standby: Node;
  stop(): void;
}

function runAsOwner(bin: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const result = spawnSync(command, argv, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed: ${result.stdout}${result.stderr}`);
}

/** A primary, and standbys added one by one (each streaming from the primary directly or through `upstream`). */
export interface Topology {
  primary: Node;
  /** A hot standby named `name` listening on `host`, streaming from `upstream` (default: the primary itself). */
  addStandby(name: string, options?: { host?: string; upstream?: { host: string; port: number } }): Promise<Node>;
  stop(): void;
}

/**
 * A primary on `host` (default 127.0.0.1): initdb into a temporary folder, started. `trust`: networks (CIDRs) whose
 * connections it and its standbys take without a password, besides loopback (containers on a bridge of this machine).
 */
export async function startPrimary(options: { host?: string; trust?: string[] } = {}): Promise<Topology> {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (Debian: apt-get install postgresql-15)');
  const root = mkdtempSync(join(tmpdir(), 'bio-pg-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(root, uid, gid);
  }
  const node = (name: string, host: string, port: number, settings: string[]): Node => {
    const dir = join(root, name);
    const flags = [
      '-p',
      String(port),
      '-c',
      `listen_addresses=${host}`,
      '-c',
      `unix_socket_directories=${root}`,
      '-c',
      'fsync=off',
      '-c',
      'full_page_writes=off',
      ...settings,
    ].join(' ');
    return {
      port,
      dir,
      url: (database, user = 'postgres') => `postgres://${user}@${host}:${port}/${database}`,
      start: () =>
        runAsOwner(join(bin, 'pg_ctl'), [
          '-D',
          dir,
          '-l',
          join(root, `${name}.log`),
          '-o',
          flags,
          '-w',
          '-t',
          '30',
          'start',
        ]),
      stop: (mode = 'fast') => runAsOwner(join(bin, 'pg_ctl'), ['-D', dir, '-m', mode, '-w', 'stop']),
    };
  };
  const primaryHost = options.host ?? '127.0.0.1';
  // Keepalives to the standbys every few seconds, so that a standby knows soon when it last heard from the primary.
  const primary = node('primary', primaryHost, await freePort(), [
    '-c',
    'wal_level=replica',
    '-c',
    'max_wal_senders=10',
    // A commit's WAL is written as it commits (fsync is off: that costs nothing here), so that a standby has it at
    // once, as a production primary's do: with it off, the WAL writer sent it up to 200 ms later, and the regions
    // bench measured that wait instead of the distance (issue 65).
    '-c',
    'synchronous_commit=on',
    '-c',
    'wal_sender_timeout=10s',
  ]);
  runAsOwner(join(bin, 'initdb'), [
    '-D',
    primary.dir,
    '-A',
    'trust',
    '-U',
    'postgres',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  for (const network of options.trust ?? [])
    appendFileSync(
      join(primary.dir, 'pg_hba.conf'),
      `host all all ${network} trust\nhost replication all ${network} trust\n`,
    );
  primary.start();
  const standbys: Node[] = [];
  return {
    primary,
    addStandby: async (name, { host = '127.0.0.1', upstream } = {}) => {
      // A lost link is tried again within a fifth of a second, and noticed within ten seconds when it goes silent.
      const standby = node(name, host, await freePort(), [
        '-c',
        'hot_standby=on',
        '-c',
        'hot_standby_feedback=on',
        '-c',
        'wal_retrieve_retry_interval=200ms',
        '-c',
        'wal_receiver_timeout=10s',
      ]);
      runAsOwner(join(bin, 'pg_basebackup'), [
        '-h',
        primaryHost,
        '-p',
        String(primary.port),
        '-U',
        'postgres',
        '-D',
        standby.dir,
        '-R',
        '-X',
        'stream',
        '-c',
        'fast',
        '-C',
        '-S',
        name,
        '--no-sync',
      ]);
      // The base backup came straight from the primary, with a replication slot of the standby's name, so the primary
      // keeps the WAL a standby has not yet received (a standby cut off catches up from where it stopped); the stream
      // goes the way the topology says (the last setting in postgresql.auto.conf wins).
      if (upstream)
        appendFileSync(
          join(standby.dir, 'postgresql.auto.conf'),
          `primary_conninfo = 'host=${upstream.host} port=${upstream.port} user=postgres application_name=${name}'\n`,
        );
      standby.start();
      standbys.push(standby);
      return standby;
    },
    stop: () => {
      for (const n of [...standbys, primary]) {
        try {
          n.stop('immediate');
        } catch {
          // Already stopped (a test stopped it).
        }
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export async function startCluster(): Promise<Cluster> {
  const topology = await startPrimary();
  const standby = await topology.addStandby('standby');
  return { primary: topology.primary, standby, stop: topology.stop };
}
