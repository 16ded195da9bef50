// The suites' temporary folders go when the run, or the process that made them, ends (test/helpers/temporary.ts): a
// CI run left some 400 MB of database copies in /tmp, and runs on one machine filled its disk.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/env.ts';
import { TEMPORARY_ROOT } from '../helpers/temporary.ts';

/** Runs a process that makes a temporary folder and a copy of the demo database, and says whether both were there. */
function makeAndExit(root: string | undefined): { folders: string[]; there: boolean } {
  const helpers = join(projectRoot, 'test/helpers');
  const script = `
    import { existsSync, writeFileSync } from 'node:fs';
    import { dirname, join } from 'node:path';
    import { temporaryFolder } from ${JSON.stringify(join(helpers, 'temporary.ts'))};
    import { createDatabase } from ${JSON.stringify(join(helpers, 'database.ts'))};
    const folders = [temporaryFolder('bio-temporary-'), dirname(await createDatabase())];
    writeFileSync(join(folders[0], 'bio.db'), 'rows');
    console.log(JSON.stringify({ folders, there: folders.every((f) => existsSync(f)) }));`;
  const env = { ...process.env };
  if (root) env[TEMPORARY_ROOT] = root;
  else delete env[TEMPORARY_ROOT];
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { folders: string[]; there: boolean };
}

describe('a temporary folder of the suites', () => {
  it('in a process of its own: there while the process runs, gone once it exits (a demo database copy too)', () => {
    const { folders, there } = makeAndExit(undefined);
    expect(there).toBe(true);
    expect(folders.filter((folder) => existsSync(folder))).toEqual([]);
  });

  it("in a run: inside the run's folder, which the run's global setup removes at its end", () => {
    const root = mkdtempSync(join(tmpdir(), 'bio-test-run-'));
    try {
      const { folders, there } = makeAndExit(root);
      expect(there).toBe(true);
      expect(folders.map((folder) => dirname(folder))).toEqual([root, root]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
