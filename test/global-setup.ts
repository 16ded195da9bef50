// Builds the site once for the whole run, with the default configuration the tests serve.
import { ensureBuild } from '../scripts/ensure-build.ts';
import { cleanEnv, testConfig } from './helpers/env.ts';

export default function setup() {
  ensureBuild(testConfig, cleanEnv());
}
