// Build step before anything is built: the content checks (src/lib/blog/content-checks.ts); any problem fails the
// build, every one listed with its file and line. Then what is scheduled, each article with the day and hour it
// appears. Run once the configuration is done, before Astro syncs the content: Astro's own schema check there stopped
// at the first article it could not take, naming no line, and an editor met the others one build at a time (an
// operator's review). What an unchanged article's file says by itself is kept in the build cache between builds.
import type { AstroIntegration } from 'astro';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { CONTENT_CHECK_CODE, contentReport, scheduledLines } from '../lib/blog/content-checks.ts';
import { buildCacheDir, codeHash } from './build-cache.ts';

export default function contentChecks(): AstroIntegration {
  let building = false;
  return {
    name: 'content-checks',
    hooks: {
      'astro:config:setup': ({ command }) => {
        building = command === 'build';
      },
      'astro:config:done': ({ config, logger }) => {
        if (!building) return;
        const root = fileURLToPath(config.root);
        const started = performance.now();
        // What unchanged articles' files said by themselves is kept between builds (.cache/bio-build/).
        const { problems, scheduled } = contentReport(root, new Date(), {
          file: join(buildCacheDir(root, 'content-checks'), 'verdicts.json'),
          code: codeHash(root, CONTENT_CHECK_CODE),
        });
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
