// The skeleton every build step after Astro's own shares: the project's root (from Astro's config), the built site's
// folder, and one line in the build's log saying what the step did and how long it took; and the fan-out of a step's
// work over worker threads, one per core.
import type { AstroIntegration, AstroIntegrationLogger } from 'astro';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

export interface BuildStepContext {
  /** The project's folder (astro.config.mjs's root). */
  projectRoot: string;
  /** dist/client, the built site. */
  root: string;
  logger: AstroIntegrationLogger;
}

/** An integration that runs `run` once the site is built and logs what it returns, with the time it took. */
export function buildStep(
  name: string,
  run: (context: BuildStepContext) => Promise<string> | string,
): AstroIntegration {
  let projectRoot = process.cwd();
  return {
    name,
    hooks: {
      'astro:config:done': ({ config }) => {
        projectRoot = fileURLToPath(config.root);
      },
      'astro:build:done': async ({ dir, logger }) => {
        const started = performance.now();
        const said = await run({ projectRoot, root: fileURLToPath(dir), logger });
        logger.info(`${said} in ${Math.round(performance.now() - started)} ms`);
      },
    },
  };
}

/**
 * Runs `workerFile` in worker threads over `items`, a round-robin share each, as many workers as cores but at least
 * `perWorker` items each (starting a worker costs about half a second); resolves to every worker's one message.
 * `dataOf` makes a worker's workerData from its share; `what` names it in an error.
 */
export async function inWorkers<T, R>(
  workerFile: string,
  items: readonly T[],
  perWorker: number,
  dataOf: (share: T[]) => unknown,
  what: string,
): Promise<R[]> {
  const workers =
    items.length === 0 ? 0 : Math.max(1, Math.min(availableParallelism(), Math.ceil(items.length / perWorker)));
  const shares = Array.from({ length: workers }, (_, i) => items.filter((_, k) => k % workers === i));
  return Promise.all(
    shares.map(
      (share) =>
        new Promise<R>((resolve, reject) => {
          const worker = new Worker(workerFile, { workerData: dataOf(share) });
          worker.once('message', resolve);
          worker.once('error', reject);
          worker.once('exit', (code) => code !== 0 && reject(new Error(`${what} exited with ${code}`)));
        }),
    ),
  );
}
