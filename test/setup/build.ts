// Builds the site once for the run, with the default configuration the tests serve (nothing when dist/ is already
// that build). The global setup of every tier that serves or reads the build; the unit tier has none.
// It also makes the run's folder for temporary files (test/helpers/temporary.ts: database copies and the like),
// removed when the run ends: left behind one by one, a CI run left some 400 MB in /tmp.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuildSync } from '../../scripts/ensure-build.ts';
import { cleanEnv, testConfig } from '../helpers/env.ts';
import { TEMPORARY_ROOT } from '../helpers/temporary.ts';

export default function setup() {
  ensureBuildSync(testConfig, cleanEnv());
  // One folder for the whole run: the first project's setup makes it (its workers, and later projects', inherit it).
  if (process.env[TEMPORARY_ROOT]) return;
  const root = mkdtempSync(join(tmpdir(), 'bio-test-run-'));
  process.env[TEMPORARY_ROOT] = root;
  return () => {
    rmSync(root, { recursive: true, force: true });
    delete process.env[TEMPORARY_ROOT];
  };
}
