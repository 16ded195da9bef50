// The suites' temporary folders go with the process that made them (test/helpers/temporary.ts): a CI run left some
// 400 MB of database copies in /tmp, and runs on one machine filled its disk.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/env.ts';

describe('a temporary folder of the suites', () => {
  it('is there while its process runs, and gone once it exits: a copy of the demo database too', () => {
    const helpers = join(projectRoot, 'test/helpers');
    const script = `
      import { existsSync, writeFileSync } from 'node:fs';
      import { dirname, join } from 'node:path';
      import { temporaryFolder } from ${JSON.stringify(join(helpers, 'temporary.ts'))};
      import { createDatabase } from ${JSON.stringify(join(helpers, 'database.ts'))};
      const folders = [temporaryFolder('bio-temporary-'), dirname(await createDatabase())];
      writeFileSync(join(folders[0], 'bio.db'), 'rows');
      console.log(JSON.stringify({ folders, there: folders.every((f) => existsSync(f)) }));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const { folders, there } = JSON.parse(run.stdout) as { folders: string[]; there: boolean };
    expect(there).toBe(true);
    expect(folders.filter((folder) => existsSync(folder))).toEqual([]);
  });
});
