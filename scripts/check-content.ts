// `npm run check:content`: every problem of the articles (src/lib/blog/content-checks.ts), all at once, with file and
// line; exits 1 when there is any. Then what is scheduled: every article whose date is still ahead, with the day and
// hour it appears. The build runs the same checks, and says the same, before it starts.
import { contentReport, scheduledLines } from '../src/lib/blog/content-checks.ts';
import { projectRoot } from './ensure-build.ts';

const { problems, scheduled } = contentReport(projectRoot);
console.log(scheduledLines(scheduled).join('\n'));
if (problems.length > 0) {
  console.error(
    `${problems.length} problem${problems.length === 1 ? '' : 's'} in content/blog:\n  ${problems.join('\n  ')}`,
  );
  process.exit(1);
}
console.log('content/blog: no problem found.');
