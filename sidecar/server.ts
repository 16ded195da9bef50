// Starts the sidecar: validates the configuration and the build, listens, and shuts down gracefully.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../src/lib/site-config.ts';
import { manifestMismatch, readManifest } from '../src/lib/build-manifest.ts';
import { buildApp } from './app.ts';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));

export async function startServer(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }

  const distDir = join(projectRoot, 'dist');
  const problem = manifestMismatch(readManifest(distDir), config);
  if (problem) {
    console.error(`Cannot serve: ${problem}.\nBuild for this configuration first: BASE_URL=${config.baseUrl} npm run build (or use npm start, which builds when needed).`);
    process.exit(1);
  }

  const app = await buildApp({
    config,
    distDir,
    logger: { level: process.env.LOG_LEVEL ?? 'info' },
  });

  const shutdown = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    await app.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  console.log(`Serving ${config.baseUrl} on http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await startServer();
}
