// A PostgreSQL primary and a streaming hot standby on loopback, from Debian's binaries, for the tests and the bench:
// initdb into a temporary folder (owned by the postgres user when run as root: PostgreSQL refuses to run as
// root), pg_basebackup -R for the standby, free ports, fsync off. The same shape as production, on one machine.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './sidecar-process.ts';

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

/** The newest PostgreSQL binaries Debian installed, or undefined. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

function runAsOwner(bin: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const result = spawnSync(command, argv, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed: ${result.stdout}${result.stderr}`);
}

export async function startCluster(): Promise<Cluster> {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (Debian: apt-get install postgresql-15)');
  const root = mkdtempSync(join(tmpdir(), 'bio-pg-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(root, uid, gid);
  }
  const node = (name: string, port: number, options: string[]): Node => {
    const dir = join(root, name);
    const settings = ['-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${root}`, '-c', 'fsync=off', '-c', 'full_page_writes=off', ...options].join(' ');
    return {
      port,
      dir,
      url: (database, user = 'postgres') => `postgres://${user}@127.0.0.1:${port}/${database}`,
      start: () => runAsOwner(join(bin, 'pg_ctl'), ['-D', dir, '-l', join(root, `${name}.log`), '-o', settings, '-w', '-t', '30', 'start']),
      stop: (mode = 'fast') => runAsOwner(join(bin, 'pg_ctl'), ['-D', dir, '-m', mode, '-w', 'stop']),
    };
  };
  const primary = node('primary', await freePort(), ['-c', 'wal_level=replica', '-c', 'max_wal_senders=10', '-c', 'synchronous_commit=off']);
  const standby = node('standby', await freePort(), ['-c', 'hot_standby=on', '-c', 'hot_standby_feedback=on']);
  runAsOwner(join(bin, 'initdb'), ['-D', primary.dir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
  primary.start();
  runAsOwner(join(bin, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', standby.dir, '-R', '-X', 'stream', '--no-sync']);
  standby.start();
  return {
    primary,
    standby,
    stop: () => {
      for (const n of [standby, primary]) {
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
