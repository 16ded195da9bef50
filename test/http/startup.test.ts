// The sidecar as a process: it refuses a bad configuration or a build made for another origin, and prints its URL.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, projectRoot } from '../helpers/env.ts';
import { freePort } from '../../scripts/sidecar-process.ts';
import { createDatabase } from '../helpers/database.ts';
import { spawnTestSidecar } from '../helpers/sidecar.ts';
import { projectCopy, temporaryFolder } from '../helpers/temporary.ts';

const server = join(projectRoot, 'sidecar/server.ts');

/**
 * Starts `command` (npm start's script, or npm itself) serving on `port` of 127.0.0.1 with the build's BASE_URL (the
 * default follows PORT, and npm start would build again for it) and a database of its own; what it prints, so far.
 */
function startOn(port: number, command: string, args: string[], options: { cwd?: string; detached?: boolean } = {}) {
  const child = spawn(command, args, {
    ...options,
    env: cleanEnv({
      BASE_URL: 'http://localhost:8080',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_PATH: join(temporaryFolder('bio-start-'), 'bio.db'),
    }),
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

describe('sidecar start-up', () => {
  it('stops with a clear message naming each bad variable', () => {
    const r = spawnSync(process.execPath, [server], {
      env: cleanEnv({ PORT: '99999', CONTACT_EMAIL: 'x' }),
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('PORT must be a whole number');
    expect(r.stderr).toContain('CONTACT_EMAIL must be an e-mail address');
  });

  it('refuses to serve a build made for another BASE_URL, and says how to rebuild', () => {
    const r = spawnSync(process.execPath, [server], {
      env: cleanEnv({ BASE_URL: 'https://links.example.org' }),
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the build was made for baseUrl "http://localhost:8080"');
    expect(r.stderr).toContain('BASE_URL=https://links.example.org npm run build');
  });

  it('serves the build made for its configuration, prints the URL and exits 0 on SIGTERM', async () => {
    // The build is for http://localhost:8080 whatever port we listen on: BASE_URL is the public origin.
    const { child, port, output } = await spawnTestSidecar({ BASE_URL: 'http://localhost:8080' });
    expect(output()).toContain(`Serving http://localhost:8080 on http://127.0.0.1:${port}`);
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('says in one line that its port is in use, naming PORT and a port that is free, with no stack trace (issue 62)', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    // The next port taken too (an operator's metrics port, say): the port suggested must be one that is free.
    const next = createServer();
    await new Promise<void>((resolve) => {
      next.once('error', () => resolve());
      next.listen(port + 1, '127.0.0.1', resolve);
    });
    try {
      const r = spawnSync(process.execPath, [server], {
        env: cleanEnv({
          BASE_URL: 'http://localhost:8080',
          PORT: String(port),
          HOST: '127.0.0.1',
          DATABASE_PATH: await createDatabase(),
        }),
        encoding: 'utf8',
      });
      expect(r.status).toBe(1);
      const said = r.stderr.trim().split('\n');
      expect(said, r.stderr).toHaveLength(1);
      expect(said[0]).toContain(`127.0.0.1:${port} is in use`);
      const suggested = Number(/PORT=(\d+)/.exec(said[0]!)?.[1]);
      expect(suggested, said[0]).not.toBe(port);
      expect(suggested, said[0]).not.toBe(port + 1);
      // Free: the operator who sets it is served.
      const probe = createServer();
      await new Promise<void>((resolve, reject) => {
        probe.once('error', reject);
        probe.listen(suggested, '127.0.0.1', resolve);
      });
      probe.close();
    } finally {
      taken.close();
      next.close();
    }
  });

  it('npm start names the demo pages to open, at the address it serves', async () => {
    const port = await freePort();
    const { child, output } = startOn(port, process.execPath, [join(projectRoot, 'scripts/start.ts')]);
    try {
      for (let i = 0; i < 600 && !output().includes('/c/k7f2q9'); i++) await new Promise((r) => setTimeout(r, 50));
      for (const page of ['/p/layla', '/p/qahwat-alnakheel', '/c/k7f2q9', '/ar/blog'])
        expect(output()).toContain(`http://127.0.0.1:${port}${page}`);
      expect((await fetch(`http://127.0.0.1:${port}/p/qahwat-alnakheel`)).status).toBe(200);
    } finally {
      child.kill('SIGKILL');
    }
  });

  // A supervisor, a shell's `kill` or a container runtime stops what it started with SIGTERM, and what npm started is
  // npm. npm passes the signal on to the shell it ran the script in, which (Debian's dash) did not pass it on: npm
  // ended, and the server went on serving, its port taken (a reviewer's finding, issue 65's last stop).
  it.each(['serve', 'start'])(
    'npm run %s stops when npm is sent SIGTERM',
    async (script) => {
      const port = await freePort();
      // A process group of its own: whatever is left of it is killed after the test.
      const { child: npm, output } = startOn(port, 'npm', ['run', script], { cwd: projectRoot, detached: true });
      const answers = () =>
        new Promise<boolean>((resolve) => {
          const socket = connect(port, '127.0.0.1');
          const done = (open: boolean) => {
            socket.destroy();
            resolve(open);
          };
          socket.once('connect', () => done(true)).once('error', () => done(false));
          socket.setTimeout(2000, () => done(false));
        });
      try {
        for (let i = 0; i < 1200 && !/Serving \S+ on http/.test(output()); i++)
          await new Promise((r) => setTimeout(r, 50));
        expect(await answers(), output()).toBe(true);
        process.kill(npm.pid!, 'SIGTERM');
        // It drains for SHUTDOWN_DRAIN_MS (a second), then closes.
        let open = true;
        for (let i = 0; i < 100 && open; i++) {
          await new Promise((r) => setTimeout(r, 100));
          open = await answers();
        }
        expect(open, 'the port still answers ten seconds after SIGTERM').toBe(false);
      } finally {
        try {
          process.kill(-npm.pid!, 'SIGKILL');
        } catch {
          // Nothing left of it.
        }
      }
    },
    90_000,
  );

  // `npm start` builds first when there is no build; stopped then, it ended and left the build running to its end,
  // writing dist/ for a server that would not come (spawnSync: no signal reached the build). A reviewer's finding at
  // issue 65's last stop.
  it('npm start stopped while it builds leaves no build running', async () => {
    // A copy of the project with no build (the suites' own dist/ is never touched), npm in a process group of its own.
    const copy = projectCopy(temporaryFolder('bio-start-build-'));
    const { child: npm, output } = startOn(await freePort(), 'npm', ['start'], { cwd: copy, detached: true });
    const groupAlive = () => {
      try {
        process.kill(-npm.pid!, 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      for (let i = 0; i < 600 && !output().includes('No build yet: building'); i++)
        await new Promise((r) => setTimeout(r, 50));
      // Astro started (the demo's build takes some seconds more).
      await new Promise((r) => setTimeout(r, 1000));
      expect(groupAlive(), output()).toBe(true);
      expect(output()).not.toMatch(/Serving|build failed/);
      process.kill(npm.pid!, 'SIGTERM');
      let alive = true;
      for (let i = 0; i < 600 && alive; i++) {
        await new Promise((r) => setTimeout(r, 100));
        alive = groupAlive();
      }
      expect(alive, 'a process of npm start still runs a minute after SIGTERM to npm').toBe(false);
      // The build was stopped, not left to finish: it writes its manifest last (write-build-manifest.ts).
      expect(existsSync(join(copy, 'dist', 'build-manifest.json')), output()).toBe(false);
    } finally {
      try {
        process.kill(-npm.pid!, 'SIGKILL');
      } catch {
        // Nothing left of it.
      }
    }
  }, 90_000);
});
