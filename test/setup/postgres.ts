// A PostgreSQL primary and standby (scripts/postgres-cluster.ts) for the tiers that read PostgreSQL. Vitest runs a
// project's global setup once per project: the cluster is started by the first project that asks and shared by the
// others (they run in this one process), and stopped after the last of them.
import type { TestProject } from 'vitest/node';
import { startCluster, type Cluster } from '../../scripts/postgres-cluster.ts';

const shared = globalThis as typeof globalThis & {
  bioTestCluster?: { cluster: Promise<Cluster>; users: number } | undefined;
};

export default async function setup(project: TestProject) {
  shared.bioTestCluster ??= { cluster: startCluster(), users: 0 };
  const entry = shared.bioTestCluster;
  entry.users++;
  const cluster = await entry.cluster;
  project.provide('postgres', { primary: cluster.primary.port, standby: cluster.standby.port });
  return () => {
    if (--entry.users > 0) return;
    cluster.stop();
    shared.bioTestCluster = undefined;
  };
}
