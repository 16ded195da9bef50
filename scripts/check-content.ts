// `npm run check:content`: every problem of the articles (src/lib/content-checks.ts), all at once, with file and
// line; exits 1 when there is any. The build runs the same checks before it starts.
import { checkContent } from '../src/lib/content-checks.ts';
import { projectRoot } from './ensure-build.ts';

const problems = checkContent(projectRoot);
if (problems.length > 0) {
  console.error(`${problems.length} problem${problems.length === 1 ? '' : 's'} in content/blog:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('content/blog: no problem found.');
