// Upgrades that refuse nothing (issue 64). The single-process shape upgraded by stopping the old version and starting
// the new refused 62 of 82 probe requests in between. With socket activation the listening socket is the service
// manager's (deploy/bio-sidecar.socket): the next version starts on it beside the old one, the old one then closes its
// copy and drains, and the rollback is the same step back. Here `systemd-socket-activate` holds the socket and
// test/helpers/socket-holder.ts plays systemd's part; a reader on another address asks throughout, on both backends.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, freePort } from '../../scripts/sidecar-process.ts';
import { createDatabase } from '../helpers/database.ts';
import { projectRoot } from '../helpers/env.ts';
import { databaseFromSqlite } from '../helpers/postgres.ts';
import { startReaders } from '../helpers/readers.ts';
import { temporaryFolder } from '../helpers/temporary.ts';

interface Holder {
  start: () => Promise<number>;
  stop: (pid: number) => Promise<number | null>;
  close: () => void;
}

/** The socket on 127.0.0.1:`port`, held by systemd-socket-activate, and the holder that starts sidecars on it. */
function holdSocket(port: number, env: Record<string, string>): Holder {
  const folder = temporaryFolder('bio-upgrade-');
  const variables = Object.entries(cleanEnv({ LOG_LEVEL: 'warn', ...env })).flatMap(([name, value]) =>
    value === undefined || name.startsWith('LISTEN_') ? [] : ['-E', `${name}=${value}`],
  );
  const activator: ChildProcess = spawn(
    'systemd-socket-activate',
    ['-l', `127.0.0.1:${port}`, ...variables, process.execPath, join(projectRoot, 'test/helpers/socket-holder.ts')],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const waiting: { match: RegExp; resolve: (line: string) => void }[] = [];
  createInterface({ input: activator.stdout! }).on('line', (line) => {
    const at = waiting.findIndex((w) => w.match.test(line));
    if (at >= 0) waiting.splice(at, 1)[0]!.resolve(line);
  });
  const next = (match: RegExp) => new Promise<string>((resolve) => waiting.push({ match, resolve }));
  // systemd-socket-activate starts its command at the first connection, as a socket unit does: one is made once it
  // listens (and left in its queue for the first version to take).
  const knock = (tries: number): void => {
    const socket = connect(port, '127.0.0.1', () => socket.destroy());
    socket.on('error', () => {
      if (tries > 0) setTimeout(() => knock(tries - 1), 20);
    });
  };
  knock(500);
  let versions = 0;
  return {
    start: async () => {
      const log = join(folder, `version-${++versions}.log`);
      const started = next(/^started /);
      activator.stdin!.write(`start ${log}\n`);
      const pid = Number((await started).split(' ')[1]);
      // Serving once it says so (its build loaded, its render threads warm).
      for (let i = 0; i < 600; i++) {
        let printed = '';
        try {
          printed = readFileSync(log, 'utf8');
        } catch {
          // Not written yet.
        }
        if (printed.includes('Serving ')) return pid;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`version ${versions} did not start: ${readFileSync(log, 'utf8')}`);
    },
    stop: async (pid) => {
      const exited = next(new RegExp(`^exited ${pid} `));
      activator.stdin!.write(`stop ${pid}\n`);
      const [, , code, ms] = (await exited).split(' ');
      if (process.env.UPGRADE_TIMES) console.log(`stopped in ${ms} ms`);
      return code === 'null' ? null : Number(code);
    },
    close: () => {
      activator.stdin!.end();
      setTimeout(() => activator.kill('SIGKILL'), 2000).unref();
    },
  };
}

/** A reader on 127.0.0.2 on kept-alive connections, as a browser keeps them. */
function readerOn(port: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const get = (path: string) =>
    new Promise<Response>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, localAddress: '127.0.0.2', agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0 })));
        res.on('error', reject);
      });
      req.on('error', reject).end();
    });
  return { get, close: () => agent.destroy() };
}

describe('an upgrade and a rollback on a socket handed over (issue 64)', () => {
  let holder: Holder | undefined;
  afterEach(() => holder?.close());

  for (const backend of ['SQLite', 'PostgreSQL'] as const) {
    it(`refuses nothing and fails nothing, on ${backend}`, async () => {
      const databasePath = await createDatabase();
      const env =
        backend === 'SQLite'
          ? { DATABASE_PATH: databasePath }
          : { DATABASE_URL: (await databaseFromSqlite(databasePath)).standby };
      const port = await freePort();
      holder = holdSocket(port, env);
      const old = await holder.start();
      const reader = readerOn(port);
      const readers = startReaders({
        count: 4,
        paths: ['/p/layla', '/health', '/en/blog', '/c/k7f2q9', '/p/qahwat-alnakheel'],
        get: reader.get,
        // A reader, not a flood: within one client's rate (REQUEST_RATE_PER_CLIENT).
        pauseMs: 50,
      });
      try {
        await readers.until(40);
        // The upgrade: the new version starts on the socket, then the old one stops (drains, exits 0).
        const upgraded = await holder.start();
        expect(await holder.stop(old)).toBe(0);
        const afterUpgrade = readers.answered();
        await readers.until(40, afterUpgrade);
        // The rollback: the previous version again, the same way.
        const rolledBack = await holder.start();
        expect(await holder.stop(upgraded)).toBe(0);
        await readers.until(40, readers.answered());
        await readers.stop();
        expect(readers.failures).toEqual([]);
        expect(readers.answered()).toBeGreaterThanOrEqual(120);
        await holder.stop(rolledBack);
      } finally {
        await readers.stop();
        reader.close();
      }
    });
  }
});
