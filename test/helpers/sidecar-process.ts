// The sidecar as production runs it: sidecar/server.ts in a process of its own, on a free port of 127.0.0.1.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cleanEnv, projectRoot, testConfig } from './env.ts';

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface SidecarProcess {
  child: ChildProcess;
  port: number;
  /** host:port */
  address: string;
  url: string;
  /** Everything it printed so far, standard output and error. */
  output: () => string;
}

/**
 * Starts the sidecar with the test build's BASE_URL, `LOG_LEVEL=warn` and `env` on top; resolves once it prints
 * that it is serving, rejects (with what it printed) if it exits first. `user` runs it as another user (root only).
 */
export async function spawnSidecar(env: Record<string, string> = {}, user: { uid: number; gid: number } | Record<string, never> = {}): Promise<SidecarProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(projectRoot, 'sidecar/server.ts')], {
    env: cleanEnv({ PORT: String(port), BASE_URL: testConfig.baseUrl, LOG_LEVEL: 'warn', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    ...user,
  });
  let out = '';
  child.stderr?.on('data', (d) => (out += d));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      out += d;
      if (out.includes('Serving')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the sidecar exited (${code}) before serving: ${out}`)));
  });
  const address = `127.0.0.1:${port}`;
  return { child, port, address, url: `http://${address}`, output: () => out };
}
