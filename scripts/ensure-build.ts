// Builds the site when dist/ is missing or was built from other sources or another configuration.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { buildFingerprint, readManifest } from '../src/lib/build-manifest.ts';
import type { PublicConfig } from '../src/lib/site-config.ts';

import { projectRoot } from './project-root.ts';

export { projectRoot };

/** The signals that stop what `npm start` runs: a supervisor's or a shell's `kill`, Ctrl-C, a closed terminal. */
const STOPPING = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/** Why a build is needed (the line said before it), or undefined when dist/ is the build of these sources and `config`. */
function buildNeeded(config: PublicConfig): string | undefined {
  const manifest = readManifest(join(projectRoot, 'dist'));
  if (manifest?.fingerprint === buildFingerprint(projectRoot, config)) return undefined;
  return manifest ? 'Sources or configuration changed since the last build: rebuilding…' : 'No build yet: building…';
}

const astro = join(projectRoot, 'node_modules', '.bin', 'astro');

/**
 * `npm start`'s build (and `npm run regions`'): returns true when it had to build; throws when the build fails. A
 * signal that would stop this process while the build runs stops the build first (it is passed on), then this process
 * with it: stopped while it builds, `npm start` leaves no build behind, writing dist/ for a server that will not come.
 */
export async function ensureBuild(config: PublicConfig, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const why = buildNeeded(config);
  if (!why) return false;
  console.log(why);
  const build = spawn(astro, ['build'], { cwd: projectRoot, stdio: 'inherit', env });
  let stoppedBy: NodeJS.Signals | undefined;
  const passOn = (signal: NodeJS.Signals) => {
    stoppedBy = signal;
    build.kill(signal);
  };
  for (const signal of STOPPING) process.on(signal, passOn);
  try {
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      build.once('error', reject);
      build.once('exit', (c, s) => resolve([c, s]));
    });
    if (stoppedBy) {
      // Stopped as asked: this process ends as the signal would have ended it.
      for (const s of STOPPING) process.off(s, passOn);
      process.kill(process.pid, stoppedBy);
    }
    if (code !== 0) throw new Error(`The build failed (exit ${code ?? signal}); see above.`);
    return true;
  } finally {
    for (const signal of STOPPING) process.off(signal, passOn);
  }
}

/**
 * The same, blocking, for the tests' set-up and the benches: one build, whatever else their process starts meanwhile
 * (a stop signal ends the process at once, as Node's default does, and the build with it only when the whole process
 * group is signalled, as a terminal's Ctrl-C does).
 */
export function ensureBuildSync(config: PublicConfig, env: NodeJS.ProcessEnv = process.env): boolean {
  const why = buildNeeded(config);
  if (!why) return false;
  console.log(why);
  const build = spawnSync(astro, ['build'], { cwd: projectRoot, stdio: 'inherit', env });
  if (build.status !== 0) throw new Error(`The build failed (exit ${build.status ?? build.signal}); see above.`);
  return true;
}
