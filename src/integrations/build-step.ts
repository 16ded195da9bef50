// The skeleton every build step after Astro's own shares: the project's root (from Astro's config), the built site's
// folder, and one line in the build's log saying what the step did and how long it took.
import type { AstroIntegration, AstroIntegrationLogger } from 'astro';
import { fileURLToPath } from 'node:url';

export interface BuildStepContext {
  /** The project's folder (astro.config.mjs's root). */
  projectRoot: string;
  /** dist/client, the built site. */
  root: string;
  logger: AstroIntegrationLogger;
}

/** An integration that runs `run` once the site is built and logs what it returns, with the time it took. */
export function buildStep(name: string, run: (context: BuildStepContext) => Promise<string> | string): AstroIntegration {
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
