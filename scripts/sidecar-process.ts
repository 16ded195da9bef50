// The sidecar as production runs it: sidecar/server.ts in a process of its own, on a free port of 127.0.0.1, with
// the V8 flags of `npm run serve`. The tests and the bench start it through this one function.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { CONFIG_VARIABLES } from '../sidecar/config.ts';
import { projectRoot } from './ensure-build.ts';

/** The process environment without the configuration's variables (every one: a spawned sidecar gets only what the
 * caller gives it), with `extra` on top. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of CONFIG_VARIABLES) delete env[key];
  return { ...env, ...extra };
}

/** The V8 heap flags `npm run serve` starts the sidecar with (package.json is their one home). */
export const serveFlags = (
  (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
    .serve ?? ''
)
  .split(/\s+/)
  .filter((word) => word.startsWith('--'));

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

/** The capabilities that let root read and search whatever a file's mode says. */
const FILE_MODE_OVERRIDES = '-dac_override,-dac_read_search';

export interface SpawnOptions {
  /**
   * Make file modes bind the server even when the tests run as root: it still runs as the same user (so it reads
   * the clone wherever it sits, a mode-700 home included), without the capabilities that ignore modes.
   */
  obeyFileModes?: boolean;
  /** Drop what it prints once it serves (a long run at LOG_LEVEL=info would otherwise pile its log up here). */
  discardOutput?: boolean;
}

/**
 * Starts the sidecar with the default BASE_URL (the build's), `LOG_LEVEL=warn` and `env` on top; resolves once it
 * prints that it is serving, rejects (with what it printed) if it exits first.
 */
export async function spawnSidecar(
  env: Record<string, string> = {},
  options: SpawnOptions = {},
): Promise<SidecarProcess> {
  const server = [process.execPath, ...serveFlags, join(projectRoot, 'sidecar/server.ts')];
  const command =
    options.obeyFileModes && process.getuid?.() === 0
      ? ['setpriv', `--inh-caps=${FILE_MODE_OVERRIDES}`, `--bounding-set=${FILE_MODE_OVERRIDES}`, '--', ...server]
      : server;
  const child = spawn(command[0]!, command.slice(1), {
    // PORT=0: the sidecar binds a port the system chooses and names it, so no other process can take it between a
    // port found free and the sidecar binding it (CI's regions suite lost one so: EADDRINUSE).
    env: cleanEnv({ PORT: '0', BASE_URL: 'http://localhost:8080', LOG_LEVEL: 'warn', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr?.on('data', (d) => (out += d));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      out += d;
      const serving = /Serving \S+ on http:\/\/\S+:(\d+)\r?\n/.exec(out);
      if (serving) resolve(Number(serving[1]));
    });
    child.once('exit', (code) => reject(new Error(`the sidecar exited (${code}) before serving: ${out}`)));
  });
  if (options.discardOutput) {
    for (const stream of [child.stdout, child.stderr]) {
      stream?.removeAllListeners('data');
      stream?.resume();
    }
  }
  const address = `127.0.0.1:${port}`;
  return { child, port, address, url: `http://${address}`, output: () => out };
}
