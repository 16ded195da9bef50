// The production shape on loopback: nginx (Debian's, its own prefix in a temp folder, no root paths) filled from
// deploy/nginx.conf, over two sidecars in front mode (STATIC_FILES=front) reading the same database file.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, openServices } from '../../sidecar/app.ts';
import { runFront, UNLIMITED_CLIENT } from '../../scripts/front-config.ts';
import type { ServerConfig } from '../../sidecar/config.ts';
import { distDir, testConfig } from './env.ts';
import { freePort, type SidecarProcess } from '../../scripts/sidecar-process.ts';
import { spawnTestSidecar } from './sidecar.ts';
import { temporaryFolder } from './temporary.ts';

export interface Front {
  url: string;
  sidecars: { url: string; app: FastifyInstance; renders: () => number }[];
  nginx: ChildProcess;
  prefix: string;
  close: () => Promise<void>;
}

/** A sidecar in front mode, in this process, on 127.0.0.1 (`port`, or a free one). */
export async function startAppInProcess(
  config: ServerConfig,
  port = 0,
): Promise<{ url: string; app: FastifyInstance; renders: () => number }> {
  const options = { config: { ...config, staticFiles: 'front' as const, trustProxy: '127.0.0.1' }, distDir };
  const services = await openServices(options);
  const app = await buildApp({ ...options, services });
  const url = await app.listen({ port, host: '127.0.0.1' });
  return { url, app, renders: () => services.live.renders };
}

/** Starts nginx, filled from deploy/nginx.conf, over the given sidecar addresses (host:port). */
export async function startNginxBefore(
  config: ServerConfig,
  sidecars: string[],
): Promise<{ url: string; nginx: ChildProcess; prefix: string }> {
  const prefix = mkdtempSync(join(tmpdir(), 'bio-front-'));
  // The suites ask from one address as fast as they can: what the front refuses one client is the fairness suite's
  // (test/faults/fair.test.ts, with the front as shipped).
  const { url, nginx } = await runFront({
    config,
    sidecars,
    prefix,
    port: await freePort(),
    clientLimits: UNLIMITED_CLIENT,
  });
  return { url, nginx, prefix };
}

/** Stops nginx, then removes its `prefix` folder (its configuration, logs and temporary files), when given. */
export async function stopNginx(nginx: ChildProcess, prefix?: string): Promise<void> {
  if (nginx.exitCode === null)
    await new Promise<void>((resolve) => {
      nginx.once('exit', () => resolve());
      nginx.kill('SIGQUIT');
    });
  if (prefix) rmSync(prefix, { recursive: true, force: true });
}

export async function startFront(config: ServerConfig): Promise<Front> {
  const sidecars = [await startAppInProcess(config), await startAppInProcess(config)];
  const { url, nginx, prefix } = await startNginxBefore(
    config,
    sidecars.map((s) => new URL(s.url).host),
  );
  return {
    url,
    sidecars,
    nginx,
    prefix,
    close: async () => {
      await stopNginx(nginx, prefix);
      await Promise.all(sidecars.map((s) => s.app.close()));
    },
  };
}

/** Set by the vitest project that runs the HTTP suite through the front. */
export const throughFront = process.env.BIO_TEST_FRONT === '1';

/**
 * The front as shipped (the shares for one client as FRONT_LIMITS sets them, one worker) over one sidecar process in
 * front mode on the database `env` names: for the suites about what the front does with one client's load.
 */
export async function startShippedFront(
  env: Record<string, string>,
): Promise<{ url: string; sidecar: SidecarProcess; stop: () => Promise<void> }> {
  const sidecar = await spawnTestSidecar({ ...env, STATIC_FILES: 'front', TRUST_PROXY: '127.0.0.1' });
  try {
    const { url, nginx } = await runFront({
      config: testConfig,
      sidecars: [sidecar.address],
      prefix: temporaryFolder('bio-front-'),
      port: await freePort(),
    });
    return {
      url,
      sidecar,
      stop: async () => {
        await stopNginx(nginx);
        sidecar.child.kill('SIGKILL');
      },
    };
  } catch (error) {
    sidecar.child.kill('SIGKILL');
    throw error;
  }
}
