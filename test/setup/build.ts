// Builds the site once for the run, with the default configuration the tests serve (nothing when dist/ is already
// that build). The global setup of every tier that serves or reads the build; the unit tier has none.
import { ensureBuild } from '../../scripts/ensure-build.ts';
import { cleanEnv, testConfig } from '../helpers/env.ts';

export default function setup() {
  ensureBuild(testConfig, cleanEnv());
}
