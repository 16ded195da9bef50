// `npm run dev`: the editors' preview. Astro's dev server with live reload, articles in both languages as they are
// typed, and the live pages (profiles, cards) from the local demo database, as the sidecar renders them.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { loadConfigOrExit } from '../sidecar/config.ts';
import { ensureDemoDatabase } from './demo-database.ts';
import { projectRoot } from './ensure-build.ts';

const config = loadConfigOrExit();
ensureDemoDatabase(config);
// Astro's own entry on this Node: its bin's shebang would run whatever node comes first on PATH.
const astro = spawn(
  process.execPath,
  [
    join(projectRoot, 'node_modules', 'astro', 'bin', 'astro.mjs'),
    'dev',
    '--port',
    String(config.port),
    '--host',
    config.host,
    ...process.argv.slice(2),
  ],
  { cwd: projectRoot, stdio: 'inherit' },
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => astro.kill(signal));
astro.on('exit', (code) => process.exit(code ?? 0));
