// The systemd units the operations guide installs (#50), as systemd reads them: `systemd-analyze verify` finds nothing
// wrong in any (a key in the wrong section is ignored by systemd with a warning, which is a unit that does not do what
// it says). Paths that exist only on the operator's machine (/opt/bio) are the one thing it is allowed to miss.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/env.ts';

const units = readdirSync(join(projectRoot, 'deploy')).filter((f) => /\.(service|socket)$/.test(f));

describe('deploy/*.service and *.socket', () => {
  it('are the sidecar and its socket, the purger, the front and the edge', () => {
    expect(units.sort()).toEqual([
      'bio-edge.service',
      'bio-front.service',
      'bio-purger.service',
      'bio-sidecar.service',
      'bio-sidecar.socket',
    ]);
  });

  it.each(units)('%s is a unit systemd reads without a warning', (unit) => {
    const r = spawnSync('systemd-analyze', ['verify', '--man=no', join(projectRoot, 'deploy', unit)], {
      encoding: 'utf8',
    });
    const said = (r.stdout + r.stderr)
      .split('\n')
      .filter((line) => line.trim() && !/Command \/opt\/bio\/\S+ is not executable/.test(line));
    expect(said).toEqual([]);
  });
});
