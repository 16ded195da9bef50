// The Kubernetes manifests as a cluster would take them (issue 61), printed by the command docs/operations.md gives:
// every object valid against the Kubernetes API's schemas (kubernetes-models, generated from the API's OpenAPI), every
// pod within Pod Security "restricted" (the rules of the Kubernetes documentation's Pod Security Standards, checked
// here one by one), the public Service keeping the visitor's address, and Varnish's work folder sized from what it
// holds, measured here.
import { spawnSync } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runEdge } from '../../scripts/edge.ts';
import { freePort } from '../../scripts/sidecar-process.ts';
import { securityHeaders } from '../../sidecar/security-headers.ts';
import { buildStyleHashes } from '../../src/lib/build-manifest.ts';
import { cleanEnv, clientDir, distDir, projectRoot, testConfig } from '../helpers/env.ts';

type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; spec?: Record<string, unknown> };
const MODELS: Record<string, new (data: never) => { validate: () => void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

let manifests: Manifest[];
beforeAll(() => {
  // As the guide prints it: npm run --silent kube -- config > bio.yaml
  const printed = spawnSync('npm', ['run', '--silent', 'kube', '--', 'config'], {
    cwd: projectRoot,
    env: cleanEnv(),
    encoding: 'utf8',
  });
  expect(printed.status, printed.stderr).toBe(0);
  manifests = parseAllDocuments(printed.stdout).map((doc) => doc.toJS() as Manifest);
});

interface Container {
  name: string;
  securityContext?: Record<string, unknown> & { capabilities?: { drop?: string[]; add?: string[] } };
  ports?: { hostPort?: number }[];
}
interface PodSpec {
  securityContext?: Record<string, unknown>;
  containers: Container[];
  initContainers?: Container[];
  volumes?: Record<string, unknown>[];
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
}

/** What Pod Security "restricted" (and the "baseline" it includes) finds wrong with a pod, one line each. */
function restrictedProblems(pod: PodSpec): string[] {
  const problems: string[] = [];
  const podContext = pod.securityContext ?? {};
  if (pod.hostNetwork || pod.hostPID || pod.hostIPC) problems.push('shares a host namespace');
  const allowedVolumes = [
    'configMap',
    'csi',
    'downwardAPI',
    'emptyDir',
    'ephemeral',
    'persistentVolumeClaim',
    'projected',
    'secret',
  ];
  for (const volume of pod.volumes ?? [])
    for (const type of Object.keys(volume).filter((key) => key !== 'name'))
      if (!allowedVolumes.includes(type)) problems.push(`volume ${String(volume.name)} is a ${type}`);
  for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
    const context = container.securityContext ?? {};
    const said = (key: string) => context[key] ?? podContext[key];
    if (context.privileged) problems.push(`${container.name} is privileged`);
    if (context.allowPrivilegeEscalation !== false) problems.push(`${container.name} may escalate privileges`);
    if (said('runAsNonRoot') !== true) problems.push(`${container.name} may run as root`);
    if (said('runAsUser') === 0) problems.push(`${container.name} runs as user 0`);
    const seccomp = (said('seccompProfile') as { type?: string } | undefined)?.type;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost')
      problems.push(`${container.name} has no seccomp profile`);
    if (!context.capabilities?.drop?.includes('ALL')) problems.push(`${container.name} keeps its capabilities`);
    for (const added of context.capabilities?.add ?? [])
      if (added !== 'NET_BIND_SERVICE') problems.push(`${container.name} adds ${added}`);
    for (const port of container.ports ?? [])
      if (port.hostPort) problems.push(`${container.name} takes host port ${port.hostPort}`);
  }
  return problems;
}

describe('the Kubernetes manifests, as a cluster takes them (issue 61)', () => {
  it('are each valid against the Kubernetes API schema of their kind', () => {
    expect(manifests.map((m) => `${m.kind}/${m.metadata.name}`).sort()).toEqual([
      'ConfigMap/bio-edge',
      'ConfigMap/bio-sidecar',
      'Deployment/bio-edge',
      'Deployment/bio-sidecar',
      'PodDisruptionBudget/bio-edge',
      'PodDisruptionBudget/bio-sidecar',
      'Service/bio-edge',
      'Service/bio-sidecar',
    ]);
    for (const manifest of manifests) {
      const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
      expect(Model, `${manifest.apiVersion} ${manifest.kind}`).toBeDefined();
      expect(
        () => new Model!(manifest as never).validate(),
        `${manifest.kind}/${manifest.metadata.name}`,
      ).not.toThrow();
    }
  });

  it('run every pod within Pod Security "restricted"', () => {
    const deployments = manifests.filter((m) => m.kind === 'Deployment');
    expect(deployments).toHaveLength(2);
    for (const deployment of deployments) {
      const pod = (deployment.spec as { template: { spec: PodSpec } }).template.spec;
      expect(restrictedProblems(pod), deployment.metadata.name).toEqual([]);
    }
  });

  it("keep the visitor's address to the edge", () => {
    const edge = manifests.find((m) => m.kind === 'Service' && m.metadata.name === 'bio-edge')!;
    expect(edge.spec).toMatchObject({ type: 'LoadBalancer', externalTrafficPolicy: 'Local' });
  });

  it("size Varnish's work folder above what it holds, measured", async () => {
    const deployment = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === 'bio-edge')!;
    const volume = (deployment.spec as { template: { spec: PodSpec } }).template.spec.volumes!.find(
      (v) => v.name === 'bio-edge-work',
    ) as { emptyDir: { sizeLimit: string } };
    const limit = Number(/^(\d+)Mi$/.exec(volume.emptyDir.sizeLimit)?.[1]) * 2 ** 20;
    // Varnish as the manifests run it (its defaults for the log's space), its work folder measured once it serves.
    const edge = await runEdge({
      listen: `127.0.0.1:${await freePort()}`,
      backend: '127.0.0.1:9',
      dist: clientDir,
      headers: securityHeaders(testConfig, buildStyleHashes(distDir)),
    });
    try {
      const bytes = Number(
        execFileSync('du', ['-sb', join(edge.prefix, 'varnish')], { encoding: 'utf8' }).split('\t')[0],
      );
      expect(bytes).toBeGreaterThan(50 * 2 ** 20);
      expect(bytes).toBeLessThan(limit * 0.9);
    } finally {
      edge.varnish.kill('SIGKILL');
    }
  });
});
