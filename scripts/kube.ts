// `npm run --silent kube -- config [--image IMAGE] [--edge-image IMAGE] [--replicas N] [--edge-replicas N]
//   [--backend HOST:PORT ...] [--trust-proxy CIDR] [--publish HOST_IP:PORT] [--dist DIR]` (#50) prints
// deploy/kubernetes.yaml filled: BASE_URL (and the site's name and contact) from the environment as every command
// reads them, the edge's VCL made by the same code as `npm run edge -- config` (its backends: the sidecars' Service
// unless named), and the build's 503 page for the edge. `kubectl apply -f` what it prints.
//   --backend      podman kube play has no Services: name the sidecars' pods instead (bio-sidecar-pod-0:8080, …)
//   --publish      the edge's port also on the node's HOST_IP:PORT (hostPort): a one-machine trial, or the test
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandLine } from './command-line.ts';
import { hostPort, loadConfig, type ServerConfig } from '../sidecar/config.ts';
import { securityHeaders } from '../sidecar/security-headers.ts';
import { buildStyleHashes } from '../src/lib/build-manifest.ts';
import { DEFAULT_LANG } from '../src/lib/surface.ts';
import { paths } from '../src/lib/urls.ts';
import { edgeConfig } from './edge.ts';
import { EDGE_IMAGE, imageOf } from './image.ts';
import { projectRoot } from './ensure-build.ts';

export const KUBE_DEFAULTS = {
  /** `npm run image`'s (the sidecar's is named by the build: imageOf): push them to your registry, name them there. */
  edgeImage: EDGE_IMAGE,
  replicas: 2,
  edgeReplicas: 2,
  /** The sidecars' Service, as the edge reaches it. */
  backends: ['bio-sidecar:8080'],
  /** The pod network of most clusters: the edge's addresses, as the sidecars see them. Set it to yours. */
  trustProxy: '10.0.0.0/8',
};

/** Where the edge container reads its 503 page (the ConfigMap's file). */
const EDGE_FILES = '/etc/varnish/bio';

export interface KubeOptions {
  config: ServerConfig;
  image?: string;
  edgeImage?: string;
  replicas?: number;
  edgeReplicas?: number;
  backends?: string[];
  trustProxy?: string;
  /** HOST_IP:PORT on which the node also answers for the edge (hostPort). */
  publish?: string;
  /** dist/ of the build (its style hashes for the edge's pages, its 503 page): the project's own unless given. */
  dist?: string;
}

const indent = (text: string, spaces: number) =>
  text
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => (line ? ' '.repeat(spaces) + line : line))
    .join('\n');

/** deploy/kubernetes.yaml, filled. */
export function kubeManifests(options: KubeOptions): string {
  const o = { ...KUBE_DEFAULTS, ...options };
  const dist = options.dist ?? options.config.distDir ?? join(projectRoot, 'dist');
  const backends = o.backends;
  const vcl = edgeConfig({
    backend: backends,
    headers: securityHeaders(options.config, buildStyleHashes(dist)),
    dist: join(dist, 'client'),
    unavailablePage: `${EDGE_FILES}/unavailable.html`,
  });
  const page = readFileSync(join(dist, 'client', `${paths.errorPage(DEFAULT_LANG, 503).slice(1)}.html`), 'utf8');
  const publish = o.publish ? hostPort(o.publish) : undefined;
  const values: Record<string, string> = {
    // Strings as JSON writes them: YAML's double-quoted scalars.
    BASE_URL: JSON.stringify(options.config.baseUrl),
    SERVICE_NAME: JSON.stringify(options.config.serviceName),
    CONTACT_EMAIL: JSON.stringify(options.config.contactEmail),
    TRUST_PROXY: JSON.stringify(o.trustProxy),
    REPLICAS: String(o.replicas),
    EDGE_REPLICAS: String(o.edgeReplicas),
    // The image `npm run image` makes of this build, unless named.
    IMAGE: o.image ?? imageOf(dist),
    EDGE_IMAGE: o.edgeImage,
    EDGE_BACKENDS: backends.join(', '),
    EDGE_VCL: indent(vcl, 4),
    UNAVAILABLE_PAGE: indent(page, 4),
  };
  // The edge's port on the node, or nothing (the placeholder's line goes too).
  const hostPortLines = publish
    ? [
        '          ports:',
        '            - containerPort: 6081',
        `              hostIP: "${publish.host}"`,
        `              hostPort: ${publish.port}`,
        '',
      ].join('\n')
    : '';
  const template = readFileSync(join(projectRoot, 'deploy', 'kubernetes.yaml'), 'utf8');
  return template
    .replace('{{EDGE_HOST_PORT}}\n', hostPortLines)
    .replace(/\{\{([A-Z_]+)\}\}/g, (whole, name: string) => {
      const value = values[name];
      if (value === undefined) throw new Error(`deploy/kubernetes.yaml: unknown placeholder ${whole}`);
      return value;
    });
}

const USAGE =
  'Usage: npm run --silent kube -- config [--image IMAGE] [--edge-image IMAGE] [--replicas N] [--edge-replicas N] [--backend HOST:PORT ...] [--trust-proxy CIDR] [--publish HOST_IP:PORT] [--dist DIR]';

if (import.meta.main) {
  const { values, positionals } = commandLine(USAGE, {
    allowPositionals: true,
    options: {
      image: { type: 'string' },
      'edge-image': { type: 'string' },
      replicas: { type: 'string' },
      'edge-replicas': { type: 'string' },
      backend: { type: 'string', multiple: true },
      'trust-proxy': { type: 'string' },
      publish: { type: 'string' },
      dist: { type: 'string' },
    },
  });
  if (positionals[0] !== 'config' || positionals.length !== 1) {
    console.error(USAGE);
    process.exit(2);
  }
  process.stdout.write(
    kubeManifests({
      config: loadConfig(),
      ...(values.image ? { image: values.image } : {}),
      ...(values['edge-image'] ? { edgeImage: values['edge-image'] } : {}),
      ...(values.replicas ? { replicas: Number(values.replicas) } : {}),
      ...(values['edge-replicas'] ? { edgeReplicas: Number(values['edge-replicas']) } : {}),
      ...(values.backend?.length ? { backends: values.backend } : {}),
      ...(values['trust-proxy'] ? { trustProxy: values['trust-proxy'] } : {}),
      ...(values.publish ? { publish: values.publish } : {}),
      ...(values.dist ? { dist: values.dist } : {}),
    }),
  );
}
