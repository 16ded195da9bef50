// The configuration every test builds and serves with: the defaults, whatever the caller's environment says.
import { join } from 'node:path';
import { loadConfig } from '../../sidecar/config.ts';
import { projectRoot } from '../../scripts/ensure-build.ts';

export const testConfig = { ...loadConfig({}), port: 0 };
export const distDir = join(projectRoot, 'dist');
export const clientDir = join(distDir, 'client');
export { projectRoot };

export { cleanEnv } from '../../scripts/sidecar-process.ts';
