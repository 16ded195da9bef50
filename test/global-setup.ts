// Builds the site once for the whole run, with the default configuration the tests serve, and starts a PostgreSQL
// primary and standby (scripts/postgres-cluster.ts) that the PostgreSQL suites share.
import type { TestProject } from 'vitest/node';
import { ensureBuild } from '../scripts/ensure-build.ts';
import { startCluster } from '../scripts/postgres-cluster.ts';
import { cleanEnv, testConfig } from './helpers/env.ts';

export default async function setup(project: TestProject) {
  ensureBuild(testConfig, cleanEnv());
  const cluster = await startCluster();
  project.provide('postgres', { primary: cluster.primary.port, standby: cluster.standby.port });
  return () => cluster.stop();
}
