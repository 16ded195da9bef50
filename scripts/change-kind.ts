// Reads the paths a push changed (one a line, as `git diff --name-only` prints them) and says what the publish
// workflow must run: `content` when every one is under content/ (an editor's change: the content checks, the build
// and the checks of the build), `code` otherwise (the whole test suite first). No path (a scheduled rebuild, which
// only publishes articles whose date has come) is content.
import { readFileSync } from 'node:fs';

export function changeKind(paths: readonly string[]): 'content' | 'code' {
  return paths.every((path) => path.startsWith('content/')) ? 'content' : 'code';
}

if (import.meta.main) {
  const paths = readFileSync(0, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  console.log(changeKind(paths));
}
