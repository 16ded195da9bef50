// `npm run compose -- config [--out DIR] [--image IMAGE] [--publish [HOST:]PORT] [--trust CIDR] [--dist DIR]`
// (issue 61): one machine, one file. Writes DIR (default ./compose) with compose.yaml (deploy/compose.yaml filled),
// the front's nginx configuration (as `npm run front -- config` makes it, over the two sidecars), the edge's VCL (as
// `npm run edge -- config` makes it, over the front) and the env files with the database's two passwords (random,
// made once, mode 600; kept when they exist). Then `cd DIR && podman-compose up -d`. The images are `npm run image`'s: the
// sidecar's of the build in dist/ unless --image names one, the edge's, the front's and PostgreSQL's.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { commandLine } from './command-line.ts';
import { edgeConfig } from './edge.ts';
import { frontConfig } from './front-config.ts';
import { EDGE_IMAGE, FRONT_IMAGE, imageOf, postgresImage } from './image.ts';
import { projectRoot } from './project-root.ts';
import { loadConfig, type ServerConfig } from '../sidecar/config.ts';
import { securityHeaders } from '../sidecar/security-headers.ts';
import { buildStyleHashes } from '../src/lib/build-manifest.ts';

export interface ComposeOptions {
  config: ServerConfig;
  /** The folder it writes. */
  out: string;
  /** The sidecar's image: the one `npm run image` makes of the build in `dist` unless given. */
  image?: string;
  /** Where readers reach the edge: a port, or HOST:PORT. */
  publish?: string;
  /** The compose network's addresses: the hops the front, the sidecars and the edge trust. */
  trust?: string;
  /** dist/ of the build the image carries (the front serves its files, the edge its 503 page). */
  dist?: string;
}

/** Podman's first address pool for the networks it makes (containers.conf default_subnet_pools). */
export const COMPOSE_DEFAULTS = { publish: '8080', trust: '10.89.0.0/16' };

/** Writes the compose folder; the path of its compose.yaml. */
export function writeCompose(options: ComposeOptions): string {
  const { config } = options;
  const out = resolve(options.out);
  const dist = resolve(options.dist ?? config.distDir ?? join(projectRoot, 'dist'));
  const trust = options.trust ?? COMPOSE_DEFAULTS.trust;
  mkdirSync(out, { recursive: true });
  const frontConf = join(out, 'nginx.conf');
  writeFileSync(
    frontConf,
    frontConfig({
      config,
      listen: '0.0.0.0:8080',
      sidecars: ['sidecar-1:8080', 'sidecar-2:8080'],
      prefix: '/var/lib/bio-front',
      dist: join(dist, 'client'),
      accessLog: '/dev/stdout',
      trustProxy: [trust],
    }),
  );
  const vcl = join(out, 'edge.vcl');
  writeFileSync(
    vcl,
    edgeConfig({
      backend: ['front:8080'],
      purgers: [trust],
      dist: join(dist, 'client'),
      headers: securityHeaders(config, buildStyleHashes(dist)),
    }),
  );
  // The passwords, made the first time (the database keeps the ones it started with): PostgreSQL's first start reads
  // both, the import CLI the superuser's and the sidecars and the purger the read-only role's, each as PGPASSWORD.
  if (!existsSync(join(out, 'postgres.env'))) {
    const superuser = randomBytes(24).toString('hex');
    const reader = randomBytes(24).toString('hex');
    const envFiles = {
      'postgres.env': `POSTGRES_PASSWORD=${superuser}\nBIO_READER_PASSWORD=${reader}\n`,
      'superuser.env': `PGPASSWORD=${superuser}\n`,
      'reader.env': `PGPASSWORD=${reader}\n`,
    };
    for (const [name, text] of Object.entries(envFiles)) {
      writeFileSync(join(out, name), text, { mode: 0o600 });
      chmodSync(join(out, name), 0o600);
    }
  }
  const values: Record<string, string> = {
    IMAGE: options.image ?? imageOf(dist),
    EDGE_IMAGE,
    FRONT_IMAGE,
    POSTGRES_IMAGE: postgresImage(),
    // Strings as JSON writes them: YAML's double-quoted scalars.
    BASE_URL: JSON.stringify(config.baseUrl),
    SERVICE_NAME: JSON.stringify(config.serviceName),
    CONTACT_EMAIL: JSON.stringify(config.contactEmail),
    TRUST: trust,
    PUBLISH: options.publish ?? COMPOSE_DEFAULTS.publish,
    FRONT_CONF: frontConf,
    EDGE_VCL: vcl,
    DIST: join(dist, 'client'),
    DEPLOY: join(projectRoot, 'deploy'),
  };
  const file = join(out, 'compose.yaml');
  writeFileSync(
    file,
    readFileSync(join(projectRoot, 'deploy', 'compose.yaml'), 'utf8').replace(/\{\{([A-Z_]+)\}\}/g, (whole, name) => {
      const value = values[name as string];
      if (value === undefined) throw new Error(`deploy/compose.yaml: unknown placeholder ${whole}`);
      return value;
    }),
  );
  return file;
}

const USAGE =
  'Usage: npm run compose -- config [--out DIR] [--image IMAGE] [--publish [HOST:]PORT] [--trust CIDR] [--dist DIR]';

if (import.meta.main) {
  const { values, positionals } = commandLine(USAGE, {
    allowPositionals: true,
    options: {
      out: { type: 'string', default: 'compose' },
      image: { type: 'string' },
      publish: { type: 'string' },
      trust: { type: 'string' },
      dist: { type: 'string' },
    },
  });
  if (positionals[0] !== 'config' || positionals.length !== 1) {
    console.error(USAGE);
    process.exit(2);
  }
  const file = writeCompose({
    config: loadConfig(),
    out: values.out,
    ...(values.image ? { image: values.image } : {}),
    ...(values.publish ? { publish: values.publish } : {}),
    ...(values.trust ? { trust: values.trust } : {}),
    ...(values.dist ? { dist: values.dist } : {}),
  });
  console.log(`${file}: start it with  cd ${resolve(values.out)} && podman-compose up -d`);
}
