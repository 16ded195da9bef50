// Build step before anything is built: the content checks (src/lib/blog/content-checks.ts); any problem fails the
// build, every one listed with its file and line. Then what is scheduled, each article with the day and hour it
// appears.
import type { AstroIntegration } from 'astro';
import { fileURLToPath } from 'node:url';
import { contentReport, scheduledLines } from '../lib/blog/content-checks.ts';

export default function contentChecks(): AstroIntegration {
  let root = process.cwd();
  return {
    name: 'content-checks',
    hooks: {
      'astro:config:done': ({ config }) => {
        root = fileURLToPath(config.root);
      },
      'astro:build:start': ({ logger }) => {
        const started = performance.now();
        const { problems, scheduled } = contentReport(root);
        if (problems.length > 0)
          throw new Error(
            `The content has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n  ${problems.join('\n  ')}`,
          );
        logger.info(`content checks: no problem, in ${Math.round(performance.now() - started)} ms`);
        for (const line of scheduledLines(scheduled)) logger.info(line);
      },
    },
  };
}
