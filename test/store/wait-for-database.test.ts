// The import CLI waits for a PostgreSQL that does not answer yet (issue 61): a compose file's database makes its cluster
// on its first start while `migrate` and the guide's `seed-demo` start beside it. Here the CLI is started against an
// address where nothing listens; once it says it waits, the address starts answering (a relay to the test primary)
// and the CLI goes on. A failure that waiting cannot mend (no such database) is said at once.
import { spawn } from 'node:child_process';
import { createServer, connect, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/sidecar-process.ts';
import { cleanEnv, projectRoot } from '../helpers/env.ts';
import { ports, url, withClient } from '../helpers/postgres.ts';

const DATABASE = `wait_${process.pid}`;
let relay: Server | undefined;

afterAll(async () => {
  relay?.close();
  await withClient(url(ports().primary, 'postgres'), (c) => c.query(`DROP DATABASE IF EXISTS ${DATABASE}`));
});

/** `npm run db -- ARGS` as the guide runs it, against `databaseUrl`: its exit code and what it said. */
function db(args: string[], databaseUrl: string, onStderr: (text: string) => void = () => undefined) {
  const child = spawn('npm', ['run', '--silent', 'db', '--', ...args], {
    cwd: projectRoot,
    env: cleanEnv({ DATABASE_URL: databaseUrl }),
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    onStderr(err);
  });
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, out, err })),
  );
}

describe('the import CLI and a database that is not up yet', () => {
  it('waits for it, saying so, and migrates once it answers', async () => {
    await withClient(url(ports().primary, 'postgres'), (c) => c.query(`CREATE DATABASE ${DATABASE}`));
    const port = await freePort();
    let relaying = false;
    const done = await db(['migrate'], url(port, DATABASE), (err) => {
      if (relaying || !/does not answer yet/.test(err)) return;
      relaying = true;
      // The database comes up: the address relays to the primary.
      relay = createServer((socket) => {
        const upstream = connect(ports().primary, '127.0.0.1');
        socket.pipe(upstream).pipe(socket);
        socket.on('error', () => upstream.destroy());
        upstream.on('error', () => socket.destroy());
      }).listen(port, '127.0.0.1');
    });
    expect(done.code, done.err).toBe(0);
    expect(done.err).toMatch(/The database does not answer yet \(ECONNREFUSED\)/);
    expect(done.out).toMatch(/Migrated .* to schema version \d+/);
  });

  it('says at once what waiting cannot mend', async () => {
    const done = await db(['migrate'], url(ports().primary, `${DATABASE}_missing`));
    expect(done.code).not.toBe(0);
    expect(done.err).toMatch(/does not exist/);
    expect(done.err).not.toMatch(/does not answer yet/);
  });
});
